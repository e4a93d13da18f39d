//! What a file given whole leaves out. A small model that rewrites a file to change one
//! function often drops others it did not mean to touch — the `New` a Go package's callers
//! need, the `module.exports` line at a JavaScript file's end — and the project breaks in a
//! way it then cannot see. When a whole file is read from an answer ([`super::whole_file`]),
//! the old file's top-level definitions missing from it are put back where they stood (after
//! the definition that preceded them), and so is the old file's tail after its last definition
//! (exports, a `__main__` block) when nothing like it is left, and the one-line imports and
//! constants it dropped whose names the new version still uses. A definition named by a task
//! that asks to rename, move or remove something is left out as written; a task that only
//! asks to change a definition (`make plainTextSummary use "..."`) gets it back.

use std::collections::HashMap;
use std::path::Path;

use std::sync::LazyLock;

use keel_repomap::{Language, Symbol, extract};
use regex::Regex;

/// What was put back into a rewrite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeptBack {
    /// The new content with the left-out parts in it.
    pub(crate) content: String,
    /// What was put back: definitions by name, and "the file's end" for its tail.
    pub(crate) parts: Vec<String>,
}

/// `new`, the content an answer gives for `path` (whose content was `old`), with what it left
/// out of `old` put back; `None` when it left nothing out (or the language is not known).
/// Names `task` mentions are not put back when it asks to rename, move or remove something.
pub(crate) fn keep_left_out(path: &str, old: &str, new: &str, task: &str) -> Option<KeptBack> {
    let task = if may_drop_names(task) { task } else { "" };
    let language = Language::from_path(Path::new(path))?;
    let old_top = top_level(language, old)?;
    let new_top = top_level(language, new)?;
    let old_lines: Vec<&str> = old.lines().collect();
    let mut new_lines: Vec<String> = new.lines().map(str::to_owned).collect();
    let mut parts = Vec::new();
    // What holds a name the task gives and the new version no longer has is the task's to
    // change (`test_parse_cfg_…` when `parse_cfg` is renamed): never put back.
    let mut task_names = code_names(task);
    task_names.retain(|name| !new.contains(name.as_str()));

    // Names defined once in each version, so a definition is matched by its name alone.
    let old_once = once(&old_top);
    let new_keys: HashMap<&str, usize> = count(&new_top);
    // Where each of the new version's definitions ends (0-based, exclusive), by name; kept
    // current as lines are inserted.
    let mut new_ends: HashMap<String, usize> = new_top
        .iter()
        .filter(|s| new_keys.get(key(s)) == Some(&1))
        .map(|s| (key(s).to_owned(), s.end_line as usize))
        .collect();
    let mut inserted_any = false;
    for (i, symbol) in old_top.iter().enumerate() {
        if !old_once.contains(key(symbol))
            || new_keys.contains_key(key(symbol))
            || mentions(task, &symbol.name)
        {
            continue;
        }
        let start = with_leading_comments(&old_lines, symbol.start_line as usize - 1);
        let block: Vec<String> = old_lines[start..symbol.end_line as usize]
            .iter()
            .map(|l| (*l).to_owned())
            .collect();
        if names_any(&block, &task_names) {
            continue;
        }
        // After the nearest earlier definition the new version still has, else at the top of
        // the definitions (before the first one it has), else at the end.
        let after = old_top[..i]
            .iter()
            .rev()
            .find_map(|s| new_ends.get(key(s)).copied());
        let at = after.unwrap_or_else(|| {
            new_top
                .iter()
                .filter_map(|s| {
                    let now = new_ends.get(key(s))?;
                    let len = (s.end_line - s.start_line) as usize + 1;
                    Some(with_leading_comments(&new_lines, now - len))
                })
                .min()
                .unwrap_or(new_lines.len())
        });
        let mut piece = Vec::with_capacity(block.len() + 2);
        let before_is_blank = at == 0 || new_lines[at - 1].trim().is_empty();
        if !before_is_blank {
            piece.push(String::new());
        }
        piece.extend(block);
        if at < new_lines.len() && !new_lines[at].trim().is_empty() {
            piece.push(String::new());
        }
        let added = piece.len();
        new_lines.splice(at..at, piece);
        for end in new_ends.values_mut() {
            if *end > at {
                *end += added;
            }
        }
        new_ends.insert(key(symbol).to_owned(), at + added);
        parts.push(key(symbol).to_owned());
        inserted_any = true;
    }

    // Twice: a constant put back may use an import the new version dropped.
    for names_of in [import_names, assigned_names, import_names] {
        let mut lines = lost_lines(language, &old_lines, &new_lines, task, names_of);
        lines.retain(|line| !names_any(&[line], &task_names));
        if !lines.is_empty() {
            insert_after_imports(language, &mut new_lines, &lines);
            parts.extend(lines.iter().map(|l| format!("`{}`", l.trim())));
            inserted_any = true;
        }
    }

    if let Some(tail) = lost_tail(&old_lines, &old_top, &new_lines)
        && !names_any(&tail, &task_names)
    {
        while new_lines.last().is_some_and(|l| l.trim().is_empty()) {
            new_lines.pop();
        }
        new_lines.push(String::new());
        new_lines.extend(tail);
        parts.push("the file's end".to_owned());
        inserted_any = true;
    }
    if !inserted_any {
        return None;
    }
    let mut content = new_lines.join("\n");
    content.push('\n');
    Some(KeptBack { content, parts })
}

