//! Whole files written as code blocks, the way small models answer when they mean to edit:
//! "Here is the updated `calc/stats.py`:" followed by the file in a fenced block (Aider's
//! "whole" edit format). With the compact tool profile, an answer to a task that asks for
//! changes is read for such blocks, each taken as a `write_file` call.
//!
//! The same rule guards `write_file` under the compact profile: a small model often writes only
//! the part it changed, which would delete the rest of the file ([`cuts_most_of`]).
//!
//! A block counts when the line before it names exactly one file: an existing workspace file
//! (by its path, or by a file name only one workspace file has), or — when that line is nothing
//! but the path — a new one. It does not count when its
//! language is not the file's (a shell block after a mention of a Python file), or when it is
//! far shorter than the file it would replace (a snippet, not the file: half the lines or
//! fewer of a file over ten lines).

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use keel_context::prompt::language_of;

/// Fence languages that are never a file's content.
const NOT_CONTENT: &[&str] = &[
    "bash", "sh", "shell", "console", "text", "diff", "output", "json",
];

/// A file the answer gives whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WholeFile {
    /// Workspace-relative path.
    pub(crate) path: String,
    /// The new content (ending with a newline).
    pub(crate) content: String,
    /// Where the block starts in the answer (its fence).
    pub(crate) start: usize,
}

/// The whole files `answer` gives, in order (one per path: the last block wins). A block no
/// line names is the file of `focused` it is plainly a new version of ([`new_version_of`]).
pub(crate) fn whole_files(answer: &str, root: &Path, focused: &[String]) -> Vec<WholeFile> {
    let mut found: Vec<WholeFile> = Vec::new();
    for block in fenced_blocks(answer) {
        if block.body.trim().is_empty() {
            continue;
        }
        let Some(path) = named_path(block.label, root)
            .or_else(|| new_version_of(&block.body, block.info, root, focused))
        else {
            continue;
        };
        if !language_fits(block.info, &path)
            || !replaces_whole(&block.body, &root.join(&path))
            || json_escaped(&block.body)
        {
            continue;
        }
        let mut content = block.body.clone();
        if !content.ends_with('\n') {
            content.push('\n');
        }
        found.retain(|f| f.path != path);
        found.push(WholeFile {
            path,
            content,
            start: block.start,
        });
    }
    found.sort_by_key(|f| f.start);
    found
}

/// The files an answer writes as `write_file` calls in almost-JSON its text call reader could
/// not read — a small model's `{"name": "write_file", "arguments": {"path": …, "content": "…"}}`
/// with the quotes inside the content left unescaped. The intent is plain: the content runs
/// from its opening quote to the quote that closes the call's two objects, and is read with
/// JSON's escapes (`\n`, `\"`, …) and its bare quotes as they are.
pub(crate) fn json_written_files(answer: &str) -> Vec<WholeFile> {
    static NAME: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r#""name"\s*:\s*"(?:write_file|write_to_file)""#).ok());
    static PATH: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r#""path"\s*:\s*"(?P<path>[^"\n]+)""#).ok());
    static CONTENT: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r#""content"\s*:\s*""#).ok());
    static CLOSE: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r#""\s*\}\s*\}"#).ok());
    let (Some(name), Some(path_re), Some(content_re), Some(close)) = (
        NAME.as_ref(),
        PATH.as_ref(),
        CONTENT.as_ref(),
        CLOSE.as_ref(),
    ) else {
        return Vec::new();
    };
    let starts: Vec<usize> = name.find_iter(answer).map(|m| m.start()).collect();
    let mut found: Vec<WholeFile> = Vec::new();
    for (n, &start) in starts.iter().enumerate() {
        let call = &answer[start..starts.get(n + 1).copied().unwrap_or(answer.len())];
        let Some(path) = path_re.captures(call).and_then(|c| c.name("path")) else {
            continue;
        };
        let path = path.as_str().trim_start_matches("./");
        if path.starts_with('/') || path.split('/').any(|p| p == "..") {
            continue;
        }
        let Some(open) = content_re.find(call) else {
            continue;
        };
        let Some(end) = close.find_iter(&call[open.end()..]).last() else {
            continue;
        };
        let mut content = json_unescaped(&call[open.end()..open.end() + end.start()]);
        if content.trim().is_empty() {
            continue;
        }
        if !content.ends_with('\n') {
            content.push('\n');
        }
        found.retain(|f| f.path != path);
        // The call starts at the brace (or fence) that opens it: the prose is what is before.
        let opening = answer[..start].rfind('{').unwrap_or(start);
        let opening = answer[..opening]
            .trim_end()
            .strip_suffix("```json")
            .or_else(|| answer[..opening].trim_end().strip_suffix("```"))
            .map_or(opening, str::len);
        found.push(WholeFile {
            path: path.to_owned(),
            content,
            start: opening,
        });
    }
    found
}

