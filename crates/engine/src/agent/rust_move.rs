//! Moving top-level items from one Rust module into a new one, as a refactoring tool does:
//! the items (with their doc comments and attributes) and the unit tests that exercise only
//! them go to the new file, which gets the `use` lines they need; the crate root declares the
//! new module beside the old one, with the old one's visibility; and every path to a moved
//! item through the old module (`crate::util::crc16`, `framing::util::crc16`, a
//! `use …::util::{crc16, to_hex}` group) goes through the new one. The old module imports
//! what it still uses of the moved items.
//!
//! The reading is line-based, by rustfmt's layout: a top-level item starts at column 0 and a
//! braced one ends at the first `}` alone at column 0; a unit test is a `#[test]` function in
//! the old module's `#[cfg(test)] mod tests`, indented one level.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use regex::Regex;

use super::identifier_rename::identifiers;
use super::move_first::{MoveError, Moved};

/// A span of lines (`start..end`, 0-based) holding one item and what is above it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: usize,
    end: usize,
}

/// Moves the top-level items `names` of one module of `files` (the crate's `.rs` files and
/// documents by path) into the new module file `target` (`src/checksum.rs`).
pub(crate) fn move_items(
    files: &BTreeMap<String, String>,
    names: &[String],
    target: &str,
) -> Result<Moved, MoveError> {
    let Some(new_module) = module_name(target) else {
        return Err(MoveError::BadTarget(target.to_owned()));
    };
    if files.get(target).is_some_and(|t| !t.trim().is_empty()) {
        return Err(MoveError::TargetExists(target.to_owned()));
    }
    let listed = names.join(", ");
    let sources: Vec<&String> = files
        .iter()
        .filter(|(path, text)| {
            path.ends_with(".rs")
                && path.as_str() != target
                && names.iter().all(|n| item_span(text, n).is_some())
        })
        .map(|(path, _)| path)
        .collect();
    let [source] = sources.as_slice() else {
        return Err(MoveError::NoSource(listed));
    };
    let source = (*source).clone();
    let Some(old_module) = module_name(&source) else {
        return Err(MoveError::NoSource(listed));
    };
    let root = crate_root(files, &source).ok_or_else(|| MoveError::NoSource(listed.clone()))?;
    let text = &files[&source];
    let lines: Vec<&str> = text.lines().collect();

    let mut items: Vec<Span> = names.iter().filter_map(|n| item_span(text, n)).collect();
    items.sort_by_key(|s| s.start);
    let staying_names: Vec<String> = top_level_names(&lines)
        .into_iter()
        .filter(|(name, span)| !names.contains(name) && !items.contains(span))
        .map(|(name, _)| name)
        .collect();
    let tests = unit_tests(&lines, names, &staying_names);

    let moved_text: String = items
        .iter()
        .map(|s| lines[s.start..s.end].join("\n"))
        .collect::<Vec<_>>()
        .join("\n\n");
    let moved_words = identifiers(&moved_text);
    let mut head: Vec<String> = lines
        .iter()
        .filter(|l| l.starts_with("use ") && use_needed(l, &moved_words))
        .map(|l| (*l).to_owned())
        .collect();
    let needed: Vec<&String> = staying_names
        .iter()
        .filter(|n| moved_words.contains(n.as_str()))
        .collect();
    if !needed.is_empty() {
        let list: Vec<&str> = needed.iter().map(|n| n.as_str()).collect();
        head.push(use_line(&format!("crate::{old_module}"), &list));
    }
    let mut new_text = String::new();
    if !head.is_empty() {
        new_text.push_str(&head.join("\n"));
        new_text.push_str("\n\n");
    }
    new_text.push_str(&moved_text);
    new_text.push('\n');
    if !tests.is_empty() {
        new_text.push_str("\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n");
        let bodies: Vec<String> = tests
            .iter()
            .map(|s| lines[s.start..s.end].join("\n"))
            .collect();
        new_text.push_str(&bodies.join("\n\n"));
        new_text.push_str("\n}\n");
    }

    let removed: Vec<Span> = items.iter().chain(tests.iter()).copied().collect();
    let mut old_text = without_spans(&lines, &removed);
    let still_used: Vec<&str> = names
        .iter()
        .filter(|n| identifiers(&old_text).contains(n.as_str()))
        .map(String::as_str)
        .collect();
    if !still_used.is_empty() {
        old_text = with_use(
            &old_text,
            &use_line(&format!("crate::{new_module}"), &still_used),
        );
    }
    old_text = without_empty_test_module(&old_text);

    let mut out = BTreeMap::new();
    out.insert(target.to_owned(), new_text);
    out.insert(source.clone(), old_text);
    for (path, text) in files {
        if *path == source || path == target {
            continue;
        }
        let mut new = repathed(text, &old_module, &new_module, names);
        if *path == root {
            new = declared(&new, &old_module, &new_module);
        }
        if new != *text {
            out.insert(path.clone(), new);
        }
    }
    Ok(Moved {
        files: out,
        along: Vec::new(),
    })
}

