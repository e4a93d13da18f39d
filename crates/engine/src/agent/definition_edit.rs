//! Definitions given whole in code blocks: "Here is the fixed `median`:" followed by the
//! complete new `def median(…)`. With the compact tool profile, in a turn asked to change
//! files, a block that is nothing but definitions (and imports, comments and blank lines) is
//! read as edits: each definition replaces the one definition of that name in the workspace
//! (in the file the line before the block names, else among the focused files, else among the
//! project's files of that language), re-indented to where the old one stood. The edit is a
//! `replace_in_file` call whose SEARCH is the old definition's exact lines, so it shows as a
//! diff and is checked like any other.
//!
//! A class given with only some of its members (`// ...` for the rest) changes those members,
//! each replacing the one old member of its name, and leaves the rest of the class alone.
//!
//! A name defined more than once where it is looked up, or not at all, is not guessed at: the
//! block is left as it is (and the answer is pointed at the edit tools).

use std::collections::BTreeMap;
use std::path::Path;

use keel_repomap::{Language, Symbol, extract};

use super::whole_file::{fenced_blocks, named_path};

/// Most files of one language searched for a definition's old version.
const MAX_FILES_SEARCHED: usize = 500;

/// An edit read from a block: `old` lines of `path` become `new`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DefinitionEdit {
    /// Workspace-relative path.
    pub(crate) path: String,
    /// The old definition's exact lines.
    pub(crate) old: String,
    /// The new definition, indented like the old one.
    pub(crate) new: String,
}

impl DefinitionEdit {
    /// The edit as one SEARCH/REPLACE block.
    pub(crate) fn diff(&self) -> String {
        format!(
            "<<<<<<< SEARCH\n{}\n=======\n{}\n>>>>>>> REPLACE",
            self.old, self.new
        )
    }
}

/// The definition edits of `answer`, grouped by file (the blocks' order kept), looked up under
/// `root` with `focused` (workspace-relative paths) searched before the rest.
pub(crate) fn definition_edits(
    answer: &str,
    root: &Path,
    focused: &[String],
) -> BTreeMap<String, Vec<DefinitionEdit>> {
    let mut edits: BTreeMap<String, Vec<DefinitionEdit>> = BTreeMap::new();
    for block in fenced_blocks(answer) {
        let named = named_path(block.label, root).filter(|p| root.join(p).is_file());
        let Some(language) = block_language(block.info, named.as_deref(), focused) else {
            continue;
        };
        let Ok(tags) = extract(language, block.body.as_bytes()) else {
            continue;
        };
        let lines: Vec<&str> = block.body.lines().collect();
        let top: Vec<&Symbol> = tags.symbols.iter().filter(|s| s.depth == 0).collect();
        if top.is_empty() || !only_definitions(&lines, &top) {
            continue;
        }
        for symbol in top {
            let Some((path, old)) = find_old(root, language, named.as_deref(), focused, symbol)
            else {
                continue;
            };
            if let Some(members) = member_edits(language, &tags, symbol, &lines, &path, &old) {
                if !members.is_empty() {
                    edits.entry(path).or_default().extend(members);
                }
                continue;
            }
            let new_lines = &lines[symbol.start_line as usize - 1..symbol.end_line as usize];
            let new = reindent(new_lines, indent_of(old.lines().next().unwrap_or("")));
            if new == old {
                continue;
            }
            edits
                .entry(path.clone())
                .or_default()
                .push(DefinitionEdit { path, old, new });
        }
    }
    edits
}

/// When `class` (a definition of the block `lines`, whose symbols are `tags`) leaves out
/// members its old version `old` (in `path`) has — a class shown with only what changed,
/// `// ...` standing for the rest — the edits of the members it gives, each replacing the
/// one old member of its name; `None` when it gives all of them (it replaces the old class).
fn member_edits(
    language: Language,
    tags: &keel_repomap::FileTags,
    class: &Symbol,
    lines: &[&str],
    path: &str,
    old: &str,
) -> Option<Vec<DefinitionEdit>> {
    let members: Vec<&Symbol> = tags
        .symbols
        .iter()
        .filter(|s| {
            s.depth == class.depth + 1
                && s.start_line > class.start_line
                && s.end_line <= class.end_line
        })
        .collect();
    if members.is_empty() {
        return None;
    }
    let old_tags = extract(language, old.as_bytes()).ok()?;
    let old_lines: Vec<&str> = old.lines().collect();
    let old_members: Vec<&Symbol> = old_tags.symbols.iter().filter(|s| s.depth == 1).collect();
    let given = |name: &str| members.iter().any(|m| m.name == name);
    if old_members.iter().all(|m| given(&m.name)) {
        return None;
    }
    let mut edits = Vec::new();
    for member in members {
        let mut same = old_members.iter().filter(|m| m.name == member.name);
        let (Some(old_member), None) = (same.next(), same.next()) else {
            continue;
        };
        let old_text = old_member.lines_in(&old_lines);
        let new = reindent(
            member.lines_in(lines),
            indent_of(old_text.first().unwrap_or(&"")),
        );
        let old_text = old_text.join("\n");
        if new != old_text {
            edits.push(DefinitionEdit {
                path: path.to_owned(),
                old: old_text,
                new,
            });
        }
    }
    Some(edits)
}

