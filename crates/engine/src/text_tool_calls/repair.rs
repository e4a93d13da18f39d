//! Conservative repair of the almost-JSON small models write in tool calls. Only rewrites
//! whose meaning is certain are made, so a repaired call does what the model wrote:
//!
//! - a Python triple-quoted string (`"""…"""`, `'''…'''`) becomes a JSON string holding the
//!   same text;
//! - a single-quoted string becomes a double-quoted one;
//! - a raw newline, tab or carriage return inside a string is escaped;
//! - a comma right before `}` or `]` is dropped;
//! - `True`, `False` and `None` outside strings become `true`, `false` and `null`.
//!
//! Text that is cut off or has unbalanced quotes is not guessed at: the caller reports it.

use serde_json::Value;

/// The JSON values of `text` (one or several, whitespace- or comma-separated), read as they
/// are or after [`repair`]. `Ok((values, repaired))`, or why they cannot be read.
pub fn parse_values(text: &str) -> Result<(Vec<Value>, bool), String> {
    match values_of(text) {
        Ok(values) => Ok((values, false)),
        Err(error) => {
            let repaired = repair(text);
            if repaired == text {
                return Err(error);
            }
            values_of(&repaired)
                .map(|values| (values, true))
                .map_err(|_| error)
        }
    }
}

/// Reads a sequence of JSON values separated by whitespace or commas.
fn values_of(text: &str) -> Result<Vec<Value>, String> {
    let mut values = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        match stream.next() {
            Some(Ok(value)) => values.push(value),
            Some(Err(e)) => return Err(e.to_string()),
            None => break,
        }
        let used = stream.byte_offset();
        rest = rest[used..].trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
    }
    if values.is_empty() {
        return Err("no JSON value".to_owned());
    }
    Ok(values)
}

