//! Moving top-level functions and classes from one Python module into a new one, the way a
//! refactoring tool does it: the definitions go with what only they use (a compiled pattern,
//! a private helper) and the imports they need; what the old module still uses stays there
//! and the new module imports it; the old module drops the imports and `__all__` entries it
//! no longer needs; and every `from … import` of a moved name in the project is pointed at
//! the new module, in the style it was written (`from .utils import` → `from .durations
//! import`, `from pkg.utils import` → `from pkg.durations import`).
//!
//! What stays in the old module and uses a moved name imports it from the new one; a module
//! imported whole from its package and used as `utils.parse_duration` is used as
//! `durations.parse_duration`, the new module imported the same way.
//!
//! The reading is line-based (top-level statements start at column 0, outside brackets and
//! triple-quoted strings), which is what Python's own layout rules guarantee. What it cannot
//! rewrite (`import pkg.utils` used by its dotted path) is left for the model, which is told
//! the move was made.

use std::collections::{BTreeMap, BTreeSet};

use super::identifier_rename::identifiers;
use super::move_first::{MoveError, Moved};

/// A top-level statement of a module, with the comments and decorators above it.
#[derive(Debug, Clone)]
struct Statement {
    /// First line (0-based).
    start: usize,
    /// One past its last non-blank line.
    end: usize,
    kind: Kind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    /// `import …` / `from … import …`.
    Import,
    /// `def`/`class` (decorated or not), by name.
    Definition(String),
    /// `NAME = …`, by the names it binds.
    Assignment(Vec<String>),
    /// Anything else (a docstring, a call, an `if __name__` block).
    Other,
}

/// Moves `names` (top-level definitions of one module of `files`) into the new module
/// `target`; `files` holds the project's Python files by path.
pub(crate) fn move_definitions(
    files: &BTreeMap<String, String>,
    names: &[String],
    target: &str,
) -> Result<Moved, MoveError> {
    if !target.ends_with(".py") || target.starts_with('/') || target.contains("..") {
        return Err(MoveError::BadTarget(target.to_owned()));
    }
    if files.get(target).is_some_and(|t| !t.trim().is_empty()) {
        return Err(MoveError::TargetExists(target.to_owned()));
    }
    let listed = names.join(", ");
    let sources: Vec<&String> = files
        .iter()
        .filter(|(path, text)| {
            path.as_str() != target && {
                let defined = definitions(text);
                names.iter().all(|n| defined.contains(n.as_str()))
            }
        })
        .map(|(path, _)| path)
        .collect();
    let [source] = sources.as_slice() else {
        return Err(MoveError::NoSource(listed));
    };
    let source = (*source).clone();
    let text = &files[&source];
    let lines: Vec<&str> = text.lines().collect();
    let statements = statements(&lines);
    let moving = moving_set(&lines, &statements, names);
    let along: Vec<String> = statements
        .iter()
        .enumerate()
        .filter(|(i, _)| moving.contains(i))
        .flat_map(|(_, s)| bound_names(&s.kind))
        .filter(|n| !names.contains(n))
        .collect();

    let moved_text = joined(&lines, &statements, |i| moving.contains(&i));
    let moved_words = identifiers(&moved_text);
    let kept_text = joined(&lines, &statements, |i| {
        !moving.contains(&i) && statements[i].kind != Kind::Import
    });
    let kept_words = identifiers(&kept_text);

    // The new module: the imports the moved code uses, what it uses of the old module, then
    // the moved statements.
    let mut head: Vec<String> = Vec::new();
    for s in statements.iter().filter(|s| s.kind == Kind::Import) {
        let statement = lines[s.start..s.end].join("\n");
        if let Some(line) = import_keeping(&statement, |name| moved_words.contains(name)) {
            head.push(line);
        }
    }
    let needed: Vec<String> = statements
        .iter()
        .enumerate()
        .filter(|(i, s)| !moving.contains(i) && s.kind != Kind::Import)
        .flat_map(|(_, s)| bound_names(&s.kind))
        .filter(|n| moved_words.contains(n.as_str()))
        .collect();
    if !needed.is_empty() {
        head.push(format!(
            "from {} import {}",
            relative_module(&source, target),
            needed.join(", ")
        ));
    }
    let mut new_module = String::new();
    if !head.is_empty() {
        new_module.push_str(&head.join("\n"));
        new_module.push_str("\n\n\n");
    }
    let bodies: Vec<String> = statements
        .iter()
        .enumerate()
        .filter(|(i, _)| moving.contains(i))
        .map(|(_, s)| lines[s.start..s.end].join("\n"))
        .collect();
    new_module.push_str(&bodies.join("\n\n\n"));
    new_module.push('\n');

    // The old module without them, its imports and `__all__` trimmed.
    let moved_names: BTreeSet<String> = statements
        .iter()
        .enumerate()
        .filter(|(i, _)| moving.contains(i))
        .flat_map(|(_, s)| bound_names(&s.kind))
        .collect();
    let mut old_module = trimmed_source(
        &lines,
        &statements,
        &moving,
        &kept_words,
        &moved_words,
        &moved_names,
    );
    // What stays and uses a moved name imports it from the new module.
    let still_used: Vec<&str> = moved_names
        .iter()
        .filter(|n| kept_words.contains(n.as_str()))
        .map(String::as_str)
        .collect();
    if !still_used.is_empty() {
        let import = format!(
            "from {} import {}",
            relative_module(target, &source),
            still_used.join(", ")
        );
        old_module = with_import(&old_module, &import);
    }

    let mut out = BTreeMap::new();
    out.insert(target.to_owned(), new_module);
    out.insert(source.clone(), old_module);
    for (path, text) in files {
        if *path == source || path == target {
            continue;
        }
        let imported = repointed(path, text, &source, target, &moved_names);
        let current = imported.as_deref().unwrap_or(text);
        let attributes = reattributed(path, current, &source, target, &moved_names);
        if let Some(new) = attributes.or(imported) {
            out.insert(path.clone(), new);
        }
    }
    Ok(Moved { files: out, along })
}

