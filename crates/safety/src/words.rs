//! Turning tree-sitter-bash word nodes into the text the shell would pass (quotes removed).

use tree_sitter::Node;

/// The source text of `node` (lossy on invalid UTF-8; never panics).
pub(crate) fn raw<'a>(node: Node<'_>, src: &'a str) -> std::borrow::Cow<'a, str> {
    let bytes = src.as_bytes();
    match bytes.get(node.byte_range()) {
        Some(slice) => String::from_utf8_lossy(slice),
        None => std::borrow::Cow::Borrowed(""),
    }
}

/// The word as the shell would pass it: quotes removed, escapes applied. Expansions stay as
/// written (`${HOME}` is normalised to `$HOME`); command substitutions stay as their source.
pub(crate) fn text(node: Node<'_>, src: &str) -> String {
    let mut out = String::new();
    push_text(node, src, &mut out);
    out
}

fn push_text(node: Node<'_>, src: &str, out: &mut String) {
    match node.kind() {
        "word" => unescape_word(&raw(node, src), out),
        "raw_string" => {
            let text = raw(node, src);
            let inner = text.strip_prefix('\'').unwrap_or(&text);
            out.push_str(inner.strip_suffix('\'').unwrap_or(inner));
        }
        "ansi_c_string" => ansi_c(&raw(node, src), out),
        "string_content" => unescape_double_quoted(&raw(node, src), out),
        "expansion" => {
            let text = raw(node, src);
            match text.strip_prefix("${").and_then(|t| t.strip_suffix('}')) {
                Some(name)
                    if !name.is_empty()
                        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
                {
                    out.push('$');
                    out.push_str(name);
                }
                _ => out.push_str(&text),
            }
        }
        "command_name" | "concatenation" | "string" | "translated_string" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                push_text(child, src, out);
            }
        }
        _ => out.push_str(&raw(node, src)),
    }
}

/// Unquoted word: a backslash keeps the next character literally; backslash-newline vanishes.
fn unescape_word(text: &str, out: &mut String) {
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') | None => {}
                Some(next) => out.push(next),
            }
        } else {
            out.push(c);
        }
    }
}

/// Inside double quotes a backslash only escapes `$`, `` ` ``, `"`, `\` and newline.
fn unescape_double_quoted(text: &str, out: &mut String) {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => {
                    if let Some(next) = chars.next() {
                        out.push(next);
                    }
                }
                Some('\n') => {
                    chars.next();
                }
                _ => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
}

/// `$'…'`: the common escapes, including `\xHH` and octal `\NNN`.
fn ansi_c(text: &str, out: &mut String) {
    let inner = text.strip_prefix("$'").unwrap_or(text);
    let inner = inner.strip_suffix('\'').unwrap_or(inner);
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('e' | 'E') => out.push('\u{1b}'),
            Some('a') => out.push('\u{7}'),
            Some('x') => {
                let mut value = 0u32;
                let mut digits = 0;
                while digits < 2 {
                    match chars.peek().and_then(|c| c.to_digit(16)) {
                        Some(d) => {
                            value = value * 16 + d;
                            chars.next();
                            digits += 1;
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(value).unwrap_or('?'));
            }
            Some(d @ '0'..='7') => {
                let mut value = d.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(value).unwrap_or('?'));
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first_command_words(src: &str) -> Vec<String> {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&tree_sitter_bash::LANGUAGE.into())
            .unwrap();
        let tree = parser.parse(src, None).unwrap();
        let mut stack = vec![tree.root_node()];
        while let Some(node) = stack.pop() {
            if node.kind() == "command" {
                let mut words = Vec::new();
                if let Some(name) = node.child_by_field_name("name") {
                    words.push(text(name, src));
                }
                let mut cursor = node.walk();
                for arg in node.children_by_field_name("argument", &mut cursor) {
                    words.push(text(arg, src));
                }
                return words;
            }
            let mut cursor = node.walk();
            let children: Vec<_> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
        Vec::new()
    }

    #[test]
    fn quotes_and_escapes() {
        assert_eq!(
            first_command_words(r#"\rm -r'f' "$HOME"/ ${HOME} a"b\"c"'d' $'\x72m\101'"#),
            vec!["rm", "-rf", "$HOME/", "$HOME", "ab\"cd", "rmA"]
        );
    }
}
