//! Names the code reads that the project's documents do not use: "I set `timeout = 5` and it
//! is ignored" is a config file or README saying `timeout` where the code reads
//! `"timeout_secs"`. A small model shown both files still edits the wrong line; under the
//! compact profile, when the turn's focus holds documents (the config file or README the task
//! names), a task asking for a change has each such name replaced, before the model's first
//! call, by the one documented key it resembles in the same case (`timeout_secs` → `timeout`,
//! `PORT` → `APP_PORT`, not `port`), as Keel's own `write_file`; the model is told what was
//! changed, and gets the names it could not pair listed beside the documented names they
//! resemble. When a README table has a "default" column, the number on a changed line is set
//! to the key's documented default too. A task that renames or moves something is left
//! alone: it changes names on purpose.
//!
//! What the code reads: the words of short string literals (`"timeout_secs"`, a Go tag's
//! `json:"workers"`) and the fields it takes from an object (`json.listenPort`, `env.PORT`;
//! method calls aside) — not names the code defines, nor names written like types or
//! exported APIs (`MethodDelete`, `LRUCache`). A name is reported when the documents never use it and one of its
//! parts (`listen` + `port`) is a part of a key the documents give: a config file's words,
//! a README's backticked names and code blocks.
//!
//! Once the model has changed files and the tests pass, the same comparison runs again: names
//! still read are shown to the model once more (`NOT DONE YET`), as a rename's leftovers are.

use std::collections::BTreeSet;
use std::path::Path;

use keel_index::split_identifier;

use super::answer_review::log;
use super::test_files::is_test_path;
use super::tool_loop::TurnRun;

/// Most names one note lists.
const MAX_NAMES: usize = 6;

/// Longest string literal whose words count as names the code reads.
const MAX_LITERAL: usize = 40;

/// Name parts too common to make two names alike.
const COMMON_PARTS: &[&str] = &[
    "and", "config", "data", "default", "file", "for", "get", "json", "name", "path", "set", "the",
    "toml", "type", "value", "yaml",
];

/// One name the code reads that the documents do not use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Undocumented {
    /// The name as the code has it.
    pub(crate) name: String,
    /// The file reading it.
    pub(crate) path: String,
    /// Its 1-based line.
    pub(crate) line: usize,
    /// The line, trimmed.
    pub(crate) text: String,
    /// The documented keys it resembles.
    pub(crate) like: Vec<String>,
    /// The documents' first line using each of them, as `path: line` (duplicates once).
    pub(crate) documented: Vec<String>,
}

/// The names `code` (path, text) reads that `documents` (path, text) do not use, where a
/// documented key resembles them.
pub(crate) fn undocumented(
    documents: &[(String, String)],
    code: &[(String, String)],
) -> Vec<Undocumented> {
    let used: BTreeSet<&str> = documents.iter().flat_map(|(_, text)| words(text)).collect();
    // A name the code defines (a class, a function) is the code's own, not a setting.
    let defined: BTreeSet<String> = code
        .iter()
        .filter_map(|(path, text)| {
            let language = keel_repomap::Language::from_path(Path::new(path))?;
            keel_repomap::extract(language, text.as_bytes()).ok()
        })
        .flat_map(|tags| tags.symbols.into_iter().map(|s| s.name))
        .collect();
    let keys: BTreeSet<String> = documents
        .iter()
        .flat_map(|(path, text)| document_keys(path, text))
        .collect();
    let mut out: Vec<Undocumented> = Vec::new();
    for (path, text) in code {
        for (index, line) in text.lines().enumerate() {
            for name in read_names(line) {
                if used.contains(name)
                    || defined.contains(name)
                    || out.iter().any(|u| u.name == name)
                {
                    continue;
                }
                let like: Vec<String> = keys
                    .iter()
                    .filter(|key| key.as_str() != name && alike(key, name))
                    .cloned()
                    .collect();
                if !like.is_empty() {
                    let mut documented: Vec<String> = Vec::new();
                    for key in &like {
                        if let Some(at) = first_use(documents, key)
                            && !documented.contains(&at)
                        {
                            documented.push(at);
                        }
                    }
                    out.push(Undocumented {
                        name: name.to_owned(),
                        path: path.clone(),
                        line: index + 1,
                        text: line.trim().to_owned(),
                        like,
                        documented,
                    });
                }
            }
        }
    }
    out.truncate(MAX_NAMES);
    out
}