/// The names `text` defines at top level with `def` or `class`.
fn definitions(text: &str) -> BTreeSet<String> {
    let lines: Vec<&str> = text.lines().collect();
    statements(&lines)
        .into_iter()
        .filter_map(|s| match s.kind {
            Kind::Definition(name) => Some(name),
            _ => None,
        })
        .collect()
}

/// The top-level statements of a module's `lines`.
fn statements(lines: &[&str]) -> Vec<Statement> {
    let starts = statement_starts(lines);
    let mut out = Vec::new();
    for (n, &start) in starts.iter().enumerate() {
        let next = starts.get(n + 1).copied().unwrap_or(lines.len());
        // Comments right above the next statement are its own.
        let mut end = next;
        while end > start + 1 && is_blank_or_comment(lines[end - 1]) {
            end -= 1;
        }
        let mut first = start;
        while first > 0
            && lines[first - 1].starts_with('#')
            && out.last().is_none_or(|s: &Statement| s.end < first)
        {
            first -= 1;
        }
        out.push(Statement {
            start: first,
            end,
            kind: kind_of(&lines[start..end]),
        });
    }
    out
}

/// Lines where a top-level statement starts: column 0, not blank or a comment, outside
/// brackets and triple-quoted strings, not a decorated definition's `def` line.
fn statement_starts(lines: &[&str]) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut depth: i32 = 0;
    let mut triple: Option<&str> = None;
    let mut decorated = false;
    for (i, line) in lines.iter().enumerate() {
        let top = depth == 0 && triple.is_none();
        if top
            && !line.is_empty()
            && !line.starts_with(char::is_whitespace)
            && !line.starts_with('#')
            && !line.starts_with([')', ']', '}'])
        {
            if !decorated {
                starts.push(i);
            }
            decorated = line.starts_with('@');
        }
        scan(line, &mut depth, &mut triple);
    }
    starts
}

