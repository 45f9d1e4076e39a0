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
            Py::Int(n) => out.push_str(&n.to_string()),
            Py::Float(x) => out.push_str(&python_float(*x)),
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

/// `repr(x)` for a finite float, as Python 3 writes it: the shortest digits that read back as
/// `x`, in plain notation with at least one decimal when the decimal exponent is from −4 to 15,
/// else in scientific notation with a two-digit exponent at least (`1e-05`, `1.5e+16`).
pub(crate) fn python_float(x: f64) -> String {
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.to_string();
    }
    // Rust's `{:e}` gives the shortest round-trip digits, as Python's repr does.
    let scientific = format!("{x:e}");
    let (mantissa, exponent) = scientific
        .split_once('e')
        .expect("{:e} always has an exponent");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if (-4..16).contains(&exponent) {
        let point = exponent + 1;
        let text = if point <= 0 {
            format!("0.{}{digits}", "0".repeat((-point) as usize))
        } else if point as usize >= digits.len() {
            format!("{digits}{}.0", "0".repeat(point as usize - digits.len()))
        } else {
            format!(
                "{}.{}",
                &digits[..point as usize],
                &digits[point as usize..]
            )
        };
        format!("{sign}{text}")
    } else {
        let mantissa = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits
        };
        let exponent_sign = if exponent < 0 { '-' } else { '+' };
        format!("{sign}{mantissa}e{exponent_sign}{:02}", exponent.abs())
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
            assert_eq!(python_float(x), expected, "{x:e}");
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