/// `text` with JSON's string escapes read; a backslash before anything else is kept.
fn json_unescaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.peek().copied() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('"') => out.push('"'),
            Some('\\') => out.push('\\'),
            Some('/') => out.push('/'),
            Some('u') => {
                let hex: String = chars.clone().skip(1).take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(decoded) if hex.len() == 4 => {
                        out.push(decoded);
                        for _ in 0..4 {
                            chars.next();
                        }
                    }
                    _ => {
                        out.push('\\');
                        continue;
                    }
                }
            }
            _ => {
                out.push('\\');
                continue;
            }
        }
        chars.next();
    }
    out
}

/// Share of a file's lines a block must keep to be taken, unnamed, for its new version.
const SAME_FILE_SHARE: f64 = 0.5;

/// The one file of `focused` that `body` is a new version of: in the block's language, and
/// keeping at least [`SAME_FILE_SHARE`] of its non-blank lines — clearly more than any other.
fn new_version_of(body: &str, info: &str, root: &Path, focused: &[String]) -> Option<String> {
    let block: std::collections::HashSet<&str> = body
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let mut scores: Vec<(f64, &String)> = focused
        .iter()
        .filter(|path| language_fits(info, path))
        .filter_map(|path| {
            let text = std::fs::read_to_string(root.join(path)).ok()?;
            let lines: Vec<&str> = text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            if lines.is_empty() {
                return None;
            }
            let kept = lines.iter().filter(|l| block.contains(*l)).count();
            Some((kept as f64 / lines.len() as f64, path))
        })
        .collect();
    scores.sort_by(|a, b| b.0.total_cmp(&a.0));
    match scores.as_slice() {
        [(best, path), rest @ ..]
            if *best >= SAME_FILE_SHARE && rest.first().is_none_or(|next| next.0 < *best * 0.8) =>
        {
            Some((*path).clone())
        }
        _ => None,
    }
}

/// A fenced block of an answer.
pub(crate) struct Block<'a> {
    /// Byte offset of its opening fence.
    pub(crate) start: usize,
    /// The fence's info string (language).
    pub(crate) info: &'a str,
    /// The last non-empty line before the fence.
    pub(crate) label: &'a str,
    /// The lines between the fences.
    pub(crate) body: String,
}

/// The fenced blocks of `answer`, in order.
pub(crate) fn fenced_blocks(answer: &str) -> Vec<Block<'_>> {
    let mut blocks = Vec::new();
    let mut offset = 0;
    let mut label = "";
    let mut open: Option<(usize, &str, &str, Vec<&str>, usize)> = None;
    for line in answer.split_inclusive('\n') {
        let text = line.trim_end_matches(['\n', '\r']);
        let trimmed = text.trim_start();
        match open.as_mut() {
            Some((start, info, block_label, lines, indent)) => {
                if trimmed.starts_with("```") {
                    // A path alone on the block's first line names the block.
                    let (named, body) = match lines.split_first() {
                        Some((first, rest)) if looks_like_path(first) => (bare_path(first), rest),
                        _ => (*block_label, &lines[..]),
                    };
                    // A block holding only a path names the next one.
                    let names_next =
                        body.iter().all(|l| l.trim().is_empty()) && named != *block_label;
                    blocks.push(Block {
                        start: *start,
                        info,
                        label: named,
                        body: body.join("\n"),
                    });
                    open = None;
                    label = if names_next { named } else { "" };
                } else {
                    lines.push(without_fence_indent(text, *indent));
                }
            }
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    let indent = text.len() - trimmed.len();
                    open = Some((offset, info.trim(), label, Vec::new(), indent));
                } else if !trimmed.is_empty() {
                    label = text;
                }
            }
        }
        offset += line.len();
    }
    blocks
}