/// Follows brackets and triple-quoted strings through `line`.
fn scan<'a>(line: &'a str, depth: &mut i32, triple: &mut Option<&'a str>) {
    let mut rest = line;
    while !rest.is_empty() {
        if let Some(quote) = *triple {
            match rest.find(quote) {
                Some(at) => {
                    rest = &rest[at + 3..];
                    *triple = None;
                }
                None => return,
            }
            continue;
        }
        let Some(c) = rest.chars().next() else {
            return;
        };
        match c {
            '#' => return,
            '"' | '\'' => {
                let quote = if c == '"' { "\"\"\"" } else { "'''" };
                if rest.starts_with(quote) {
                    *triple = Some(quote);
                    rest = &rest[3..];
                } else {
                    // A one-line string: skip to its closing quote.
                    let body = &rest[1..];
                    let mut escaped = false;
                    let mut close = body.len();
                    for (i, ch) in body.char_indices() {
                        if escaped {
                            escaped = false;
                        } else if ch == '\\' {
                            escaped = true;
                        } else if ch == c {
                            close = i + 1;
                            break;
                        }
                    }
                    rest = body.get(close..).unwrap_or("");
                }
            }
            '(' | '[' | '{' => {
                *depth += 1;
                rest = &rest[1..];
            }
            ')' | ']' | '}' => {
                *depth -= 1;
                rest = &rest[1..];
            }
            _ => rest = &rest[c.len_utf8()..],
        }
    }
}

fn is_blank_or_comment(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// What a statement of `lines` is.
fn kind_of(lines: &[&str]) -> Kind {
    let Some(code) = lines
        .iter()
        .find(|l| !l.starts_with('#') && !l.starts_with('@'))
    else {
        return Kind::Other;
    };
    let first = lines
        .iter()
        .find(|l| !l.starts_with('#'))
        .copied()
        .unwrap_or("");
    if first.starts_with("import ") || first.starts_with("from ") {
        return Kind::Import;
    }
    for keyword in ["def ", "async def ", "class "] {
        if let Some(rest) = code.strip_prefix(keyword) {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                return Kind::Definition(name);
            }
        }
    }
    let Some((target, _)) = code.split_once('=') else {
        return Kind::Other;
    };
    if code[target.len()..].starts_with("==") {
        return Kind::Other;
    }
    let target = target.split(':').next().unwrap_or(target);
    let names: Vec<String> = target
        .split(',')
        .map(|n| n.trim().trim_matches(['(', ')']).trim().to_owned())
        .collect();
    if names
        .iter()
        .all(|n| super::identifier_rename::is_identifier(n))
    {
        Kind::Assignment(names)
    } else {
        Kind::Other
    }
}

/// The names a statement binds.
fn bound_names(kind: &Kind) -> Vec<String> {
    match kind {
        Kind::Definition(name) => vec![name.clone()],
        Kind::Assignment(names) => names.clone(),
        _ => Vec::new(),
    }
}

/// Indexes of the statements that move: the definitions named, and — until nothing changes —
/// each definition or assignment the moving code uses and the staying code does not.
fn moving_set(lines: &[&str], statements: &[Statement], names: &[String]) -> BTreeSet<usize> {
    let mut moving: BTreeSet<usize> = statements
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(&s.kind, Kind::Definition(n) if names.contains(n)))
        .map(|(i, _)| i)
        .collect();
    loop {
        let moved_words: BTreeSet<String> =
            identifiers(&joined(lines, statements, |i| moving.contains(&i)))
                .into_iter()
                .map(str::to_owned)
                .collect();
        let kept_text = joined(lines, statements, |i| {
            !moving.contains(&i) && statements[i].kind != Kind::Import
        });
        let mut grew = false;
        for (i, s) in statements.iter().enumerate() {
            if moving.contains(&i) || matches!(s.kind, Kind::Import | Kind::Other) {
                continue;
            }
            let bound = bound_names(&s.kind);
            let own = lines[s.start..s.end].join("\n");
            let used_by_moving = bound.iter().any(|n| moved_words.contains(n));
            // Used by what stays: outside its own statement.
            let kept_words = identifiers(&kept_text.replacen(&own, "", 1))
                .into_iter()
                .map(str::to_owned)
                .collect::<BTreeSet<String>>();
            let used_by_staying = bound.iter().any(|n| kept_words.contains(n));
            if used_by_moving && !used_by_staying {
                moving.insert(i);
                grew = true;
            }
        }
        if !grew {
            return moving;
        }
    }
}