/// The language of a block: its fence's, else the named file's, else the focused files' when
/// they have one language.
fn block_language(info: &str, named: Option<&str>, focused: &[String]) -> Option<Language> {
    let info = info
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let by_fence = match info.as_str() {
        "python" | "py" => Some(Language::Python),
        "javascript" | "js" | "jsx" => Some(Language::JavaScript),
        "typescript" | "ts" => Some(Language::TypeScript),
        "go" | "golang" => Some(Language::Go),
        "rust" | "rs" => Some(Language::Rust),
        "java" => Some(Language::Java),
        "" => None,
        // Another language (shell, diff, text) is not code to place.
        _ => return None,
    };
    by_fence
        .or_else(|| named.and_then(|p| Language::from_path(Path::new(p))))
        .or_else(|| {
            let mut languages = focused
                .iter()
                .filter_map(|p| Language::from_path(Path::new(p)));
            let first = languages.next()?;
            languages.all(|l| l == first).then_some(first)
        })
}

/// Whether every line outside the definitions is blank, a comment, or an import.
fn only_definitions(lines: &[&str], top: &[&Symbol]) -> bool {
    lines.iter().enumerate().all(|(i, line)| {
        let n = i as u32 + 1;
        top.iter().any(|s| (s.start_line..=s.end_line).contains(&n)) || is_filler(line.trim())
    })
}

/// A line that is not code to place: blank, a comment, an import, a decorator, a package
/// clause, a closing brace left over, a module's one-line docstring or `"use strict"`.
fn is_filler(line: &str) -> bool {
    line.is_empty()
        || is_one_line_docstring(line)
        || matches!(
            line.trim_end_matches(';'),
            "'use strict'" | "\"use strict\""
        )
        || ["#", "//", "/*", "*", "@"]
            .iter()
            .any(|p| line.starts_with(p))
        || ["import ", "from ", "use ", "package ", "const ", "require("]
            .iter()
            .any(|p| line.starts_with(p))
        || line == "}"
}

/// A Python string literal alone on its line (`"""Descriptive statistics."""`).
fn is_one_line_docstring(line: &str) -> bool {
    ["\"\"\"", "'''"]
        .iter()
        .any(|q| line.len() >= 6 && line.starts_with(q) && line.ends_with(q))
}

/// The one definition named like `symbol` (and of its kind of thing: a function for a
/// function), with its exact lines: in `named`, else among `focused`, else among the
/// project's files of `language`.
fn find_old(
    root: &Path,
    language: Language,
    named: Option<&str>,
    focused: &[String],
    symbol: &Symbol,
) -> Option<(String, String)> {
    let same_language = |p: &&String| Language::from_path(Path::new(p.as_str())) == Some(language);
    let scopes: Vec<Vec<String>> = match named {
        Some(path) => vec![vec![path.to_owned()]],
        None => vec![
            focused.iter().filter(same_language).cloned().collect(),
            project_files(root, language),
        ],
    };
    for files in scopes {
        let mut found = Vec::new();
        for path in &files {
            let Ok(text) = std::fs::read_to_string(root.join(path)) else {
                continue;
            };
            let Ok(tags) = extract(language, text.as_bytes()) else {
                continue;
            };
            for old in tags.symbols.iter().filter(|s| {
                s.name == symbol.name && s.kind.holds_methods() == symbol.kind.holds_methods()
            }) {
                let lines: Vec<&str> = text.lines().collect();
                let range = old.start_line as usize - 1..(old.end_line as usize).min(lines.len());
                found.push((path.clone(), lines[range].join("\n")));
            }
        }
        match found.len() {
            1 => return found.pop(),
            0 => continue,
            _ => return None,
        }
    }
    None
}

/// The project's files of `language`, as the workspace walk sees them.
fn project_files(root: &Path, language: Language) -> Vec<String> {
    keel_tools::walk::walker(root)
        .build()
        .flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .filter(|e| Language::from_path(e.path()) == Some(language))
        .filter_map(|e| {
            e.path()
                .strip_prefix(root)
                .ok()
                .and_then(|p| p.to_str())
                .map(str::to_owned)
        })
        .take(MAX_FILES_SEARCHED)
        .collect()
}

