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
/// back as `x`, in plain notation with at least one decimal when the decimal exponent is from −4
/// to 15, else in scientific notation with a two-digit exponent at least (`1e-05`, `1.5e+16`).
/// Every tick message holds a score of these, so nothing is allocated: the digits are formatted
/// on the stack and copied into `out`.
pub(crate) fn push_float(out: &mut String, x: f64) {
    use std::fmt::Write;
    if x == 0.0 {
        out.push_str(if x.is_sign_negative() { "-0.0" } else { "0.0" });
        return;
    }
    // Rust's `{:e}` gives the shortest round-trip digits, as Python's repr does: `-d.ddde-x`,
    // at most 24 bytes for an f64.
    let mut scientific = StackText::default();
    write!(scientific, "{x:e}").expect("an f64 in scientific notation fits 32 bytes");
    let scientific = scientific.as_str();
    let (mantissa, exponent) = scientific
        .split_once('e')
        .expect("{:e} always has an exponent");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    let mantissa = match mantissa.strip_prefix('-') {
        Some(m) => {
            out.push('-');
            m
        }
        None => mantissa,
    };
    // The digits: the mantissa without its point (`d` or `d.ddd`).
    let (first, rest) = mantissa.split_at(1);
    let rest = rest.strip_prefix('.').unwrap_or(rest);
    let digits = first.len() + rest.len();
    let zeros = |out: &mut String, n: usize| out.extend(std::iter::repeat_n('0', n));
    if (-4..16).contains(&exponent) {
        let point = exponent + 1;
        if point <= 0 {
            out.push_str("0.");
            zeros(out, (-point) as usize);
            out.push_str(first);
            out.push_str(rest);
        } else if point as usize >= digits {
            out.push_str(first);
            out.push_str(rest);
            zeros(out, point as usize - digits);
            out.push_str(".0");
        } else {
            // The point falls inside the rest of the digits.
            let (whole, fraction) = rest.split_at(point as usize - 1);
            out.push_str(first);
            out.push_str(whole);
            out.push('.');
            out.push_str(fraction);
        }
    } else {
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        out.push_str(if exponent < 0 { "e-" } else { "e+" });
        let exponent = exponent.unsigned_abs();
        if exponent < 10 {
            out.push('0');
        }
        out.push_str(itoa::Buffer::new().format(exponent));
    }
}

/// A few bytes of text on the stack, for [`push_float`]'s `{:e}`.
#[derive(Default)]
struct StackText {
    bytes: [u8; 32],
    len: usize,
}

impl StackText {
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len]).expect("written from a str")
    }
}

impl std::fmt::Write for StackText {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        let end = self.len + text.len();
        self.bytes
            .get_mut(self.len..end)
            .ok_or(std::fmt::Error)?
            .copy_from_slice(text.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_read_as_python_prints_them() {
        // Each pair: the value, and `repr(value)` as python3 printed it.
        let cases: [(f64, &str); 20] = [
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
