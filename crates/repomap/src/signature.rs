//! Turning definition nodes into one-line signatures and doc comments into their first line.

use tree_sitter::Node;

/// Longest signature kept, in characters.
const MAX_SIGNATURE_CHARS: usize = 240;
/// Longest doc line kept, in characters.
const MAX_DOC_CHARS: usize = 120;

/// The declaration text up to the body, whitespace collapsed so multi-line signatures join.
pub fn signature_text(range: Node, def: Node, name: &str, source: &[u8]) -> String {
    let body_start = body_start(range).or_else(|| body_start(def));
    signature_of(
        source,
        range.start_byte(),
        body_start,
        range.end_byte(),
        name,
    )
}

/// The signature of the definition `name` spanning `start..end` of `source`, whose body (if
/// it has one) starts at `body_start`.
pub fn signature_of(
    source: &[u8],
    start: usize,
    body_start: Option<usize>,
    end: usize,
    name: &str,
) -> String {
    let raw = match body_start {
        Some(cut) if cut > start => slice(source, start, cut).to_owned(),
        _ => {
            let text = slice(source, start, end);
            let mut lines = text.lines();
            let first = lines.next().unwrap_or("");
            if lines.next().is_none() {
                return tidy(first);
            }
            // A multi-line macro's first line ends with its continuation backslash.
            let first = first.trim_end().trim_end_matches('\\').trim_end();
            let mut head = match first.find('{') {
                Some(at) => first[..at].trim_end().to_owned(),
                None => first.to_owned(),
            };
            if !head.contains(name) {
                head.push_str(" {…} ");
                head.push_str(name);
            } else {
                head.push_str(" …");
            }
            head
        }
    };
    tidy(&raw)
}

/// Where the text before the body of `node` ends: the end of the last child before the body
/// that is not a comment.
fn before_body(node: Node, body: Node) -> usize {
    let mut cut = node.start_byte();
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.start_byte() >= body.start_byte() {
            break;
        }
        if !child.kind().contains("comment") {
            cut = child.end_byte();
        }
    }
    if cut == node.start_byte() {
        body.start_byte()
    } else {
        cut
    }
}

/// Where the signature of a definition ends (just before its body), if it has a body.
fn body_start(node: Node) -> Option<usize> {
    if let Some(body) = node.child_by_field_name("body") {
        return Some(before_body(node, body));
    }
    // `template <…> T f(…) { … }`: the templated declaration is the last named child.
    if node.kind() == "template_declaration" {
        let count = node.named_child_count();
        if count > 0
            && let Some(inner) = node.named_child(count - 1)
        {
            return body_start(inner);
        }
    }
    // `const f = (a) => { … }` and `f = function () { … }`.
    if let Some(value) = node.child_by_field_name("value")
        && matches!(
            value.kind(),
            "arrow_function" | "function_expression" | "function" | "generator_function"
        )
        && let Some(body) = value.child_by_field_name("body")
    {
        return Some(before_body(value, body));
    }
    // `export function f() { … }`: the declaration is the export's child.
    if node.kind() == "export_statement"
        && let Some(declaration) = node.child_by_field_name("declaration")
    {
        return body_start(declaration);
    }
    // `const f = () => …` inside a lexical declaration.
    if matches!(node.kind(), "lexical_declaration" | "variable_declaration")
        && let Some(declarator) = node.named_child(0)
    {
        return body_start(declarator);
    }
    None
}

fn slice(source: &[u8], start: usize, end: usize) -> &str {
    let end = end.min(source.len());
    let start = start.min(end);
    std::str::from_utf8(&source[start..end]).unwrap_or("")
}

/// Collapses whitespace, removes padding inside brackets and trailing `{`/`:`, and caps length.
fn tidy(raw: &str) -> String {
    let mut text = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    for (from, to) in [
        ("( ", "("),
        (" )", ")"),
        (",)", ")"),
        ("[ ", "["),
        (" ]", "]"),
    ] {
        while text.contains(from) {
            text = text.replace(from, to);
        }
    }
    let trimmed = text.trim_end_matches([' ', '{', ':', '=', ';']).trim_end();
    let trimmed = if trimmed.ends_with("=>") || trimmed.is_empty() {
        text.trim_end_matches([' ', '{', ';']).trim_end()
    } else {
        trimmed
    };
    cap(trimmed, MAX_SIGNATURE_CHARS)
}