/// The top-level definitions of `source`, in order; `None` when it cannot be parsed.
fn top_level(language: Language, source: &str) -> Option<Vec<Symbol>> {
    let tags = extract(language, source.as_bytes()).ok()?;
    let mut top: Vec<Symbol> = tags.symbols.into_iter().filter(|s| s.depth == 0).collect();
    top.sort_by_key(|s| s.start_line);
    // A definition inside another's lines (a Go method's receiver type, say) is not separate.
    let mut kept: Vec<Symbol> = Vec::with_capacity(top.len());
    for symbol in top {
        if kept.last().is_some_and(|k| symbol.start_line <= k.end_line) {
            continue;
        }
        kept.push(symbol);
    }
    Some(kept)
}

/// What a definition is matched by between two versions of a file: its name, or for a block
/// that defines none (a Rust `impl`, of which a type has several) its signature
/// (`impl fmt::Display for Rgb`).
fn key(symbol: &Symbol) -> &str {
    if symbol.kind.defines_name() {
        &symbol.name
    } else {
        &symbol.signature
    }
}

/// How many times each key ([`key`]) is defined.
fn count(symbols: &[Symbol]) -> HashMap<&str, usize> {
    let mut counts = HashMap::new();
    for s in symbols {
        *counts.entry(key(s)).or_insert(0) += 1;
    }
    counts
}

/// The keys defined exactly once.
fn once(symbols: &[Symbol]) -> std::collections::HashSet<&str> {
    count(symbols)
        .into_iter()
        .filter(|(_, n)| *n == 1)
        .map(|(name, _)| name)
        .collect()
}

/// Whether `task` asks for something that takes a definition out of its file: a rename, a
/// move, a removal.
fn may_drop_names(task: &str) -> bool {
    const DROPPING: &[&str] = &[
        "rename",
        "move",
        "remove",
        "delete",
        "drop",
        "merge",
        "inline",
        "split",
        "extract",
        "replace",
        "deprecate",
    ];
    task.split(|c: char| !c.is_alphabetic()).any(|word| {
        let word = word.to_lowercase();
        DROPPING
            .iter()
            .any(|d| word.starts_with(d) && word.len() <= d.len() + 3)
    })
}