/// `text` with the rewrites of the module docs applied.
pub fn repair(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 16);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if (c == '"' || c == '\'') && chars.get(i + 1) == Some(&c) && chars.get(i + 2) == Some(&c) {
            match triple_quoted(&chars, i, c) {
                Some((body, end)) => {
                    push_json_string(&mut out, &body);
                    i = end;
                    continue;
                }
                None => return text.to_owned(),
            }
        }
        match c {
            '"' | '\'' => match quoted(&chars, i, c) {
                Some((body, end)) => {
                    push_json_string(&mut out, &body);
                    i = end;
                }
                None => return text.to_owned(),
            },
            ',' => {
                let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
                if !matches!(next, Some('}') | Some(']')) {
                    out.push(',');
                }
                i += 1;
            }
            c if c.is_ascii_alphabetic() => {
                let start = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                out.push_str(match word.as_str() {
                    "True" => "true",
                    "False" => "false",
                    "None" => "null",
                    other => other,
                });
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// The text of the triple-quoted string opening at `start`, and the index after it.
fn triple_quoted(chars: &[char], start: usize, quote: char) -> Option<(String, usize)> {
    let mut body = String::new();
    let mut i = start + 3;
    while i < chars.len() {
        if chars[i] == '\\' {
            i = escape(chars, i, &mut body)?;
            continue;
        }
        if chars[i] == quote && chars.get(i + 1) == Some(&quote) && chars.get(i + 2) == Some(&quote)
        {
            return Some((body, i + 3));
        }
        body.push(chars[i]);
        i += 1;
    }
    None
}

/// The text of the string quoted with `quote` opening at `start`, and the index after it.
fn quoted(chars: &[char], start: usize, quote: char) -> Option<(String, usize)> {
    let mut body = String::new();
    let mut i = start + 1;
    while i < chars.len() {
        match chars[i] {
            '\\' => i = escape(chars, i, &mut body)?,
            c if c == quote => return Some((body, i + 1)),
            c => {
                body.push(c);
                i += 1;
            }
        }
    }
    None
}

/// Reads the escape at `at` (a backslash) into `body`; the index after it.
fn escape(chars: &[char], at: usize, body: &mut String) -> Option<usize> {
    let next = *chars.get(at + 1)?;
    let decoded = match next {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        '0' => '\0',
        '\\' | '"' | '\'' | '/' => next,
        'u' => {
            let hex: String = chars.get(at + 2..at + 6)?.iter().collect();
            let code = u32::from_str_radix(&hex, 16).ok()?;
            body.push(char::from_u32(code)?);
            return Some(at + 6);
        }
        // Any other escape (`\d` in a regex) is kept as written.
        other => {
            body.push('\\');
            other
        }
    };
    body.push(decoded);
    Some(at + 2)
}

/// Appends `body` as a JSON string literal.
fn push_json_string(out: &mut String, body: &str) {
    out.push_str(&Value::String(body.to_owned()).to_string());
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn valid_json_is_read_as_it_is() {
        let (values, repaired) = parse_values(r#"{"a": 1} {"b": [2]}"#).unwrap();
        assert_eq!(values, vec![json!({"a": 1}), json!({"b": [2]})]);
        assert!(!repaired);
        let (values, _) = parse_values(r#"{"a": 1}, {"b": 2}"#).unwrap();
        assert_eq!(values.len(), 2);
    }

    #[test]
    fn python_triple_quoted_arguments_become_strings() {
        let text = "{\"name\": \"replace_in_file\", \"arguments\": {\"path\": \"a.py\", \"diff\": \"\"\"<<<<<<< SEARCH\n    return \"x\"\n=======\n    return 'y'\n>>>>>>> REPLACE\"\"\"}}";
        let (values, repaired) = parse_values(text).unwrap();
        assert!(repaired);
        assert_eq!(
            values[0]["arguments"]["diff"],
            "<<<<<<< SEARCH\n    return \"x\"\n=======\n    return 'y'\n>>>>>>> REPLACE"
        );
    }

    #[test]
    fn raw_newlines_single_quotes_trailing_commas_and_python_literals() {
        let (values, repaired) = parse_values(
            "{'path': 'a.py', 'content': \"line 1\nline\t2\", 'ok': True, 'x': None,}",
        )
        .unwrap();
        assert!(repaired);
        assert_eq!(
            values[0],
            json!({"path": "a.py", "content": "line 1\nline\t2", "ok": true, "x": null})
        );
    }

    #[test]
    fn escapes_keep_their_meaning() {
        let (values, _) = parse_values(r#"{'re': 'a\d+\n', 'q': 'it\'s'}"#).unwrap();
        assert_eq!(values[0], json!({"re": "a\\d+\n", "q": "it's"}));
    }

    #[test]
    fn cut_off_or_unbalanced_text_is_not_guessed() {
        for text in [
            r#"{"name": "write_file", "arguments": {"path": "a", "content": "abc"#,
            "{\"a\": \"\"\"never closed}",
            "{'a': 'b}",
            "",
            "not json at all",
        ] {
            assert!(parse_values(text).is_err(), "{text}");
        }
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i32>().prop_map(Value::from),
            "[ -~\\n\\t\"'\\\\é]{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map("[a-z_]{1,6}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// Valid JSON is read as it is, never "repaired".
        #[test]
        fn valid_json_reads_back_unrepaired(value in json_value()) {
            let text = value.to_string();
            let (values, repaired) = parse_values(&text).unwrap();
            prop_assert_eq!(values, vec![value]);
            prop_assert!(!repaired);
        }

        /// A string's escaped newlines and tabs written out raw read back the same.
        #[test]
        fn raw_control_characters_in_strings_are_repaired(
            text in "[a-z \\n\\t]{0,40}",
        ) {
            let value = serde_json::json!({"content": text});
            let raw = value.to_string().replace("\\n", "\n").replace("\\t", "\t");
            let (values, _) = parse_values(&raw).unwrap();
            prop_assert_eq!(values, vec![value]);
        }

        /// Anything at all is read or refused, never a panic.
        #[test]
        fn any_text_is_read_or_refused(text in "\\PC{0,80}") {
            let _ = parse_values(&text);
            let _ = repair(&text);
        }
    }
}