impl TurnRun<'_> {
    /// The turn's focused documents and code, and the names that code reads the documents
    /// never use.
    fn focus_mismatches(&self) -> (Texts, Texts, Vec<Undocumented>) {
        let paths: Vec<String> = self
            .context
            .turn_focus
            .iter()
            .map(|f| f.path().to_owned())
            .collect();
        let (documents, code) = focus_texts(&self.config.root, &paths);
        let found = undocumented(&documents, &code);
        (documents, code, found)
    }

    /// Before the model's first call, with documents in the turn's focus: replaces the names
    /// the code reads that the documents never use by the documented key each stands for
    /// (a change task only) and notes what was done and what is left.
    pub(crate) async fn documented_first(&mut self) {
        // A rename or a move changes names on purpose (and brings documents into the focus).
        if self.state.cancel.is_cancelled()
            || super::rename_check::asked_rename(&self.state.task).is_some()
            || super::move_first::asked_move(&self.state.task).is_some()
            || !self.settle_profile().await
        {
            return;
        }
        let (documents, code, found) = self.focus_mismatches();
        if found.is_empty() {
            return;
        }
        let names: Vec<&str> = found.iter().map(|u| u.name.as_str()).collect();
        log(
            self.emitter,
            format!(
                "the code reads names the documents never use: {}",
                names.join(", ")
            ),
        );
        let mut changed: Vec<(&Undocumented, String)> = Vec::new();
        let mut defaults: Vec<String> = Vec::new();
        if self.state.asks_for_change && !self.state.only_asks {
            for (n, (path, text)) in code.iter().enumerate() {
                let pairs: Vec<(&Undocumented, String)> = found
                    .iter()
                    .filter(|u| &u.path == path)
                    .filter_map(|u| Some((u, replacement(u)?)))
                    .collect();
                let Some(new) = replaced(text, &pairs) else {
                    continue;
                };
                let (new, fixed) = with_documented_defaults(&new, &pairs, &documents);
                if self
                    .write_baseline(&format!("keel_documented_{n}"), path, &new)
                    .await
                {
                    changed.extend(pairs);
                    defaults.extend(fixed);
                }
            }
        }
        let left: Vec<Undocumented> = found
            .iter()
            .filter(|u| !changed.iter().any(|(c, _)| c.name == u.name))
            .cloned()
            .collect();
        if !changed.is_empty() {
            let mut done: Vec<String> = changed
                .iter()
                .map(|(u, to)| format!("`{}` → `{to}` ({} line {})", u.name, u.path, u.line))
                .collect();
            done.extend(defaults);
            log(
                self.emitter,
                format!(
                    "read the documented names before the model's first call: {}",
                    done.join(", ")
                ),
            );
            self.state.done_by_keel.push(format!(
                "Made the code read the documented names: {}.",
                done.join(", ")
            ));
            self.context.turn_notes.push(format!(
                "## Changed by Keel\n\nKeel has already made the code read the names the documents use: {}. The files shown are up to date, and these names are right: keep them. If the documents ask for more than the code now does (a default value, another setting), change that; if nothing else differs, answer DONE.",
                done.join(", ")
            ));
        }
        let documents: Vec<String> = documents.into_iter().map(|(path, _)| path).collect();
        if let Some(note) = note(&left, &documents) {
            self.context.turn_notes.push(note);
        }
    }

    /// After an answer that ends the loop with files changed: when the code still reads
    /// names the focused documents never use, shows them to the model once; true when it did
    /// (the loop goes on).
    pub(crate) fn undocumented_leftovers(&mut self) -> bool {
        if self.state.undocumented_checked
            || !self.state.compact
            || !self.state.asks_for_change
            || self.state.cancel.is_cancelled()
            || self.state.iterations >= self.config.max_iterations
            || !self.changed_files()
        {
            return false;
        }
        self.state.undocumented_checked = true;
        let (_, code, found) = self.focus_mismatches();
        if found.is_empty() {
            return false;
        }
        for (path, content) in code
            .into_iter()
            .filter(|(path, _)| found.iter().any(|u| &u.path == path))
        {
            self.context
                .turn_focus
                .upsert(path.clone(), content.clone(), false);
            self.context.focused.upsert(path, content, false);
        }
        let names: Vec<&str> = found.iter().map(|u| u.name.as_str()).collect();
        log(
            self.emitter,
            format!(
                "the code still reads names the documents never use ({}); the model was told where",
                names.join(", ")
            ),
        );
        self.context.conversation.push_note(format!(
            "NOT DONE YET: the code still reads names the documents never use.\n\n{}\n\nMake the code read the documented names, with the documented defaults. For each file to change, write its path on a line by itself, then its complete new content in a code block.",
            listed(&found)
        ));
        true
    }
}