/// A block's line without the indentation its fence has (a block in a list item): as in
/// CommonMark, up to that many leading spaces are not the code's.
fn without_fence_indent(line: &str, indent: usize) -> &str {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    &line[spaces.min(indent)..]
}

/// The path a line of [`looks_like_path`] holds, without its comment marker and quotes.
fn bare_path(line: &str) -> &str {
    line.trim()
        .trim_start_matches("# ")
        .trim_start_matches("// ")
        .trim_matches('`')
}

/// Whether `line` is nothing but a relative file path (`src/app.py`, `# src/app.py`,
/// `// src/app.js`).
fn looks_like_path(line: &str) -> bool {
    let line = bare_path(line);
    !line.is_empty()
        && !line.contains(char::is_whitespace)
        && !line.starts_with('/')
        && line.rsplit('/').next().is_some_and(|name| {
            name.contains('.') && !name.starts_with('.') && !name.ends_with('.')
        })
        && line
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '-'))
}

/// The one workspace file `label` names: an existing file, or a new one when the label is
/// nothing but its path.
pub(crate) fn named_path(label: &str, root: &Path) -> Option<String> {
    let words: Vec<&str> = label
        .split(|c: char| c.is_whitespace() || matches!(c, '`' | '*' | '"' | '\'' | '(' | ')' | ','))
        .map(|w| w.trim_end_matches([':', '.', ';']))
        .map(|w| w.trim_start_matches("./"))
        .filter(|w| !w.is_empty())
        .collect();
    let plausible = |w: &str| {
        !w.starts_with('/')
            && !w.split('/').any(|p| p == ".." || p.is_empty())
            && w.rsplit('/').next().is_some_and(|name| name.contains('.'))
    };
    let mut existing: Vec<String> = words
        .iter()
        .filter(|w| plausible(w))
        .filter_map(|w| {
            if root.join(w).is_file() {
                Some((*w).to_owned())
            } else if !w.contains('/') {
                only_file_named(root, w)
            } else {
                None
            }
        })
        .collect();
    existing.dedup();
    match existing.as_slice() {
        [one] => Some(one.clone()),
        [] if words.len() == 1 && plausible(words[0]) => Some(words[0].to_owned()),
        _ => None,
    }
}

/// The workspace path of the one file named `name`, when exactly one has that name (the walk
/// stops at the second, and after a few thousand files).
fn only_file_named(root: &Path, name: &str) -> Option<String> {
    let mut found = None;
    for entry in keel_tools::walk::walker(root).build().flatten().take(5_000) {
        if entry.file_name().to_str() == Some(name)
            && entry.file_type().is_some_and(|t| t.is_file())
        {
            if found.is_some() {
                return None;
            }
            found = entry
                .path()
                .strip_prefix(root)
                .ok()
                .and_then(|p| p.to_str())
                .map(str::to_owned);
        }
    }
    found
}

/// Whether `body` reads like a JSON string's inside (escaped quotes and newlines written out)
/// rather than a file.
fn json_escaped(body: &str) -> bool {
    body.matches("\\\"").count() >= 2 && body.matches("\\n").count() >= 2
}

/// Whether a block in `info` can be the content of `path`.
fn language_fits(info: &str, path: &str) -> bool {
    let info = info
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let language = language_of(path);
    if info.is_empty() || info == language {
        return true;
    }
    if NOT_CONTENT.contains(&info.as_str()) {
        // A shell or JSON file is given in its own language.
        return matches!(
            (info.as_str(), language),
            ("bash" | "sh" | "shell", "bash") | ("json", "json")
        );
    }
    // Aliases (`py`, `js`, `ts`, `rs`) and languages the table does not know.
    language.is_empty() || language.starts_with(info.as_str()) || info.starts_with(language)
}

