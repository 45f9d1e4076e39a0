//! JSON as the organisers' Python runner wrote it (`json.dumps` with its default separators
//! `", "` and `": "`): bots written in 2018 parse koth's messages as they parsed theirs, and a
//! bot that simulates the game reads the very same numbers.

/// A value as Python holds it: integers and floats are told apart, because Python prints
/// `300` and `300.0` differently.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Py {
    Int(i64),
    Float(f64),
    Bool(bool),
    List(Vec<Py>),
    /// Keys in insertion order, as Python's dicts keep them.
    Dict(Vec<(&'static str, Py)>),
}

impl Py {
    pub(crate) fn to_json(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Py::Int(n) => out.push_str(itoa::Buffer::new().format(*n)),
            Py::Float(x) => push_float(out, *x),
            Py::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Py::List(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Py::Dict(entries) => {
                out.push('{');
                for (i, (key, value)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push('"');
                    out.push_str(key);
                    out.push_str("\": ");
                    value.write(out);
                }
                out.push('}');
            }
        }
    }
}

/// Appends `repr(x)` for a finite float, as Python 3 writes it: the shortest digits that read
/// back as `x` (the nearest to `x` when two are as short, the even one when those are as near),
/// in plain notation with at least one decimal when the decimal exponent is from −4 to 15, else
/// in scientific notation with a two-digit exponent at least (`1e-05`, `1.5e+16`).
///
/// `zmij` finds the same digits as Python (as `std`'s `{:e}` does not always: it gives
/// `1801514316094494.3` where Python gives `.2`), on the stack, and writes them almost as Python
/// does: plain from 1e-5 on rather than 1e-4, and an exponent of one digit without a zero.
pub(crate) fn push_float(out: &mut String, x: f64) {
    let mut buffer = zmij::Buffer::new();
    let text = buffer.format_finite(x);
    let magnitude = match text.strip_prefix('-') {
        Some(magnitude) => {
            out.push('-');
            magnitude
        }
        None => text,
    };
    if let Some((mantissa, exponent)) = magnitude.split_once('e') {
        // `1e-7`, `1.5e+16`: Python writes at least two digits of exponent.
        let (sign, digits) = exponent.split_at(1);
        out.push_str(mantissa);
        out.push('e');
        out.push_str(sign);
        if digits.len() < 2 {
            out.push('0');
        }
        out.push_str(digits);
    } else if let Some(digits) = magnitude.strip_prefix("0.0000") {
        // From 1e-5 to 1e-4, where Python already writes `d.ddde-05`.
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        out.push_str("e-05");
    } else {
        out.push_str(magnitude);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_read_as_python_prints_them() {
        // Each pair: the value, and `repr(value)` as python3 printed it.
        let cases: [(f64, &str); 24] = [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (300.0, "300.0"),
            (1e-05, "1e-05"),
            (0.0001, "0.0001"),
            (0.1, "0.1"),
            (1.0 / 3.0, "0.3333333333333333"),
            (2.5e-05, "2.5e-05"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (-7.5, "-7.5"),
            (1e-7, "1e-07"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (599.9999999999999, "599.9999999999999"),
            (-std::f64::consts::FRAC_PI_2, "-1.5707963267948966"),
            (10.5, "10.5"),
            (9999999999999998.0, "9999999999999998.0"),
            (0.00012345, "0.00012345"),
            (-2.5e-05, "-2.5e-05"),
            (9.999e-05, "9.999e-05"),
            (1.5e-10, "1.5e-10"),
            // Exactly …494.25: two shortest digits as near, and Python takes the even one.
            (1801514316094494.2, "1801514316094494.2"),
        ];
        for (x, expected) in cases {
            let mut text = String::from("[");
            push_float(&mut text, x);
            assert_eq!(text, format!("[{expected}"), "{x:e}");
        }
    }

    #[test]
    fn values_are_written_as_json_dumps_writes_them() {
        let value = Py::Dict(vec![
            ("a", Py::List(vec![Py::Int(1), Py::Float(2.0)])),
            ("b", Py::Bool(true)),
        ]);
        assert_eq!(value.to_json(), r#"{"a": [1, 2.0], "b": true}"#);
    }
}