/// The documented key `found` stands for: the only one it resembles written in the same case
/// (all capitals, or not).
fn replacement(found: &Undocumented) -> Option<String> {
    let capitals = |name: &str| !name.chars().any(char::is_lowercase);
    let same: Vec<&String> = found
        .like
        .iter()
        .filter(|key| capitals(key) == capitals(&found.name))
        .collect();
    match same.as_slice() {
        [only] => Some((*only).clone()),
        _ => None,
    }
}

/// `text` with each name of `pairs` replaced by its key, as a word, on the lines that read it
/// (`None` when nothing changed).
fn replaced(text: &str, pairs: &[(&Undocumented, String)]) -> Option<String> {
    let mut changed = false;
    let lines: Vec<String> = text
        .split_inclusive('\n')
        .map(|line| {
            let mut line = line.to_owned();
            for (found, key) in pairs {
                if read_names(&line).contains(&found.name.as_str()) {
                    line = replace_word(&line, &found.name, key);
                    changed = true;
                }
            }
            line
        })
        .collect();
    changed.then(|| lines.concat())
}

/// `text` (names already replaced) with the number on each line that reads a documented key
/// set to the default a document's table gives for that key (a column headed "default"),
/// when the line holds exactly one number and it differs; what was changed, in words.
fn with_documented_defaults(
    text: &str,
    pairs: &[(&Undocumented, String)],
    documents: &[(String, String)],
) -> (String, Vec<String>) {
    let mut fixed = Vec::new();
    let lines: Vec<String> = text
        .split_inclusive('\n')
        .enumerate()
        .map(|(index, line)| {
            let mut line = line.to_owned();
            for (found, key) in pairs {
                if found.line != index + 1 {
                    continue;
                }
                let Some(default) = documented_default(documents, key) else {
                    continue;
                };
                let only = match numbers(&line).as_slice() {
                    [only] if *only != default => (*only).to_owned(),
                    _ => continue,
                };
                fixed.push(format!(
                    "`{only}` → `{default}`, the documented default of `{key}` ({} line {})",
                    found.path, found.line
                ));
                line = replace_word(&line, &only, &default);
            }
            line
        })
        .collect();
    (lines.concat(), fixed)
}

/// The default a Markdown table in `documents` gives for `key`: the cell under a header
/// holding "default", in the row naming `key`, when it is a number.
fn documented_default(documents: &[(String, String)], key: &str) -> Option<String> {
    let cells = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().trim_matches('`').to_owned())
            .collect()
    };
    for (_, text) in documents {
        let mut column: Option<usize> = None;
        for line in text.lines() {
            if !line.trim_start().starts_with('|') {
                column = None;
                continue;
            }
            let row = cells(line);
            if row.iter().all(|c| c.chars().all(|ch| "-: ".contains(ch))) {
                continue;
            }
            let Some(at) = column else {
                column = row
                    .iter()
                    .position(|c| c.to_lowercase().contains("default"));
                continue;
            };
            let names_key = row.iter().any(|c| words(c).any(|w| w == key));
            if let Some(value) = row.get(at).filter(|_| names_key)
                && !value.is_empty()
                && value.chars().all(|c| c.is_ascii_digit() || c == '.')
                && value.matches('.').count() <= 1
            {
                return Some(value.clone());
            }
        }
    }
    None
}

/// The number tokens of a line of code (not inside a longer word).
fn numbers(line: &str) -> Vec<&str> {
    line.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .map(|w| w.trim_matches('.'))
        .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .collect()
}