fn cap(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// First meaningful line of the comments directly above `range` (attributes in between are
/// skipped), or `None`.
pub fn doc_from_comments(range: Node, source: &[u8]) -> Option<String> {
    let mut anchor = range;
    if let Some(parent) = range.parent()
        && parent.kind() == "decorated_definition"
    {
        anchor = parent;
    }
    let mut comments: Vec<Node> = Vec::new();
    let mut next_row = anchor.start_position().row;
    let mut sibling = anchor.prev_sibling();
    while let Some(node) = sibling {
        let kind = node.kind();
        if node.end_position().row + 1 < next_row {
            break;
        }
        if kind.contains("comment") {
            comments.push(node);
        } else if !matches!(kind, "attribute_item" | "decorator" | "annotation") {
            break;
        }
        next_row = node.start_position().row;
        sibling = node.prev_sibling();
    }
    comments.reverse();
    doc_from_comment_texts(
        comments
            .into_iter()
            .map(|comment| slice(source, comment.start_byte(), comment.end_byte())),
    )
}

/// First meaningful line of a run of comments (their text, markers included), skipping inner
/// doc comments (`//!`, `/*!`).
pub fn doc_from_comment_texts<'a>(comments: impl IntoIterator<Item = &'a str>) -> Option<String> {
    for text in comments {
        if text.starts_with("//!") || text.starts_with("/*!") {
            continue;
        }
        for line in text.lines() {
            let cleaned = clean_comment_line(line);
            if !cleaned.is_empty() {
                return Some(cap(cleaned, MAX_DOC_CHARS));
            }
        }
    }
    None
}

fn clean_comment_line(line: &str) -> &str {
    let text = line
        .trim()
        .trim_start_matches(['/', '*', '#', '!'])
        .trim_end_matches(['/', '*', '#'])
        .trim();
    if text.chars().all(|c| matches!(c, '-' | '=' | '~' | '_')) {
        return "";
    }
    text
}

/// First line of a Python docstring (the first statement of the body, if a string).
pub fn docstring_first_line(def: Node, source: &[u8]) -> Option<String> {
    let body = def.child_by_field_name("body")?;
    let first = body.named_child(0)?;
    if first.kind() != "expression_statement" {
        return None;
    }
    let string = first.named_child(0)?;
    if string.kind() != "string" {
        return None;
    }
    docstring_line(slice(source, string.start_byte(), string.end_byte()))
}

/// First non-empty line of a Python string literal's text (prefix and quotes included).
pub fn docstring_line(literal: &str) -> Option<String> {
    let text = literal.trim_start_matches(['r', 'R', 'u', 'U', 'b', 'B', 'f', 'F']);
    let text = text.trim_matches(['"', '\'']);
    text.lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .map(|line| cap(line, MAX_DOC_CHARS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tidy_joins_multi_line_signatures() {
        assert_eq!(
            tidy("pub fn f(\n    a: u32,\n    b: u32,\n) -> bool "),
            "pub fn f(a: u32, b: u32) -> bool"
        );
        assert_eq!(tidy("def f(x):"), "def f(x)");
        assert_eq!(tidy("const f = (a) => "), "const f = (a) =>");
    }

    #[test]
    fn comment_markers_are_stripped() {
        assert_eq!(clean_comment_line("/// A point."), "A point.");
        assert_eq!(clean_comment_line("/** Adds. */"), "Adds.");
        assert_eq!(clean_comment_line(" * Second."), "Second.");
        assert_eq!(clean_comment_line("/*****"), "");
        assert_eq!(clean_comment_line("# Python comment"), "Python comment");
        assert_eq!(clean_comment_line("#### Section ####"), "Section");
        assert_eq!(clean_comment_line("// ---------"), "");
    }

    #[test]
    fn cap_is_char_safe() {
        assert_eq!(cap("ééé", 2), "éé…");
        assert_eq!(cap("ab", 5), "ab");
    }
}