/// `src/checksum.rs` → `checksum` (a module file beside the crate root).
fn module_name(path: &str) -> Option<String> {
    let name = path.strip_prefix("src/")?.strip_suffix(".rs")?;
    (!name.contains('/')
        && super::identifier_rename::is_identifier(name)
        && !matches!(name, "lib" | "main" | "mod"))
    .then(|| name.to_owned())
}

/// The crate root declaring the module at `source`.
fn crate_root(files: &BTreeMap<String, String>, source: &str) -> Option<String> {
    let module = module_name(source)?;
    ["src/lib.rs", "src/main.rs"]
        .into_iter()
        .find(|root| {
            files.get(*root).is_some_and(|text| {
                text.lines()
                    .any(|l| mod_declaration(l).is_some_and(|(_, m)| m == module))
            })
        })
        .map(str::to_owned)
}

/// `pub mod util;` → `("pub ", "util")`.
fn mod_declaration(line: &str) -> Option<(&str, &str)> {
    let at = line.find("mod ")?;
    let (visibility, rest) = line.split_at(at);
    if !visibility.trim().is_empty() && !visibility.trim_start().starts_with("pub") {
        return None;
    }
    let name = rest.strip_prefix("mod ")?.strip_suffix(';')?.trim();
    Some((visibility, name))
}

/// The crate root with `mod new` declared after `mod old`, with the same visibility.
fn declared(root: &str, old: &str, new: &str) -> String {
    if root
        .lines()
        .any(|l| mod_declaration(l).is_some_and(|(_, m)| m == new))
    {
        return root.to_owned();
    }
    let mut out: Vec<String> = Vec::new();
    for line in root.lines() {
        if let Some((visibility, name)) = mod_declaration(line)
            && name == old
        {
            out.push(format!("{visibility}mod {new};"));
        }
        out.push(line.to_owned());
    }
    // Keep a sorted run of declarations sorted.
    let mut text = out.join("\n");
    if root.ends_with('\n') {
        text.push('\n');
    }
    sort_mod_runs(&text)
}

/// Runs of consecutive `mod` lines that were sorted but for one are sorted again.
fn sort_mod_runs(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let mut j = i;
        while j < lines.len() && mod_declaration(lines[j]).is_some() {
            j += 1;
        }
        if j > i {
            let mut run: Vec<&str> = lines[i..j].to_vec();
            run.sort_by_key(|l| mod_declaration(l).map(|(_, m)| m.to_owned()));
            out.extend(run.into_iter().map(str::to_owned));
            i = j;
        } else {
            out.push(lines[i].to_owned());
            i += 1;
        }
    }
    let mut joined = out.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    joined
}

/// Item keywords a top-level item's line may start with (after `pub …`).
const ITEM_KEYWORDS: &[&str] = &[
    "fn ",
    "struct ",
    "enum ",
    "const ",
    "static ",
    "type ",
    "trait ",
    "async fn ",
    "const fn ",
    "unsafe fn ",
];

/// The name a top-level item line declares.
fn item_name(line: &str) -> Option<String> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let mut rest = line;
    if let Some(r) = rest.strip_prefix("pub") {
        rest = r.trim_start();
        if rest.starts_with('(') {
            rest = rest.split_once(')')?.1.trim_start();
        }
    }
    let keyword = ITEM_KEYWORDS.iter().find(|k| rest.starts_with(**k))?;
    let name: String = rest[keyword.len()..]
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// The top-level items of a file's `lines`, by name.
fn top_level_names(lines: &[&str]) -> Vec<(String, Span)> {
    let text = lines.join("\n");
    lines
        .iter()
        .filter_map(|l| item_name(l))
        .filter_map(|name| item_span(&text, &name).map(|span| (name, span)))
        .collect()
}

/// Where the top-level item `name` of `text` is, doc comments and attributes included.
fn item_span(text: &str, name: &str) -> Option<Span> {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| item_name(l).as_deref() == Some(name))?;
    let end = if lines[at].trim_end().ends_with(';') {
        at + 1
    } else {
        at + 1 + lines[at + 1..].iter().position(|l| *l == "}")? + 1
    };
    let mut start = at;
    while start > 0 && {
        let above = lines[start - 1].trim_start();
        above.starts_with("///") || above.starts_with("#[")
    } {
        start -= 1;
    }
    Some(Span { start, end })
}