/// The statements `pick` chooses, joined.
fn joined(lines: &[&str], statements: &[Statement], pick: impl Fn(usize) -> bool) -> String {
    statements
        .iter()
        .enumerate()
        .filter(|(i, _)| pick(*i))
        .map(|(_, s)| lines[s.start..s.end].join("\n"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// An import `statement` keeping only the names `keep` accepts; `None` when none is left.
/// `from m import a, b as c` keeps by the bound name; `import a.b` by `a`.
fn import_keeping(statement: &str, keep: impl Fn(&str) -> bool) -> Option<String> {
    let flat = statement
        .replace(['(', ')', '\\'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if let Some(rest) = flat.strip_prefix("from ") {
        let (module, items) = rest.split_once(" import ")?;
        let items: Vec<&str> = items
            .split(',')
            .map(str::trim)
            .filter(|i| !i.is_empty())
            .collect();
        if items.contains(&"*") {
            return Some(statement.to_owned());
        }
        let kept: Vec<&str> = items
            .iter()
            .copied()
            .filter(|item| keep(bound_by(item)))
            .collect();
        if kept.is_empty() {
            return None;
        }
        if kept.len() == items.len() {
            return Some(statement.to_owned());
        }
        return Some(format!("from {module} import {}", kept.join(", ")));
    }
    let rest = flat.strip_prefix("import ")?;
    let items: Vec<&str> = rest.split(',').map(str::trim).collect();
    let kept: Vec<&str> = items
        .iter()
        .copied()
        .filter(|item| keep(bound_by(item).split('.').next().unwrap_or("")))
        .collect();
    match kept.len() {
        0 => None,
        n if n == items.len() => Some(statement.to_owned()),
        _ => Some(format!("import {}", kept.join(", "))),
    }
}

/// The name an import item binds: `b as c` binds `c`.
fn bound_by(item: &str) -> &str {
    match item.split_once(" as ") {
        Some((_, alias)) => alias.trim(),
        None => item.trim(),
    }
}

/// How the module at `target` imports the one at `source`: relative when they share a
/// folder (`from .utils`), else by its dotted path.
fn relative_module(source: &str, target: &str) -> String {
    let folder = |p: &str| p.rsplit_once('/').map_or("", |(f, _)| f).to_owned();
    if folder(source) == folder(target) {
        format!(".{}", stem(source))
    } else {
        dotted(source)
    }
}

fn stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.strip_suffix(".py").unwrap_or(name)
}

/// `pkg/utils.py` → `pkg.utils`.
fn dotted(path: &str) -> String {
    path.strip_suffix(".py").unwrap_or(path).replace('/', ".")
}

/// The old module without the moving statements (and the blank lines after each), its
/// imports trimmed of names only the moved code used and `__all__` of the moved names.
fn trimmed_source(
    lines: &[&str],
    statements: &[Statement],
    moving: &BTreeSet<usize>,
    kept_words: &BTreeSet<&str>,
    moved_words: &BTreeSet<&str>,
    moved_names: &BTreeSet<String>,
) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    let mut n = 0;
    while i < lines.len() {
        match statements.get(n) {
            Some(s) if i == s.start => {
                let next = statements.get(n + 1).map_or(lines.len(), |s| s.start);
                if moving.contains(&n) {
                    // Drop it and the blank lines up to the next statement.
                    i = next;
                } else {
                    let text = lines[s.start..s.end].join("\n");
                    let text = match s.kind {
                        Kind::Import => import_keeping(&text, |name| {
                            kept_words.contains(name) || !moved_words.contains(name)
                        }),
                        _ if text.starts_with("__all__") => {
                            Some(without_listed(&text, moved_names))
                        }
                        _ => Some(text),
                    };
                    if let Some(text) = text {
                        out.extend(text.lines().map(str::to_owned));
                        out.extend(lines[s.end..next].iter().map(|l| (*l).to_owned()));
                    }
                    i = next;
                }
                n += 1;
            }
            _ => {
                out.push(lines[i].to_owned());
                i += 1;
            }
        }
    }
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    // Imports dropped at the top leave runs of blank lines: at most two.
    let mut squeezed: Vec<String> = Vec::new();
    for line in out {
        let blanks = squeezed
            .iter()
            .rev()
            .take_while(|l| l.trim().is_empty())
            .count();
        if line.trim().is_empty() && (blanks >= 2 || squeezed.is_empty()) {
            continue;
        }
        // A top-level definition keeps its two blank lines above (PEP 8).
        let opens_definition = ["def ", "async def ", "class ", "@"]
            .iter()
            .any(|k| line.starts_with(k));
        let after_code = squeezed
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .is_some_and(|l| !l.starts_with('@') && !l.starts_with('#'));
        if opens_definition && after_code {
            for _ in blanks..2 {
                squeezed.push(String::new());
            }
        }
        squeezed.push(line);
    }
    let mut text = squeezed.join("\n");
    text.push('\n');
    text
}

/// An `__all__` list without the quoted `names`.
fn without_listed(text: &str, names: &BTreeSet<String>) -> String {
    let mut out = text.to_owned();
    for name in names {
        for quote in ['"', '\''] {
            let item = format!("{quote}{name}{quote}");
            for pattern in [
                format!("{item}, "),
                format!(", {item}"),
                format!("{item},"),
                item.clone(),
            ] {
                out = out.replace(&pattern, "");
            }
        }
    }
    out
}

/// `text` (the file at `path`) with its imports of `moved` names from `source` pointed at
/// `target`; `None` when it has none.
fn repointed(
    path: &str,
    text: &str,
    source: &str,
    target: &str,
    moved: &BTreeSet<String>,
) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = Vec::new();
    let mut changed = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let Some(rest) = trimmed.strip_prefix("from ") else {
            out.push(line.to_owned());
            i += 1;
            continue;
        };
        // The whole statement: to the closing bracket.
        let mut end = i + 1;
        if rest.contains('(') && !rest.contains(')') {
            while end < lines.len() && !lines[end - 1].contains(')') {
                end += 1;
            }
        }
        let statement = lines[i..end].join("\n");
        let flat = statement
            .replace(['(', ')', '\\'], " ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let parsed = flat
            .strip_prefix("from ")
            .and_then(|r| r.split_once(" import "));
        let Some((module, items)) = parsed else {
            out.extend(lines[i..end].iter().map(|l| (*l).to_owned()));
            i = end;
            continue;
        };
        let items: Vec<&str> = items
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        let name_of = |item: &str| item.split(" as ").next().unwrap_or(item).trim().to_owned();
        let (going, staying): (Vec<&str>, Vec<&str>) = items
            .iter()
            .partition(|item| moved.contains(&name_of(item)));
        match (resolves_to(path, module), going.is_empty()) {
            (Some(resolved), false) if resolved == source => {
                changed = true;
                if !staying.is_empty() {
                    out.push(format!(
                        "{indent}from {module} import {}",
                        staying.join(", ")
                    ));
                }
                out.push(format!(
                    "{indent}from {} import {}",
                    module_like(module, source, target),
                    going.join(", ")
                ));
            }
            _ => out.extend(lines[i..end].iter().map(|l| (*l).to_owned())),
        }
        i = end;
    }
    if !changed {
        return None;
    }
    let mut new = out.join("\n");
    if text.ends_with('\n') {
        new.push('\n');
    }
    Some(new)
}

/// `text` with `import` after its last top-level import (or its docstring, or at the top).
fn with_import(text: &str, import: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let statements = statements(&lines);
    let at = statements
        .iter()
        .take_while(|s| matches!(s.kind, Kind::Import | Kind::Other))
        .filter(|s| s.kind == Kind::Import)
        .last()
        .or_else(|| statements.first().filter(|s| s.kind == Kind::Other))
        .map_or(0, |s| s.end);
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    out.insert(at, import.to_owned());
    let mut joined = out.join("\n");
    joined.push('\n');
    joined
}

/// `text` (the file at `path`) with uses of moved names through the old module
/// (`from . import models` … `models.is_valid_email(…)`) going through the new one, which it
/// then imports the same way; `None` when it has none.
fn reattributed(
    path: &str,
    text: &str,
    source: &str,
    target: &str,
    moved: &BTreeSet<String>,
) -> Option<String> {
    let (old_stem, new_stem) = (stem(source), stem(target));
    let folder = |p: &str| p.rsplit_once('/').map_or("", |(f, _)| f).to_owned();
    if folder(source) != folder(target) {
        return None;
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = Vec::new();
    let mut aliases: Vec<String> = Vec::new();
    for line in &lines {
        out.push((*line).to_owned());
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let Some((module, items)) = trimmed
            .strip_prefix("from ")
            .and_then(|r| r.split_once(" import "))
        else {
            continue;
        };
        let module = module.trim();
        let full = if module.ends_with('.') {
            format!("{module}{old_stem}")
        } else {
            format!("{module}.{old_stem}")
        };
        if resolves_to(path, &full).as_deref() != Some(source) {
            continue;
        }
        for item in items.split(',').map(str::trim) {
            let (name, alias) = match item.split_once(" as ") {
                Some((name, alias)) => (name.trim(), alias.trim()),
                None => (item, item),
            };
            if name == old_stem {
                aliases.push(alias.to_owned());
                out.push(format!("{indent}from {module} import {new_stem}"));
            }
        }
    }
    if aliases.is_empty() {
        return None;
    }
    let mut new = out.join("\n");
    if text.ends_with('\n') {
        new.push('\n');
    }
    let mut replaced = false;
    for alias in &aliases {
        for name in moved {
            let Ok(use_re) = regex::Regex::new(&format!(
                r"\b{}\.{}\b",
                regex::escape(alias),
                regex::escape(name)
            )) else {
                continue;
            };
            if use_re.is_match(&new) {
                replaced = true;
                new = use_re
                    .replace_all(&new, format!("{new_stem}.{name}").as_str())
                    .into_owned();
            }
        }
    }
    if !replaced {
        return None;
    }
    // The old module's import stays only if something still goes through it.
    let still = aliases.iter().any(|alias| {
        new.match_indices(&format!("{alias}.")).any(|(i, _)| {
            !new[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
        })
    });
    if !still {
        let kept: Vec<&str> = new
            .lines()
            .filter(|l| {
                let t = l.trim_start();
                !(t.starts_with("from ")
                    && aliases
                        .iter()
                        .any(|a| t.ends_with(&format!(" import {a}")) && a == old_stem))
            })
            .collect();
        let mut joined = kept.join("\n");
        if new.ends_with('\n') {
            joined.push('\n');
        }
        new = joined;
    }
    Some(new)
}

/// The file a `from module import` in the file at `path` names: `pkg.utils` →
/// `pkg/utils.py`, `.utils` → beside `path`, `..x` → one folder up.
fn resolves_to(path: &str, module: &str) -> Option<String> {
    let dots = module.chars().take_while(|c| *c == '.').count();
    let name = &module[dots..];
    if dots == 0 {
        return Some(format!("{}.py", name.replace('.', "/")));
    }
    let mut folder: Vec<&str> = path.split('/').collect();
    folder.pop();
    for _ in 1..dots {
        folder.pop()?;
    }
    if !name.is_empty() {
        folder.extend(name.split('.'));
    }
    Some(format!("{}.py", folder.join("/")))
}

/// `target`'s module written as `module` (which names `source`) is: relative stays relative
/// (the last part swapped when they share a folder), dotted stays dotted.
fn module_like(module: &str, source: &str, target: &str) -> String {
    let folder = |p: &str| p.rsplit_once('/').map_or("", |(f, _)| f).to_owned();
    if module.starts_with('.') && folder(source) == folder(target) {
        let cut = module.rfind(stem(source)).unwrap_or(module.len());
        format!("{}{}", &module[..cut], stem(target))
    } else {
        dotted(target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UTILS: &str = "\"\"\"Assorted helpers.\"\"\"\nimport re\n\n_DURATION = re.compile(r\"^(\\d+)h$\")\n\n\ndef parse_duration(text):\n    \"\"\"Parse.\"\"\"\n    match = _DURATION.match(text.strip())\n    return int(match.group(1)) * 3600\n\n\ndef format_duration(seconds):\n    return f\"{seconds // 3600}h\"\n\n\ndef truncate(text, width):\n    \"\"\"Cut ``text``.\"\"\"\n    return text[:width]\n";

    fn project() -> BTreeMap<String, String> {
        BTreeMap::from([
            ("tasklog/utils.py".to_owned(), UTILS.to_owned()),
            (
                "tasklog/report.py".to_owned(),
                "\"\"\"Reports.\"\"\"\nfrom .utils import format_duration, truncate\n\n\ndef line(s):\n    return truncate(format_duration(s), 9)\n".to_owned(),
            ),
            (
                "tasklog/cli.py".to_owned(),
                "import sys\n\nfrom tasklog.utils import parse_duration\n".to_owned(),
            ),
            (
                "tests/test_utils.py".to_owned(),
                "from tasklog.utils import (\n    format_duration,\n    parse_duration,\n    truncate,\n)\n".to_owned(),
            ),
        ])
    }

    fn names() -> Vec<String> {
        vec!["parse_duration".to_owned(), "format_duration".to_owned()]
    }

    #[test]
    fn definitions_move_with_what_only_they_use() {
        let moved = move_definitions(&project(), &names(), "tasklog/durations.py").unwrap();
        assert_eq!(moved.along, ["_DURATION"]);
        insta::assert_snapshot!("new_module", moved.files["tasklog/durations.py"]);
        insta::assert_snapshot!("old_module", moved.files["tasklog/utils.py"]);
    }

    #[test]
    fn imports_point_at_the_new_module_in_their_own_style() {
        let moved = move_definitions(&project(), &names(), "tasklog/durations.py").unwrap();
        assert_eq!(
            moved.files["tasklog/report.py"],
            "\"\"\"Reports.\"\"\"\nfrom .utils import truncate\nfrom .durations import format_duration\n\n\ndef line(s):\n    return truncate(format_duration(s), 9)\n"
        );
        assert_eq!(
            moved.files["tasklog/cli.py"],
            "import sys\n\nfrom tasklog.durations import parse_duration\n"
        );
        assert_eq!(
            moved.files["tests/test_utils.py"],
            "from tasklog.utils import truncate\nfrom tasklog.durations import format_duration, parse_duration\n"
        );
    }

    #[test]
    fn what_the_old_module_still_uses_is_imported_from_it() {
        let mut files = project();
        files.insert(
            "tasklog/utils.py".to_owned(),
            format!("{UTILS}\n\ndef hours(text):\n    return _DURATION.match(text)\n"),
        );
        let moved = move_definitions(&files, &names(), "tasklog/durations.py").unwrap();
        assert!(moved.along.is_empty());
        let new = &moved.files["tasklog/durations.py"];
        assert!(new.starts_with("from .utils import _DURATION\n"), "{new}");
        assert!(moved.files["tasklog/utils.py"].contains("import re\n"));
    }

    #[test]
    fn the_old_module_imports_what_it_still_uses_and_module_uses_follow() {
        let mut files = project();
        files.insert(
            "tasklog/utils.py".to_owned(),
            format!("{UTILS}\n\ndef describe(s):\n    return format_duration(s)\n"),
        );
        files.insert(
            "tasklog/cli.py".to_owned(),
            "from . import utils\n\n\ndef main(a):\n    return utils.parse_duration(a), utils.truncate(a, 3)\n".to_owned(),
        );
        let moved = move_definitions(&files, &names(), "tasklog/durations.py").unwrap();
        let old = &moved.files["tasklog/utils.py"];
        assert!(
            old.starts_with(
                "\"\"\"Assorted helpers.\"\"\"\nfrom .durations import format_duration\n"
            ),
            "{old}"
        );
        assert_eq!(
            moved.files["tasklog/cli.py"],
            "from . import utils\nfrom . import durations\n\n\ndef main(a):\n    return durations.parse_duration(a), utils.truncate(a, 3)\n"
        );
        files.insert(
            "tasklog/cli.py".to_owned(),
            "from tasklog import utils\n\nx = utils.parse_duration(\"1h\")\n".to_owned(),
        );
        let moved = move_definitions(&files, &names(), "tasklog/durations.py").unwrap();
        assert_eq!(
            moved.files["tasklog/cli.py"],
            "from tasklog import durations\n\nx = durations.parse_duration(\"1h\")\n"
        );
    }

    #[test]
    fn all_loses_the_moved_names() {
        let mut files = project();
        files.insert(
            "tasklog/utils.py".to_owned(),
            UTILS.replace(
                "import re\n",
                "import re\n\n__all__ = [\"parse_duration\", \"format_duration\", \"truncate\"]\n",
            ),
        );
        let moved = move_definitions(&files, &names(), "tasklog/durations.py").unwrap();
        assert!(
            moved.files["tasklog/utils.py"].contains("__all__ = [\"truncate\"]"),
            "{}",
            moved.files["tasklog/utils.py"]
        );
    }

    #[test]
    fn a_move_that_cannot_be_made_says_why() {
        assert_eq!(
            move_definitions(&project(), &["nothing".to_owned()], "tasklog/durations.py"),
            Err(MoveError::NoSource("nothing".to_owned()))
        );
        assert_eq!(
            move_definitions(&project(), &names(), "tasklog/cli.py"),
            Err(MoveError::TargetExists("tasklog/cli.py".to_owned()))
        );
        assert_eq!(
            move_definitions(&project(), &names(), "tasklog/durations.txt"),
            Err(MoveError::BadTarget("tasklog/durations.txt".to_owned()))
        );
    }

    #[test]
    fn statements_skip_brackets_strings_and_decorators() {
        let source = "X = (\n1,\n)\nS = \"\"\"\nnot: a statement\n\"\"\"\n# about f\n@cache\ndef f():\n    pass\n";
        let lines: Vec<&str> = source.lines().collect();
        let found: Vec<(usize, usize, Kind)> = statements(&lines)
            .into_iter()
            .map(|s| (s.start, s.end, s.kind))
            .collect();
        assert_eq!(
            found,
            [
                (0, 3, Kind::Assignment(vec!["X".to_owned()])),
                (3, 6, Kind::Assignment(vec!["S".to_owned()])),
                (6, 10, Kind::Definition("f".to_owned())),
            ]
        );
    }

    #[test]
    fn modules_resolve_from_the_importing_file() {
        assert_eq!(
            resolves_to("a/b.py", ".utils").as_deref(),
            Some("a/utils.py")
        );
        assert_eq!(
            resolves_to("a/b/c.py", "..utils").as_deref(),
            Some("a/utils.py")
        );
        assert_eq!(
            resolves_to("x.py", "pkg.utils").as_deref(),
            Some("pkg/utils.py")
        );
        assert_eq!(resolves_to("x.py", "..utils"), None);
        assert_eq!(
            module_like(".utils", "a/utils.py", "a/durations.py"),
            ".durations"
        );
        assert_eq!(
            module_like("a.utils", "a/utils.py", "a/durations.py"),
            "a.durations"
        );
    }
}
