//! Small text formats shared by the renderings: durations, counts, one-line excerpts.

use serde_json::Value;

/// `12 ms`, `1.2 s`, `2m 05s`.
pub(crate) fn duration(ms: u64) -> String {
    if ms < 1_000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{:.1} s", ms as f64 / 1_000.0)
    } else {
        let secs = ms / 1_000;
        format!("{}m {:02}s", secs / 60, secs % 60)
    }
}

/// A count with thousands separators: `12,345`.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A cost in US dollars: `$12.34`, `$0.0125`, `<$0.0001`, `$0.00`.
pub fn usd(cost: f64) -> String {
    if cost <= 0.0 {
        "$0.00".to_owned()
    } else if cost < 0.0001 {
        "<$0.0001".to_owned()
    } else if cost < 1.0 {
        format!("${cost:.4}")
    } else {
        format!("${cost:.2}")
    }
}

/// The first non-blank line of `text`, cut to `max` characters with `…` (and `…` appended when
/// more lines follow).
pub fn one_line(text: &str, max: usize) -> String {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("");
    let more = lines.next().is_some();
    let mut out: String = first.chars().take(max).collect();
    if first.chars().count() > max || more {
        out.push('…');
    }
    out
}

/// Keys whose value best describes a tool call, most telling first.
const TELLING_KEYS: &[&str] = &[
    "path",
    "file_path",
    "file",
    "command",
    "cmd",
    "pattern",
    "query",
    "regex",
    "url",
    "from_path",
    "source",
    "name",
];

/// A short description of tool arguments: the most telling string value, or compact JSON.
pub fn brief_arguments(arguments: &Value) -> String {
    match arguments {
        Value::Null => String::new(),
        Value::String(s) => one_line(s, 60),
        Value::Object(map) => {
            let telling = TELLING_KEYS
                .iter()
                .filter_map(|k| map.get(*k))
                .chain(map.values())
                .find_map(Value::as_str);
            match telling {
                Some(s) => one_line(s, 60),
                None if map.is_empty() => String::new(),
                None => one_line(&arguments.to_string(), 60),
            }
        }
        other => one_line(&other.to_string(), 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn durations_pick_a_readable_unit() {
        assert_eq!(duration(12), "12 ms");
        assert_eq!(duration(1_234), "1.2 s");
        assert_eq!(duration(125_000), "2m 05s");
    }

    #[test]
    fn costs_keep_what_matters() {
        assert_eq!(usd(0.0), "$0.00");
        assert_eq!(usd(0.000_04), "<$0.0001");
        assert_eq!(usd(0.012_54), "$0.0125");
        assert_eq!(usd(3.456), "$3.46");
    }

    #[test]
    fn counts_get_thousands_separators() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1_000), "1,000");
        assert_eq!(count(1_234_567), "1,234,567");
    }

    #[test]
    fn one_line_cuts_and_marks_what_it_drops() {
        assert_eq!(one_line("  hello  ", 10), "hello");
        assert_eq!(one_line("\nfirst\nsecond", 10), "first…");
        assert_eq!(one_line("abcdefghij", 4), "abcd…");
        assert_eq!(one_line("", 4), "");
    }

    #[test]
    fn brief_arguments_prefers_telling_keys() {
        assert_eq!(
            brief_arguments(&json!({"limit": 3, "path": "src/main.rs"})),
            "src/main.rs"
        );
        assert_eq!(brief_arguments(&json!({"other": "x"})), "x");
        assert_eq!(brief_arguments(&json!({"n": 1})), r#"{"n":1}"#);
        assert_eq!(brief_arguments(&json!({})), "");
        assert_eq!(brief_arguments(&Value::Null), "");
    }
}