/// `line` with every whole-word `name` replaced by `with`.
fn replace_word(line: &str, name: &str, with: &str) -> String {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(line.len());
    let mut last = 0;
    for (at, _) in line.match_indices(name) {
        let before = line[..at].chars().next_back();
        let after = line[at + name.len()..].chars().next();
        if before.is_some_and(is_word) || after.is_some_and(is_word) {
            continue;
        }
        out.push_str(&line[last..at]);
        out.push_str(with);
        last = at + name.len();
    }
    out.push_str(&line[last..]);
    out
}

/// Files by path with their text.
pub(crate) type Texts = Vec<(String, String)>;

/// The documents (not code) and the code (tests aside) among `paths`, with their text.
pub(crate) fn focus_texts(root: &Path, paths: &[String]) -> (Texts, Texts) {
    let mut documents = Vec::new();
    let mut code = Vec::new();
    for path in paths {
        let Ok(text) = std::fs::read_to_string(root.join(path)) else {
            continue;
        };
        if is_document(path) {
            documents.push((path.clone(), text));
        } else if !is_test_path(path) {
            code.push((path.clone(), text));
        }
    }
    (documents, code)
}

/// The note for the model (`None` when nothing was found).
pub(crate) fn note(found: &[Undocumented], documents: &[String]) -> Option<String> {
    if found.is_empty() {
        return None;
    }
    Some(format!(
        "## Names the code reads that {} never use\n\n{}",
        documents.join(" and "),
        listed(found)
    ))
}

/// One line per name found, with the documents' lines using the names it resembles.
fn listed(found: &[Undocumented]) -> String {
    let lines: Vec<String> = found
        .iter()
        .map(|u| {
            let like: Vec<String> = u.like.iter().map(|k| format!("`{k}`")).collect();
            let documented: Vec<String> =
                u.documented.iter().map(|d| format!("\n  - {d}")).collect();
            format!(
                "- {} line {} reads `{}`: `{}`. The documents use {}:{}",
                u.path,
                u.line,
                u.name,
                u.text,
                like.join(", "),
                documented.concat()
            )
        })
        .collect();
    lines.join("\n")
}

/// The first line of `documents` using `key` as a word, as `path: line`.
fn first_use(documents: &[(String, String)], key: &str) -> Option<String> {
    documents.iter().find_map(|(path, text)| {
        text.lines()
            .find(|line| words(line).any(|w| w == key))
            .map(|line| format!("{path}: `{}`", line.trim()))
    })
}

/// Whether `path` is a document the note compares the code with: not code the repo map reads.
pub(crate) fn is_document(path: &str) -> bool {
    keel_repomap::Language::from_path(Path::new(path)).is_none()
}

/// The words (letters, digits, `_`) of `text`.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// The keys a document gives: every word of a config file; a Markdown file's backticked
/// names and the words of its code blocks.
fn document_keys(path: &str, text: &str) -> Vec<String> {
    let markdown = path.ends_with(".md") || path.ends_with(".markdown") || path.ends_with(".rst");
    let mut keys: Vec<&str> = Vec::new();
    if markdown {
        let mut in_block = false;
        for line in text.lines() {
            if line.trim_start().starts_with("```") {
                in_block = !in_block;
                continue;
            }
            if in_block {
                keys.extend(words(line));
            } else {
                for span in line.split('`').skip(1).step_by(2) {
                    keys.extend(words(span));
                }
            }
        }
    } else {
        keys.extend(words(text));
    }
    keys.into_iter()
        .filter(|k| k.len() >= 3 && k.chars().next().is_some_and(char::is_alphabetic))
        .filter(|k| !is_type_like(k))
        .map(str::to_owned)
        .collect()
}

/// The names `line` of code reads: words of its short string literals, fields it takes from
/// an object (not method calls).
fn read_names(line: &str) -> Vec<&str> {
    let mut names = Vec::new();
    for literal in literals(line) {
        if literal.len() <= MAX_LITERAL
            && literal
                .chars()
                .all(|c| c.is_alphanumeric() || "_.:/-\"".contains(c))
        {
            names.extend(words(literal));
        }
    }
    let bytes = line.as_bytes();
    for (at, _) in line.match_indices('.') {
        let object_before =
            at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
        if !object_before {
            continue;
        }
        let rest = &line[at + 1..];
        let field: &str = rest
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        let called = rest[field.len()..].trim_start().starts_with('(');
        if !field.is_empty() && !called && field.chars().next().is_some_and(char::is_alphabetic) {
            names.push(field);
        }
    }
    names
        .into_iter()
        .filter(|n| n.len() >= 3 && n.chars().next().is_some_and(char::is_alphabetic))
        .filter(|n| !is_type_like(n))
        .collect()
}