/// The `#[test]` functions of the file's `mod tests` that use one of `moved` and none of
/// `staying`.
fn unit_tests(lines: &[&str], moved: &[String], staying: &[String]) -> Vec<Span> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "#[test]" || !lines[i].starts_with("    #") {
            i += 1;
            continue;
        }
        let start = i;
        let Some(close) = lines[i + 1..].iter().position(|l| *l == "    }") else {
            break;
        };
        let end = i + 1 + close + 1;
        let words = identifiers(&lines[start..end].join("\n"))
            .into_iter()
            .map(str::to_owned)
            .collect::<BTreeSet<String>>();
        if moved.iter().any(|n| words.contains(n)) && !staying.iter().any(|n| words.contains(n)) {
            out.push(Span { start, end });
        }
        i = end;
    }
    out
}

/// Whether a `use` line binds a name `words` holds.
fn use_needed(line: &str, words: &BTreeSet<&str>) -> bool {
    identifiers(line.trim_start_matches("use "))
        .iter()
        .filter(|w| !matches!(**w, "crate" | "super" | "self" | "std"))
        .any(|w| words.contains(w))
}

/// `use path::name;` or `use path::{a, b};`.
fn use_line(path: &str, names: &[&str]) -> String {
    match names {
        [one] => format!("use {path}::{one};"),
        many => format!("use {path}::{{{}}};", many.join(", ")),
    }
}

/// `lines` without `spans` and the blank line after each.
fn without_spans(lines: &[&str], spans: &[Span]) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if let Some(span) = spans.iter().find(|s| s.start == i) {
            i = span.end;
            if lines.get(i).is_some_and(|l| l.trim().is_empty()) {
                i += 1;
            }
            continue;
        }
        out.push(lines[i]);
        i += 1;
    }
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    // A test module's closing brace right after a removed last test leaves a blank line.
    let mut cleaned: Vec<&str> = Vec::new();
    for (n, line) in out.iter().enumerate() {
        if line.trim().is_empty() && out.get(n + 1).is_some_and(|next| next.trim() == "}") {
            continue;
        }
        cleaned.push(line);
    }
    let mut text = cleaned.join("\n");
    text.push('\n');
    text
}

/// `text` with `use` added after its other `use` lines (or its inner doc comment).
fn with_use(text: &str, line: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .rposition(|l| l.starts_with("use "))
        .map(|i| i + 1)
        .or_else(|| {
            lines
                .iter()
                .position(|l| !l.starts_with("//!"))
                .map(|i| if i == 0 { 0 } else { i })
        })
        .unwrap_or(0);
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    if at > 0 && !lines[at - 1].starts_with("use ") {
        out.insert(at, String::new());
        out.insert(at + 1, line.to_owned());
    } else {
        out.insert(at, line.to_owned());
    }
    let mut joined = out.join("\n");
    joined.push('\n');
    joined
}

/// `text` without a `#[cfg(test)] mod tests` left with no test in it.
fn without_empty_test_module(text: &str) -> String {
    static EMPTY: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"\n*#\[cfg\(test\)\]\nmod tests \{\n(?:    use [^\n]*\n|\s*\n)*\}\n?").ok()
    });
    match EMPTY.as_ref() {
        Some(empty) => {
            let mut out = empty.replace(text, "\n").into_owned();
            while out.ends_with("\n\n") {
                out.pop();
            }
            out
        }
        None => text.to_owned(),
    }
}