/// The leading whitespace of `line`.
fn indent_of(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// `lines` moved so that the first one is indented by `indent` (the others keep their
/// indentation relative to it).
fn reindent(lines: &[&str], indent: &str) -> String {
    let first = lines.first().map_or("", |l| indent_of(l));
    lines
        .iter()
        .map(|line| {
            if line.trim().is_empty() {
                String::new()
            } else {
                let rest = line
                    .strip_prefix(first)
                    .unwrap_or_else(|| line.trim_start());
                format!("{indent}{rest}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("stats")).unwrap();
        std::fs::write(
            dir.path().join("stats/central.py"),
            "\"\"\"Central tendency.\"\"\"\n\n\ndef mean(v):\n    return sum(v) / len(v)\n\n\ndef median(v):\n    s = sorted(v)\n    return s[len(s) // 2]\n\n\nclass Summary:\n    def spread(self, v):\n        return max(v) - min(v)\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("stats/other.py"),
            "def mode(v):\n    return v[0]\n",
        )
        .unwrap();
        dir
    }

    #[test]
    fn a_function_replaces_the_one_of_its_name() {
        let dir = project();
        let answer = "The even case is missing. Here is the fixed function:\n\n```python\ndef median(v):\n    s = sorted(v)\n    n = len(s)\n    if n % 2 == 0:\n        return (s[n // 2 - 1] + s[n // 2]) / 2\n    return s[n // 2]\n```";
        let edits = definition_edits(answer, dir.path(), &[]);
        let edit = &edits["stats/central.py"][0];
        assert_eq!(
            edit.old,
            "def median(v):\n    s = sorted(v)\n    return s[len(s) // 2]"
        );
        assert!(edit.new.contains("if n % 2 == 0:"), "{}", edit.new);
    }

    #[test]
    fn a_method_shown_alone_is_indented_into_its_class() {
        let dir = project();
        let answer =
            "```python\ndef spread(self, v):\n    return sorted(v)[-1] - sorted(v)[0]\n```";
        let edits = definition_edits(answer, dir.path(), &[]);
        let edit = &edits["stats/central.py"][0];
        assert_eq!(
            edit.old,
            "    def spread(self, v):\n        return max(v) - min(v)"
        );
        assert_eq!(
            edit.new,
            "    def spread(self, v):\n        return sorted(v)[-1] - sorted(v)[0]"
        );
    }

    #[test]
    fn a_class_shown_with_one_member_changes_that_member_only() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("range.js"),
            "class Range {\n  constructor (raw) {\n    this.raw = raw\n  }\n\n  test (version) {\n    return version === this.raw\n  }\n\n  toString () {\n    return this.raw\n  }\n}\n\nmodule.exports = Range\n",
        )
        .unwrap();
        let answer = "`range.js`\n```javascript\nclass Range {\n  // ...\n  test (version) {\n    return version.trim() === this.raw\n  }\n}\n```";
        let edits = definition_edits(answer, dir.path(), &[]);
        assert_eq!(
            edits["range.js"],
            [DefinitionEdit {
                path: "range.js".into(),
                old: "  test (version) {\n    return version === this.raw\n  }".into(),
                new: "  test (version) {\n    return version.trim() === this.raw\n  }".into(),
            }]
        );
        // Shown with nothing changed: no edit, and the class stays whole.
        let unchanged = "`range.js`\n```javascript\nclass Range {\n  // ...\n  toString () {\n    return this.raw\n  }\n}\n```";
        assert!(definition_edits(unchanged, dir.path(), &[]).is_empty());
    }

    #[test]
    fn scripts_unknown_names_and_other_languages_are_not_edits() {
        let dir = project();
        for answer in [
            // A script, not definitions.
            "```python\ndef median(v):\n    return 0\n\nprint(median([1, 2]))\n```",
            // No such function anywhere.
            "```python\ndef mediant(v):\n    return 0\n```",
            // Shell.
            "```bash\npytest -q\n```",
            // Unchanged.
            "```python\ndef mode(v):\n    return v[0]\n```",
        ] {
            assert!(
                definition_edits(answer, dir.path(), &[]).is_empty(),
                "{answer}"
            );
        }
        // Defined twice where it is looked up: not guessed.
        std::fs::write(
            dir.path().join("stats/again.py"),
            "def mean(v):\n    return 0\n",
        )
        .unwrap();
        let answer = "```python\ndef mean(v):\n    return 1\n```";
        assert!(definition_edits(answer, dir.path(), &[]).is_empty());
        // Unless the line before the block names the file.
        let answer = "In `stats/again.py`:\n```python\ndef mean(v):\n    return 1\n```";
        assert_eq!(definition_edits(answer, dir.path(), &[]).len(), 1);
    }
}