/// Why a `write_file` call with `arguments` must not run in the workspace at `root`: its
/// content would replace an existing file of more than ten lines with half of them or fewer.
pub(crate) fn cuts_most_of(root: &Path, arguments: &serde_json::Value) -> Option<String> {
    let path = arguments.get("path")?.as_str()?;
    let content = arguments.get("content")?.as_str()?;
    let full = root.join(path.trim_start_matches("./"));
    if replaces_whole(content, &full) {
        return None;
    }
    let old = std::fs::read_to_string(&full).ok()?.lines().count();
    Some(format!(
        "write_file was not run: it replaces the whole file, and your content has {} lines where `{path}` has {old}, so the rest of the file would be deleted. Give the complete new content of the file, or change only part of it with replace_in_file.",
        content.lines().count()
    ))
}

/// Whether `body` can replace the file at `path` whole: a new file, a small one, or one whose
/// line count it at least half keeps.
fn replaces_whole(body: &str, path: &Path) -> bool {
    let Ok(old) = std::fs::read_to_string(path) else {
        return !path.exists();
    };
    let old_lines = old.lines().count();
    old_lines <= 10 || body.lines().count() * 2 > old_lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("calc")).unwrap();
        std::fs::write(
            dir.path().join("calc/stats.py"),
            "def mean(values):\n    return sum(values) / (len(values) - 1)\n",
        )
        .unwrap();
        let long: String = (0..40).map(|i| format!("x{i} = {i}\n")).collect();
        std::fs::write(dir.path().join("calc/long.py"), long).unwrap();
        dir
    }

    #[test]
    fn an_unnamed_block_is_the_focused_file_it_rewrites() {
        let dir = project();
        let focused = ["calc/stats.py".to_owned(), "calc/long.py".to_owned()];
        let answer = "```python\ndef mean(values):\n    return sum(values) / len(values)\n```";
        let files = whole_files(answer, dir.path(), &focused);
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].path, "calc/stats.py");
        // Not a file it does not resemble, nor one it was not shown, nor a shell block.
        let other = "```python\nprint('hello')\nprint('world')\n```";
        assert!(whole_files(other, dir.path(), &focused).is_empty());
        assert!(whole_files(answer, dir.path(), &[]).is_empty());
        let shell = "```bash\ndef mean(values):\n```";
        assert!(whole_files(shell, dir.path(), &focused).is_empty());
    }

    #[test]
    fn a_block_in_a_list_item_loses_the_items_indentation() {
        // As the model wrote it: a numbered list, each file's block indented under its item.
        let dir = project();
        let answer = "1. **Update `calc/stats.py`**:\n   ```python\n   def mean(values):\n       return sum(values) / len(values)\n   ```\n";
        let files = whole_files(answer, dir.path(), &[]);
        assert_eq!(files.len(), 1);
        assert_eq!(
            files[0].content,
            "def mean(values):\n    return sum(values) / len(values)\n"
        );
    }

    #[test]
    fn a_block_after_a_line_naming_the_file() {
        let dir = project();
        let answer = "The divisor is wrong. Here's the updated `calc/stats.py` file:\n\n```python\ndef mean(values):\n    return sum(values) / len(values)\n```\n\nNow run the tests:\n\n```bash\npython3 -m unittest\n```\n";
        let files = whole_files(answer, dir.path(), &[]);
        assert_eq!(
            files,
            [WholeFile {
                path: "calc/stats.py".into(),
                content: "def mean(values):\n    return sum(values) / len(values)\n".into(),
                start: answer.find("```python").unwrap(),
            }]
        );
    }

    #[test]
    fn a_new_file_only_when_the_line_is_its_path() {
        let dir = project();
        let new =
            "calc/median.py\n```python\ndef median(v):\n    return sorted(v)[len(v) // 2]\n```";
        assert_eq!(whole_files(new, dir.path(), &[])[0].path, "calc/median.py");
        let prose = "You could add calc/median.py like this:\n```python\ndef median(v): ...\n```";
        assert!(whole_files(prose, dir.path(), &[]).is_empty());
        // A path on the block's first line names it.
        let inside = "```\ncalc/stats.py\ndef mean(v):\n    return 1\n```";
        let files = whole_files(inside, dir.path(), &[]);
        assert_eq!(files[0].path, "calc/stats.py");
        assert_eq!(files[0].content, "def mean(v):\n    return 1\n");
        // So does a comment holding only a path, for a new file too.
        let comment = "1. **Create the module `calc/median.py`**:\n   ```python\n   # calc/median.py\n   def median(v):\n       return 0\n   ```";
        let files = whole_files(comment, dir.path(), &[]);
        assert_eq!(files[0].path, "calc/median.py");
        assert_eq!(files[0].content, "def median(v):\n    return 0\n");
        // A block holding only the path names the next block.
        let apart = "```\ncalc/stats.py\n```\n```python\ndef mean(v):\n    return 2\n```";
        let files = whole_files(apart, dir.path(), &[]);
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].content, "def mean(v):\n    return 2\n");
        // A file name only one workspace file has is that file.
        let short =
            "Here's the updated `stats.py` file:\n```python\ndef mean(v):\n    return 0\n```";
        assert_eq!(whole_files(short, dir.path(), &[])[0].path, "calc/stats.py");
    }

    #[test]
    fn a_write_file_call_in_almost_json_is_read() {
        let answer = r#"{"name": "write_file", "arguments": {"path": "invoicer/render.py", "content": "LABELS = {\n    \"en\": {"invoice": \"Invoice\"},\n}\n\ndef f(x):\n    return \"a\\nb\" + 'é'\n"}}"#;
        let files = json_written_files(answer);
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].path, "invoicer/render.py");
        assert_eq!(files[0].start, 0, "the call starts at its brace");
        let fenced = format!("Here:\n```json\n{answer}\n```");
        assert_eq!(json_written_files(&fenced)[0].start, "Here:\n".len());
        assert_eq!(
            files[0].content,
            "LABELS = {\n    \"en\": {\"invoice\": \"Invoice\"},\n}\n\ndef f(x):\n    return \"a\\nb\" + 'é'\n"
        );
        assert!(
            json_written_files("{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.py\"}}")
                .is_empty()
        );
        assert!(
            json_written_files(
                r#"{"name": "write_file", "arguments": {"path": "../x.py", "content": "x"}}"#
            )
            .is_empty()
        );
    }

    #[test]
    fn a_write_that_cuts_most_of_a_file_is_refused() {
        let dir = project();
        let cut = serde_json::json!({"path": "calc/long.py", "content": "x1 = 2\n"});
        let refusal = cuts_most_of(dir.path(), &cut).unwrap();
        assert!(
            refusal.contains("1 lines where `calc/long.py` has 40"),
            "{refusal}"
        );
        for fine in [
            serde_json::json!({"path": "calc/stats.py", "content": "x = 1\n"}),
            serde_json::json!({"path": "calc/new.py", "content": "x = 1\n"}),
            serde_json::json!({"path": "calc/long.py", "content": "y = 1\n".repeat(30)}),
        ] {
            assert_eq!(cuts_most_of(dir.path(), &fine), None, "{fine}");
        }
    }

    #[test]
    fn snippets_other_languages_and_unnamed_blocks_are_not_files() {
        let dir = project();
        for answer in [
            "In `calc/long.py`:\n```python\nx1 = 2\n```",
            "Run this for `calc/stats.py`:\n```bash\npytest calc/stats.py\n```",
            "```python\ndef mean(values):\n    return 0\n```",
            "Compare `calc/stats.py` and `calc/long.py`:\n```python\nx = 1\n```",
            "../etc/passwd\n```\nroot\n```",
            "Here is `calc/stats.py`:\n```\ndef mean(values):\\n    \\\"\\\"\\\"Mean.\\\"\\\"\\\"\\n    return 0\n```",
        ] {
            assert!(whole_files(answer, dir.path(), &[]).is_empty(), "{answer}");
        }
    }
}