/// `text` with every path to one of `names` through module `old` going through `new`:
/// `old::name` and `use …::old::{name, other}` groups.
fn repathed(text: &str, old: &str, new: &str, names: &[String]) -> String {
    let group = Regex::new(&format!(
        r"(?m)^(?P<indent>[ \t]*)use (?P<prefix>(?:[A-Za-z_][A-Za-z0-9_]*::)*){}::\{{(?P<items>[^}}]*)\}};",
        regex::escape(old)
    ));
    let mut out = text.to_owned();
    if let Ok(group) = group {
        out = group
            .replace_all(&out, |c: &regex::Captures<'_>| {
                let (indent, prefix) = (&c["indent"], &c["prefix"]);
                let items: Vec<&str> = c["items"]
                    .split(',')
                    .map(str::trim)
                    .filter(|i| !i.is_empty())
                    .collect();
                let (going, staying): (Vec<&str>, Vec<&str>) =
                    items.iter().partition(|i| names.iter().any(|n| n == *i));
                if going.is_empty() {
                    return c[0].to_owned();
                }
                let mut lines = Vec::new();
                if !staying.is_empty() {
                    lines.push(format!(
                        "{indent}{}",
                        use_line(&format!("{prefix}{old}"), &staying)
                    ));
                }
                lines.push(format!(
                    "{indent}{}",
                    use_line(&format!("{prefix}{new}"), &going)
                ));
                lines.join("\n")
            })
            .into_owned();
    }
    for name in names {
        if let Ok(path) = Regex::new(&format!(
            r"\b{}::{}\b",
            regex::escape(old),
            regex::escape(name)
        )) {
            out = path
                .replace_all(&out, format!("{new}::{name}").as_str())
                .into_owned();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const UTIL: &str = "//! Small helpers.\n\n/// CRC-16.\npub fn crc16(data: &[u8]) -> u16 {\n    let mut crc: u16 = 0xFFFF;\n    for &b in data {\n        crc ^= u16::from(b);\n    }\n    crc\n}\n\n/// Hex.\npub fn to_hex(bytes: &[u8]) -> String {\n    bytes.iter().map(|b| format!(\"{b:02x}\")).collect()\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn crc16_check_value() {\n        assert_eq!(crc16(b\"1\"), 0x29B1);\n    }\n\n    #[test]\n    fn hex() {\n        assert_eq!(to_hex(&[0]), \"00\");\n    }\n}\n";

    fn project() -> BTreeMap<String, String> {
        BTreeMap::from([
            ("src/util.rs".to_owned(), UTIL.to_owned()),
            (
                "src/lib.rs".to_owned(),
                "//! Frames.\n\npub mod frame;\npub mod util;\n\npub use frame::encode;\n".to_owned(),
            ),
            (
                "src/frame.rs".to_owned(),
                "use crate::util::{crc16, to_hex};\n\npub fn encode(p: &[u8]) -> u16 {\n    crc16(p)\n}\n".to_owned(),
            ),
            (
                "tests/roundtrip.rs".to_owned(),
                "use framing::util::{crc16, to_hex};\n\n#[test]\nfn t() {\n    let _ = framing::util::crc16(b\"x\");\n}\n".to_owned(),
            ),
        ])
    }

    #[test]
    fn an_item_moves_with_its_unit_test() {
        let moved = move_items(&project(), &["crc16".to_owned()], "src/checksum.rs").unwrap();
        insta::assert_snapshot!("rust_new_module", moved.files["src/checksum.rs"]);
        insta::assert_snapshot!("rust_old_module", moved.files["src/util.rs"]);
    }

    #[test]
    fn paths_go_through_the_new_module_and_the_root_declares_it() {
        let moved = move_items(&project(), &["crc16".to_owned()], "src/checksum.rs").unwrap();
        assert_eq!(
            moved.files["src/lib.rs"],
            "//! Frames.\n\npub mod checksum;\npub mod frame;\npub mod util;\n\npub use frame::encode;\n"
        );
        assert_eq!(
            moved.files["src/frame.rs"],
            "use crate::util::to_hex;\nuse crate::checksum::crc16;\n\npub fn encode(p: &[u8]) -> u16 {\n    crc16(p)\n}\n"
        );
        assert_eq!(
            moved.files["tests/roundtrip.rs"],
            "use framing::util::to_hex;\nuse framing::checksum::crc16;\n\n#[test]\nfn t() {\n    let _ = framing::checksum::crc16(b\"x\");\n}\n"
        );
    }

    #[test]
    fn what_stays_and_uses_a_moved_item_imports_it() {
        let mut files = project();
        files.insert(
            "src/util.rs".to_owned(),
            UTIL.replace(
                "/// Hex.\n",
                "/// Checked.\npub fn checked(d: &[u8]) -> bool {\n    crc16(d) == 0\n}\n\n/// Hex.\n",
            ),
        );
        let moved = move_items(&files, &["crc16".to_owned()], "src/checksum.rs").unwrap();
        let old = &moved.files["src/util.rs"];
        assert!(
            old.starts_with("//! Small helpers.\n\nuse crate::checksum::crc16;\n"),
            "{old}"
        );
    }

    #[test]
    fn a_move_that_cannot_be_made_says_why() {
        assert_eq!(
            move_items(&project(), &["nothing".to_owned()], "src/checksum.rs"),
            Err(MoveError::NoSource("nothing".to_owned()))
        );
        assert_eq!(
            move_items(&project(), &["crc16".to_owned()], "src/a/b.rs"),
            Err(MoveError::BadTarget("src/a/b.rs".to_owned()))
        );
    }
}