/// The code names a task gives: what it puts in backticks (`store.Store` gives `store` and
/// `Store`) and the words that can only be identifiers (`parse_cfg`, `getUserName`).
pub(crate) fn code_names(task: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let quoted = task.split('`').skip(1).step_by(2);
    let words = task.split(|c: char| !is_word(c)).filter(|w| {
        w.contains('_')
            || w.chars().skip(1).any(char::is_uppercase) && w.chars().any(char::is_lowercase)
    });
    for word in quoted
        .flat_map(|q| q.split(|c: char| !is_word(c)))
        .chain(words)
    {
        if word.len() >= 3 && !names.iter().any(|n| n == word) {
            names.push(word.to_owned());
        }
    }
    names
}

/// Whether any of `lines` holds one of `names` (anywhere, inside longer names too).
fn names_any<S: AsRef<str>>(lines: &[S], names: &[String]) -> bool {
    lines.iter().any(|line| {
        names
            .iter()
            .any(|name| line.as_ref().contains(name.as_str()))
    })
}

/// Whether `task` names `name` as a word.
fn mentions(task: &str, name: &str) -> bool {
    task.match_indices(name).any(|(at, _)| {
        let before = task[..at].chars().next_back();
        let after = task[at + name.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The first line of the definition starting at `start` (0-based), with the comments,
/// attributes and decorators right above it.
fn with_leading_comments<S: AsRef<str>>(lines: &[S], start: usize) -> usize {
    let mut first = start;
    while first > 0 && is_preamble(lines[first - 1].as_ref().trim()) {
        first -= 1;
    }
    first
}

/// A line that belongs to the definition below it.
fn is_preamble(line: &str) -> bool {
    ["//", "#", "@", "/*", "*"]
        .iter()
        .any(|p| line.starts_with(p))
}

/// The old file's lines after its last definition when they hold code and the new version
/// has nothing like any of them (each line compared by what it starts with: `module.exports`,
/// `if __name__`, `export default`).
fn lost_tail(old_lines: &[&str], old_top: &[Symbol], new_lines: &[String]) -> Option<Vec<String>> {
    let last_end = old_top.iter().map(|s| s.end_line as usize).max()?;
    let tail: Vec<&str> = old_lines.get(last_end..)?.to_vec();
    let code: Vec<&str> = tail
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty() && !is_preamble(l) && !is_closing(l))
        .collect();
    if code.is_empty() {
        return None;
    }
    let new_keys: std::collections::HashSet<&str> =
        new_lines.iter().map(|l| line_key(l.trim())).collect();
    if code.iter().any(|l| new_keys.contains(line_key(l))) {
        return None;
    }
    let start = tail.iter().position(|l| !l.trim().is_empty())?;
    let end = tail.iter().rposition(|l| !l.trim().is_empty())? + 1;
    Some(tail[start..end].iter().map(|l| (*l).to_owned()).collect())
}

/// `lines` put into `new_lines` after its last top-level import, else before its first
/// definition (and the comments above it), else at the top.
fn insert_after_imports(language: Language, new_lines: &mut Vec<String>, lines: &[&str]) {
    let at = new_lines
        .iter()
        .rposition(|l| !import_names(language, l).is_empty())
        .map(|last| last + 1)
        .or_else(|| {
            let first = top_level(language, &new_lines.join("\n"))?
                .first()
                .map(|s| s.start_line as usize - 1)?;
            Some(with_leading_comments(new_lines, first))
        })
        .unwrap_or(0);
    let mut piece: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    if at < new_lines.len()
        && !new_lines[at].trim().is_empty()
        && import_names(language, &new_lines[at]).is_empty()
    {
        piece.push(String::new());
    }
    new_lines.splice(at..at, piece);
}

/// The old file's one-line bindings (of the kind `names_of` reads: imports, constants) the new
/// version dropped while it still uses a name they bound (and binds it nowhere else), unless
/// the task names that name.
fn lost_lines<'a>(
    language: Language,
    old_lines: &[&'a str],
    new_lines: &[String],
    task: &str,
    names_of: fn(Language, &str) -> Vec<String>,
) -> Vec<&'a str> {
    let binders = |l: &str| {
        let mut names = import_names(language, l);
        names.extend(assigned_names(language, l));
        names
    };
    let new_bindings: std::collections::HashSet<&str> = new_lines
        .iter()
        .filter(|l| !names_of(language, l).is_empty())
        .map(|l| l.trim())
        .collect();
    let bound: std::collections::HashSet<String> =
        new_lines.iter().flat_map(|l| binders(l)).collect();
    let defined: std::collections::HashSet<String> = top_level(language, &new_lines.join("\n"))
        .unwrap_or_default()
        .into_iter()
        .map(|s| s.name)
        .collect();
    let code: Vec<&str> = new_lines
        .iter()
        .filter(|l| names_of(language, l).is_empty())
        .map(String::as_str)
        .collect();
    old_lines
        .iter()
        .filter(|line| !new_bindings.contains(line.trim()))
        .filter(|line| {
            // A line binding a name the new version binds otherwise would clash with it.
            let names = names_of(language, line);
            names
                .iter()
                .all(|name| !bound.contains(name) && !defined.contains(name))
                && names
                    .iter()
                    .any(|name| !mentions(task, name) && code.iter().any(|l| mentions(l, name)))
        })
        .copied()
        .collect()
}

/// The name a top-level, one-line constant or variable binds (`LIMIT = 10`,
/// `const DEFAULT_FILE = path.join(…)`, `pub const MAX: usize = 8;`, `var ErrX = errors.New(…)`);
/// none for any other line, imports included.
fn assigned_names(language: Language, line: &str) -> Vec<String> {
    static PATTERNS: LazyLock<Option<[Regex; 4]>> = LazyLock::new(|| {
        Some([
            Regex::new(r"^([A-Za-z_]\w*)\s*(?::[^=]+)?=[^=]").ok()?,
            Regex::new(
                r"^(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=[^=>]",
            )
            .ok()?,
            Regex::new(r"^(?:pub(?:\([^)]*\))?\s+)?(?:const|static)\s+([A-Za-z_]\w*)\s*:").ok()?,
            Regex::new(r"^(?:var|const)\s+([A-Za-z_]\w*)\s").ok()?,
        ])
    });
    let Some(patterns) = PATTERNS.as_ref() else {
        return Vec::new();
    };
    if line.starts_with([' ', '\t'])
        || line.trim_end().ends_with(['(', '{', '[', ',', '='])
        || !import_names(language, line).is_empty()
    {
        return Vec::new();
    }
    let pattern = match language {
        Language::Python => &patterns[0],
        Language::JavaScript | Language::TypeScript => &patterns[1],
        Language::Rust => &patterns[2],
        Language::Go => &patterns[3],
        _ => return Vec::new(),
    };
    pattern
        .captures(line)
        .and_then(|c| c.get(1))
        .map(|m| vec![m.as_str().to_owned()])
        .unwrap_or_default()
}

/// The names a top-level, one-line import binds (`import os.path` binds `os`; `from m import a
/// as b` binds `b`; `const { x } = require('m')` binds `x`; `use a::{b, c as d};` binds `b`
/// and `d`); none for any other line.
fn import_names(language: Language, line: &str) -> Vec<String> {
    if line.starts_with([' ', '\t']) || line.trim_end().ends_with(['(', '{', ',']) {
        return Vec::new();
    }
    let line = line.trim_end().trim_end_matches(';');
    let names: Vec<&str> = match language {
        Language::Python => {
            if let Some(rest) = line.strip_prefix("import ") {
                rest.split(',')
                    .map(|item| match item.split_once(" as ") {
                        Some((_, alias)) => alias,
                        None => item.trim().split('.').next().unwrap_or(""),
                    })
                    .collect()
            } else if let Some((_, items)) = line
                .strip_prefix("from ")
                .and_then(|rest| rest.split_once(" import "))
            {
                items.split(',').map(alias_or_name).collect()
            } else {
                Vec::new()
            }
        }
        Language::JavaScript | Language::TypeScript => {
            if let Some(rest) = line.strip_prefix("import ") {
                match rest.rsplit_once(" from ") {
                    Some((bindings, _)) => js_bindings(bindings),
                    None => Vec::new(),
                }
            } else if let Some((lhs, rhs)) = ["const ", "let ", "var "]
                .iter()
                .find_map(|k| line.strip_prefix(k))
                .and_then(|rest| rest.split_once('='))
                && rhs.trim_start().starts_with("require(")
            {
                js_bindings(lhs)
            } else {
                Vec::new()
            }
        }
        Language::Rust => match line.strip_prefix("use ") {
            Some(path) => match path.split_once('{') {
                Some((_, items)) => items
                    .trim_end_matches('}')
                    .split(',')
                    .map(alias_or_name)
                    .collect(),
                None => vec![alias_or_name(path.rsplit("::").next().unwrap_or(""))],
            },
            None => Vec::new(),
        },
        _ => Vec::new(),
    };
    names
        .into_iter()
        .map(str::trim)
        .filter(|n| !n.is_empty() && n.chars().all(is_word))
        .map(str::to_owned)
        .collect()
}

/// `a as b` → `b`, `a` → `a` (Python and Rust).
fn alias_or_name(item: &str) -> &str {
    match item.split_once(" as ") {
        Some((_, alias)) => alias.trim(),
        None => item.trim(),
    }
}

/// The names of JavaScript bindings: `x`, `{ a, b: c }`, `x, { a as b }`, `* as ns`.
fn js_bindings(bindings: &str) -> Vec<&str> {
    bindings
        .split([',', '{', '}'])
        .map(|item| {
            let item = item.trim();
            let item = item.rsplit_once(" as ").map_or(item, |(_, alias)| alias);
            item.rsplit_once(':')
                .map_or(item, |(_, local)| local)
                .trim()
        })
        .collect()
}

/// A line of nothing but closing brackets.
fn is_closing(line: &str) -> bool {
    line.chars()
        .all(|c| matches!(c, '}' | ')' | ']' | ';' | ','))
}

/// What a line starts with, up to its first `=`, `(`, `{` or `:`.
fn line_key(line: &str) -> &str {
    let end = line.find(['=', '(', '{', ':']).unwrap_or(line.len());
    line[..end].trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_constructor_is_put_back_after_its_neighbour() {
        let old = "package store\n\ntype Store struct {\n\tnotes map[string]string\n}\n\n// New makes an empty store.\nfunc New() *Store {\n\treturn &Store{notes: map[string]string{}}\n}\n\n// Fetch returns a note.\nfunc (s *Store) Fetch(id string) string {\n\treturn s.notes[id]\n}\n";
        let new = "package store\n\ntype Store struct {\n\tnotes map[string]string\n}\n\n// Get returns a note.\nfunc (s *Store) Get(id string) string {\n\treturn s.notes[id]\n}\n";
        let kept = keep_left_out(
            "store/store.go",
            old,
            new,
            "Rename the method `Fetch` of `store.Store` to `Get`.",
        )
        .expect("New was left out");
        assert_eq!(kept.parts, vec!["New".to_owned()]);
        assert_eq!(
            kept.content,
            "package store\n\ntype Store struct {\n\tnotes map[string]string\n}\n\n// New makes an empty store.\nfunc New() *Store {\n\treturn &Store{notes: map[string]string{}}\n}\n\n// Get returns a note.\nfunc (s *Store) Get(id string) string {\n\treturn s.notes[id]\n}\n"
        );
    }

    #[test]
    fn lost_exports_come_back_at_the_end() {
        let old = "function parsePort(v) {\n  return Number(v);\n}\n\nfunction loadConfig() {\n  return {};\n}\n\nmodule.exports = { parsePort, loadConfig };\n";
        let new = "function parsePort(v) {\n  return parseInt(v, 10);\n}\n\nfunction loadConfig() {\n  return { port: 8080 };\n}\n";
        let kept = keep_left_out("src/config.js", old, new, "Make the port default to 8080.")
            .expect("the exports were left out");
        assert_eq!(kept.parts, vec!["the file's end".to_owned()]);
        assert!(
            kept.content
                .ends_with("}\n\nmodule.exports = { parsePort, loadConfig };\n"),
            "{}",
            kept.content
        );
    }

    #[test]
    fn changed_exports_are_left_as_written() {
        let old = "function a() {}\n\nmodule.exports = { a };\n";
        let new = "function a() {}\nfunction b() {}\n\nmodule.exports = { a, b };\n";
        assert_eq!(keep_left_out("x.js", old, new, "add b"), None);
    }

    #[test]
    fn what_the_task_names_stays_out() {
        let old = "def keep():\n    return 1\n\n\ndef parse_cfg():\n    return 2\n";
        let new = "def keep():\n    return 1\n\n\ndef parse_config():\n    return 2\n";
        assert_eq!(
            keep_left_out(
                "cfg.py",
                old,
                new,
                "Rename parse_cfg to parse_config everywhere."
            ),
            None
        );
    }

    #[test]
    fn a_rust_type_with_impls_comes_back_with_the_impls_left_out() {
        let old = "use std::fmt;\n\npub struct Rgb {\n    pub r: u8,\n}\n\npub enum ParseError {\n    Bad,\n}\n\nimpl fmt::Display for ParseError {\n    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {\n        write!(f, \"bad\")\n    }\n}\n\npub fn parse(text: &str) -> Result<Rgb, ParseError> {\n    todo!()\n}\n\nimpl fmt::Display for Rgb {\n    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {\n        write!(f, \"#{}\", self.r)\n    }\n}\n";
        let new = "use std::fmt;\n\npub fn parse(text: &str) -> Result<Rgb, ParseError> {\n    Ok(Rgb { r: text.len() as u8 })\n}\n\nimpl fmt::Display for Rgb {\n    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {\n        write!(f, \"#{}\", self.r)\n    }\n}\n";
        let kept = keep_left_out("src/lib.rs", old, new, "Implement `parse`.").unwrap();
        assert_eq!(
            kept.parts,
            ["Rgb", "ParseError", "impl fmt::Display for ParseError"]
        );
        assert!(kept.content.contains("pub struct Rgb {"));
        assert!(kept.content.contains("Ok(Rgb { r: text.len() as u8 })"));
        assert_eq!(kept.content.matches("impl fmt::Display for Rgb").count(), 1);
    }

    #[test]
    fn a_definition_the_task_only_changes_comes_back() {
        let old = "export function card(x: string): string {\n  return x;\n}\n\nexport function summary(x: string): string {\n  return x;\n}\n";
        let new = "export function card(x: string): string {\n  return x;\n}\n";
        let kept = keep_left_out("feed.ts", old, new, "make `summary` use \"...\" instead.")
            .unwrap_or_else(|| panic!("summary left out"));
        assert_eq!(kept.parts, vec!["summary".to_owned()]);
        assert!(may_drop_names("Please remove `summary`"));
        assert!(may_drop_names("Moved the helper"));
        assert!(!may_drop_names(
            "make `summary` use \"...\" instead, and improve it"
        ));
    }

    #[test]
    fn a_python_helper_and_main_block_come_back() {
        let old = "import sys\n\n\ndef helper(x):\n    return x * 2\n\n\ndef main():\n    print(helper(2))\n\n\nif __name__ == \"__main__\":\n    main()\n";
        let new = "import sys\n\n\ndef main():\n    print(helper(3))\n";
        let kept = keep_left_out("tool.py", old, new, "print for three").expect("left out");
        assert_eq!(
            kept.parts,
            vec!["helper".to_owned(), "the file's end".to_owned()]
        );
        assert_eq!(
            kept.content,
            "import sys\n\n\ndef helper(x):\n    return x * 2\n\ndef main():\n    print(helper(3))\n\nif __name__ == \"__main__\":\n    main()\n"
        );
    }

    #[test]
    fn dropped_imports_still_used_come_back_after_the_others() {
        let old = "\"\"\"The command line.\"\"\"\nimport os\nimport sys\n\nfrom tasklog import report\nfrom tasklog.utils import parse_duration, pluralize\n\n\ndef main(argv=None):\n    argv = sys.argv[1:] if argv is None else argv\n    return os.getcwd(), parse_duration(argv[0])\n";
        let new = "\"\"\"The command line.\"\"\"\nfrom tasklog import report\nfrom tasklog.durations import parse_duration\n\n\ndef main(argv=None):\n    argv = sys.argv[1:] if argv is None else argv\n    return os.getcwd(), parse_duration(argv[0])\n";
        let kept = keep_left_out(
            "tasklog/cli.py",
            old,
            new,
            "Move `parse_duration` into tasklog/durations.py",
        )
        .expect("imports were dropped");
        assert_eq!(
            kept.parts,
            vec!["`import os`".to_owned(), "`import sys`".to_owned()]
        );
        assert_eq!(
            kept.content,
            "\"\"\"The command line.\"\"\"\nfrom tasklog import report\nfrom tasklog.durations import parse_duration\nimport os\nimport sys\n\n\ndef main(argv=None):\n    argv = sys.argv[1:] if argv is None else argv\n    return os.getcwd(), parse_duration(argv[0])\n"
        );
    }

    #[test]
    fn dropped_requires_and_constants_still_used_come_back() {
        let old = "'use strict'\nconst fs = require('node:fs')\nconst path = require('node:path')\n\nconst DEFAULT_FILE = path.join(__dirname, 'default.json')\nconst LEVELS = ['debug', 'info']\n\nfunction loadConfig (file = DEFAULT_FILE) {\n  return JSON.parse(fs.readFileSync(file, 'utf8'))\n}\n\nmodule.exports = { loadConfig, DEFAULT_FILE, LEVELS }\n";
        let new = "function loadConfig (file = DEFAULT_FILE) {\n  const config = JSON.parse(fs.readFileSync(file, 'utf8'))\n  return { port: 8080, ...config }\n}\n\nmodule.exports = { loadConfig, DEFAULT_FILE }\n";
        let kept = keep_left_out("src/config.js", old, new, "Make the default port 8080.")
            .expect("left out");
        assert_eq!(
            kept.parts,
            vec![
                "`const fs = require('node:fs')`".to_owned(),
                "`const DEFAULT_FILE = path.join(__dirname, 'default.json')`".to_owned(),
                "`const path = require('node:path')`".to_owned(),
            ]
        );
        // `path` is used only by the constant put back: it comes back on the second look.
        assert_eq!(
            kept.content,
            "const fs = require('node:fs')\nconst path = require('node:path')\n\nconst DEFAULT_FILE = path.join(__dirname, 'default.json')\n\nfunction loadConfig (file = DEFAULT_FILE) {\n  const config = JSON.parse(fs.readFileSync(file, 'utf8'))\n  return { port: 8080, ...config }\n}\n\nmodule.exports = { loadConfig, DEFAULT_FILE }\n"
        );
    }

    #[test]
    fn an_import_that_would_clash_with_a_new_one_stays_out() {
        let old = "use crate::util::{crc16, read_u16_be};\n\npub fn check(b: &[u8]) -> u16 {\n    crc16(b) ^ read_u16_be(b)\n}\n";
        let new = "use crate::checksum::crc16;\n\npub fn check(b: &[u8]) -> u16 {\n    crc16(b) ^ read_u16_be(b)\n}\n";
        assert_eq!(
            keep_left_out("src/frame.rs", old, new, "Move `crc16` out of util"),
            None
        );
    }

    #[test]
    fn constants_bind_the_names_they_say() {
        let names = |language, line| assigned_names(language, line);
        assert_eq!(names(Language::Python, "LIMIT = 10"), ["LIMIT"]);
        assert_eq!(
            names(Language::Python, "_UNITS: dict[str, int] = {\"B\": 1}"),
            ["_UNITS"]
        );
        assert!(names(Language::Python, "x == 1").is_empty());
        assert!(names(Language::Python, "UNITS = {").is_empty());
        assert!(names(Language::Python, "import os").is_empty());
        assert_eq!(
            names(Language::JavaScript, "const DEFAULT_FILE = path.join(a, b)"),
            ["DEFAULT_FILE"]
        );
        assert_eq!(
            names(Language::TypeScript, "export const MAX: number = 3;"),
            ["MAX"]
        );
        assert!(names(Language::JavaScript, "const fs = require('fs')").is_empty());
        assert_eq!(
            names(Language::Rust, "pub const MAGIC: u8 = 0x7E;"),
            ["MAGIC"]
        );
        assert_eq!(
            names(Language::Go, "var ErrNotFound = errors.New(\"x\")"),
            ["ErrNotFound"]
        );
    }

    #[test]
    fn imports_bind_the_names_they_say() {
        let names = |language, line| import_names(language, line);
        assert_eq!(names(Language::Python, "import os.path"), ["os"]);
        assert_eq!(names(Language::Python, "import numpy as np"), ["np"]);
        assert_eq!(
            names(Language::Python, "from a.b import c, d as e"),
            ["c", "e"]
        );
        assert!(names(Language::Python, "from a import (").is_empty());
        assert!(names(Language::Python, "    import os").is_empty());
        assert_eq!(
            names(Language::JavaScript, "const { a, b: c } = require('./m');"),
            ["a", "c"]
        );
        assert_eq!(
            names(Language::JavaScript, "const fs = require('fs')"),
            ["fs"]
        );
        assert_eq!(
            names(Language::TypeScript, "import x, { y as z } from \"./m\";"),
            ["x", "z"]
        );
        assert_eq!(
            names(Language::TypeScript, "import * as path from 'path';"),
            ["path"]
        );
        assert_eq!(names(Language::Rust, "use std::fmt;"), ["fmt"]);
        assert_eq!(
            names(
                Language::Rust,
                "use crate::util::{read_u16_be, crc16 as crc};"
            ),
            ["read_u16_be", "crc"]
        );
        assert!(names(Language::Rust, "let x = 1;").is_empty());
    }

    #[test]
    fn nothing_left_out_is_none() {
        let old = "def a():\n    return 1\n";
        let new = "def a():\n    return 2\n";
        assert_eq!(keep_left_out("a.py", old, new, "fix a"), None);
        assert_eq!(keep_left_out("notes.txt", "x", "y", ""), None);
    }

    #[test]
    fn what_holds_a_renamed_name_is_not_put_back() {
        let old = "from .config import parse_cfg\n\n__all__ = [\"parse_cfg\", \"Plan\"]\n\n\ndef test_parse_cfg_sections():\n    assert parse_cfg(\"\")\n\n\ndef helper():\n    return 1\n";
        let new = "from .config import parse_config\n\n\ndef test_parse_config_sections():\n    assert parse_config(\"\")\n";
        let kept = keep_left_out(
            "deployer/__init__.py",
            old,
            new,
            "Rename `parse_cfg` to `parse_config` everywhere.",
        )
        .expect("helper was left out");
        assert_eq!(kept.parts, vec!["helper".to_owned()]);
        assert!(!kept.content.contains("parse_cfg"), "{}", kept.content);
        assert_eq!(
            code_names(
                "Rename the method `Fetch` of `store.Store` to `Get`; getUserName and parse_cfg too."
            ),
            ["Fetch", "store", "Store", "Get", "getUserName", "parse_cfg"]
        );
    }

    #[test]
    fn names_are_matched_as_words() {
        assert!(mentions("rename `Fetch` to Get", "Fetch"));
        assert!(!mentions("call FetchAll", "Fetch"));
        assert!(!mentions("prefetch", "fetch"));
    }
}