/// Whether `name` is written like a type or an exported API (`MethodDelete`, `Plan`): a
/// capital followed by small letters. Settings are `listenPort`, `timeout_secs`, `APP_PORT`.
fn is_type_like(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase) && name.chars().any(char::is_lowercase)
}

/// The contents of the quoted strings on `line` (`"…"`, `'…'`, `` `…` ``).
fn literals(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find(['"', '\'', '`']) {
        let quote = &rest[at..=at];
        rest = &rest[at + 1..];
        let Some(end) = rest.find(quote) else {
            break;
        };
        out.push(&rest[..end]);
        rest = &rest[end + 1..];
    }
    out
}

/// Whether two names share a part that is not [`COMMON_PARTS`] (case aside).
fn alike(a: &str, b: &str) -> bool {
    let parts = |name: &str| -> BTreeSet<String> {
        split_identifier(name)
            .into_iter()
            .map(str::to_lowercase)
            .filter(|p| p.len() >= 3 && !COMMON_PARTS.contains(&p.as_str()))
            .collect()
    };
    !parts(a).is_disjoint(&parts(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(path: &str, text: &str) -> (String, String) {
        (path.to_owned(), text.to_owned())
    }

    const README: &str = "# fetchbot\n\nfetchbot reads `fetchbot.toml` (or the file named by `FETCHBOT_CONFIG`):\n\n```toml\n[http]\ntimeout = 5          # seconds (default 30)\nretries = 2\n```\n";
    const TOML: &str = "[http]\ntimeout = 5\nretries = 2\nuser_agent = \"fetchbot/0.5\"\n";
    const SETTINGS: &str = "def from_dict(data):\n    http = data.get(\"http\", {})\n    return Settings(\n        timeout=float(http.get(\"timeout_secs\", Settings.timeout)),\n        retries=int(http.get(\"retries\", Settings.retries)),\n    )\n\n\ndef load(path=None):\n    path = path or os.environ.get(\"FETCHBOT_CONFIG\", DEFAULT_PATH)\n    with open(path, \"rb\") as fh:\n        return from_dict(tomllib.load(fh))\n";

    #[test]
    fn a_literal_key_the_config_does_not_have_is_found() {
        let found = undocumented(
            &[doc("README.md", README), doc("fetchbot.toml", TOML)],
            &[doc("fetchbot/settings.py", SETTINGS)],
        );
        assert_eq!(
            found,
            vec![Undocumented {
                name: "timeout_secs".to_owned(),
                path: "fetchbot/settings.py".to_owned(),
                line: 4,
                text: "timeout=float(http.get(\"timeout_secs\", Settings.timeout)),".to_owned(),
                like: vec!["timeout".to_owned()],
                documented: vec![
                    "README.md: `timeout = 5          # seconds (default 30)`".to_owned()
                ],
            }]
        );
        insta::assert_snapshot!(
            note(
                &found,
                &["fetchbot.toml".to_owned(), "README.md".to_owned()]
            )
            .unwrap_or_default()
        );
    }

    #[test]
    fn fields_read_from_objects_are_names_too() {
        let readme = "| setting | file key | environment variable |\n|---|---|---|\n| port | `port` | `APP_PORT` |\n| log level | `logLevel` | `LOG_LEVEL` |\n";
        let config = "const config = {\n  port: json.listenPort ?? 3000,\n  logLevel: json.logLevel ?? 'info',\n}\nif (env.PORT !== undefined) config.port = env.PORT\nconst text = fs.readFileSync(file, 'utf8')\n";
        let found = undocumented(&[doc("README.md", readme)], &[doc("src/config.js", config)]);
        let names: Vec<(&str, usize)> = found.iter().map(|u| (u.name.as_str(), u.line)).collect();
        assert_eq!(names, vec![("listenPort", 2), ("PORT", 5)]);
        assert_eq!(
            found[1].like,
            vec!["APP_PORT".to_owned(), "port".to_owned()]
        );
    }

    #[test]
    fn each_name_is_replaced_by_the_key_written_in_its_case() {
        let readme = "| port | `port` | `APP_PORT` |\n";
        let config = "const config = {\n  port: json.listenPort ?? 3000,\n}\nif (env.PORT !== undefined) config.port = env.PORT\nconst REPORT = 1\n";
        let found = undocumented(&[doc("README.md", readme)], &[doc("src/config.js", config)]);
        let pairs: Vec<(&Undocumented, String)> = found
            .iter()
            .filter_map(|u| Some((u, replacement(u)?)))
            .collect();
        assert_eq!(
            replaced(config, &pairs).as_deref(),
            Some(
                "const config = {\n  port: json.port ?? 3000,\n}\nif (env.APP_PORT !== undefined) config.port = env.APP_PORT\nconst REPORT = 1\n"
            )
        );
        let table = "| setting | file key | environment variable | default |\n|---|---|---|---|\n| port | `port` | `APP_PORT` | 8080 |\n| host | `host` | `APP_HOST` | `127.0.0.1` |\n";
        let documents = [doc("README.md", table)];
        let (text, fixed) = with_documented_defaults(
            &replaced(config, &pairs).unwrap_or_default(),
            &pairs,
            &documents,
        );
        assert!(text.contains("port: json.port ?? 8080,"), "{text}");
        assert_eq!(
            fixed,
            vec![
                "`3000` → `8080`, the documented default of `port` (src/config.js line 2)"
                    .to_owned()
            ]
        );
        assert_eq!(documented_default(&documents, "host"), None, "not a number");
        assert_eq!(
            documented_default(&documents, "APP_PORT").as_deref(),
            Some("8080")
        );
        let settings = undocumented(
            &[doc("README.md", README), doc("fetchbot.toml", TOML)],
            &[doc("fetchbot/settings.py", SETTINGS)],
        );
        assert_eq!(replacement(&settings[0]).as_deref(), Some("timeout"));
        let two = Undocumented {
            like: vec!["port".to_owned(), "listen".to_owned()],
            ..settings[0].clone()
        };
        assert_eq!(replacement(&two), None);
    }

    #[test]
    fn library_api_names_are_not_settings() {
        let readme = "Store API: `(*Store).Delete(id)`.\n";
        let handlers = "case http.MethodDelete:\n\tnote := store.Note{}\n";
        let found = undocumented(
            &[doc("README.md", readme)],
            &[doc("api/handlers.go", handlers)],
        );
        assert!(found.is_empty(), "{found:?}");
        let readme = "`LRUCache` keeps the newest entries.\n";
        let memo = "const hit = this.cache.get(key)\n";
        let found = undocumented(&[doc("README.md", readme)], &[doc("src/memo.ts", memo)]);
        assert!(found.is_empty(), "a type is not a setting: {found:?}");
    }

    #[test]
    fn names_the_code_defines_are_not_settings() {
        let readme = "`plan` makes the steps.\n";
        let init = "from .plan import Plan, make_plan\n\n__all__ = [\"Plan\", \"make_plan\"]\n";
        let plan = "class Plan:\n    pass\n\n\ndef make_plan():\n    return Plan()\n";
        let found = undocumented(
            &[doc("README.md", readme)],
            &[
                doc("deployer/__init__.py", init),
                doc("deployer/plan.py", plan),
            ],
        );
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn documented_and_unrelated_names_say_nothing() {
        let found = undocumented(
            &[doc("fetchbot.toml", TOML)],
            &[doc(
                "app.py",
                "x = cfg.get(\"retries\")\nmode = \"rb\"\nlog.info(\"started\")\n",
            )],
        );
        assert!(found.is_empty(), "{found:?}");
        assert_eq!(note(&[], &["a.toml".to_owned()]), None);
    }

    #[test]
    fn documents_are_what_the_map_does_not_read() {
        assert!(is_document("README.md"));
        assert!(is_document("config/default.json"));
        assert!(!is_document("src/config.js"));
    }
}
