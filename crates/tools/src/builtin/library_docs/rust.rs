//! Rust crates: the README, the crate's `//!` docs, and each public item's `///` docs with its
//! signature, read from the crate's `src/` by a light line scanner (no macro expansion, no
//! re-export resolution).

use std::path::Path;

use super::digest::{DocItem, Docs};
use crate::packages::readme_in;

/// Most source files read from one crate.
const MAX_FILES: usize = 600;
/// Lines of a signature kept.
const SIGNATURE_LINES: usize = 6;

/// Item keywords a public declaration may start with, after `pub` and qualifiers.
const KEYWORDS: &[&str] = &[
    "fn", "struct", "enum", "trait", "type", "const", "static", "mod", "union", "macro",
];

/// The docs of the crate whose unpacked source is `dir`.
pub fn docs(dir: &Path) -> Docs {
    let mut docs = Docs {
        readme: readme_in(dir).and_then(|p| std::fs::read_to_string(p).ok()),
        ..Docs::default()
    };
    let src = dir.join("src");
    let mut files: Vec<_> = walkdir_rs(&src);
    files.sort();
    // lib.rs first: its `//!` is the crate's overview.
    files.sort_by_key(|p| p != &src.join("lib.rs"));
    for path in files.into_iter().take(MAX_FILES) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        docs.files += 1;
        let rel = path
            .strip_prefix(dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        let module_doc = scan(&text, &rel, &mut docs.items);
        if docs.overview.is_none() && path == src.join("lib.rs") && !module_doc.is_empty() {
            docs.overview = Some(module_doc);
        } else if !module_doc.is_empty() {
            let module = rel
                .trim_start_matches("src/")
                .trim_end_matches(".rs")
                .trim_end_matches("/mod")
                .replace('/', "::");
            docs.items.push(DocItem {
                name: module.clone(),
                signature: format!("mod {module}"),
                file: rel,
                doc: module_doc,
            });
        }
    }
    docs
}

/// Every `.rs` file under `dir`, skipping test and bench folders.
fn walkdir_rs(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).into_iter().flatten().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if !matches!(name.as_str(), "tests" | "benches" | "examples") {
                    stack.push(path);
                }
            } else if name.ends_with(".rs") {
                out.push(path);
            }
        }
    }
    out
}

/// Reads one file: returns its `//!` module docs and pushes each documented public item.
pub(crate) fn scan(text: &str, file: &str, items: &mut Vec<DocItem>) -> String {
    let mut module_doc = String::new();
    let mut doc = String::new();
    let mut exported_macro = false;
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let trimmed = lines[i].trim();
        i += 1;
        if let Some(rest) = trimmed.strip_prefix("//!") {
            module_doc.push_str(rest.strip_prefix(' ').unwrap_or(rest));
            module_doc.push('\n');
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix("///") {
            if !rest.starts_with('/') {
                doc.push_str(rest.strip_prefix(' ').unwrap_or(rest));
                doc.push('\n');
            }
            continue;
        }
        if trimmed.starts_with("#[") || trimmed.starts_with("#![") {
            exported_macro |= trimmed.contains("macro_export");
            continue;
        }
        if trimmed.is_empty() || trimmed.starts_with("//") {
            continue;
        }
        let declaration = if trimmed.starts_with("macro_rules!") && exported_macro {
            Some(("macro", trimmed))
        } else {
            public_declaration(trimmed)
        };
        if let Some((kind, rest)) = declaration
            && !doc.trim().is_empty()
            && let Some(name) = item_name(kind, rest)
        {
            let mut signature = trimmed.to_owned();
            let mut extra = 0;
            while !ends_signature(&signature) && i < lines.len() && extra < SIGNATURE_LINES {
                signature.push('\n');
                signature.push_str(lines[i]);
                i += 1;
                extra += 1;
            }
            items.push(DocItem {
                name,
                signature: cut_body(&signature),
                file: file.to_owned(),
                doc: std::mem::take(&mut doc),
            });
        }
        doc.clear();
        exported_macro = false;
    }
    module_doc
}

/// `(keyword, rest after it)` when `line` declares a `pub` item (not `pub(crate)` and the like).
fn public_declaration(line: &str) -> Option<(&'static str, &str)> {
    let mut rest = line.strip_prefix("pub ")?;
    loop {
        let word_end = rest.find(|c: char| !c.is_alphanumeric() && c != '_')?;
        let word = &rest[..word_end];
        if let Some(&kind) = KEYWORDS.iter().find(|k| **k == word) {
            return Some((kind, rest[word_end..].trim_start()));
        }
        if matches!(word, "async" | "unsafe" | "const" | "extern" | "default") {
            rest = rest[word_end..].trim_start();
            // `extern "C" fn`
            if rest.starts_with('"') {
                rest = rest[1..].split_once('"')?.1.trim_start();
            }
            continue;
        }
        return None;
    }
}

/// The item's name after its keyword (`spawn` in `fn spawn<F>(`).
fn item_name(kind: &str, rest: &str) -> Option<String> {
    let rest = if kind == "macro" {
        rest.trim_start_matches("macro_rules!").trim_start()
    } else {
        rest
    };
    let end = rest
        .find(|c: char| !c.is_alphanumeric() && c != '_')
        .unwrap_or(rest.len());
    let name = &rest[..end];
    (!name.is_empty()).then(|| {
        if kind == "macro" {
            format!("{name}!")
        } else {
            name.to_owned()
        }
    })
}

fn ends_signature(text: &str) -> bool {
    text.contains('{') || text.trim_end().ends_with(';')
}

/// The signature without the body: up to the first `{` (or the whole text).
fn cut_body(signature: &str) -> String {
    match signature.find('{') {
        Some(at) => signature[..at].trim_end().to_owned(),
        None => signature.trim_end().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_documented_public_items() {
        let text = "//! A crate.\n\n/// Spawns a task.\n///\n/// More.\n#[inline]\npub fn spawn<F>(f: F)\nwhere\n    F: Send,\n{\n}\n\n/// Hidden.\npub(crate) fn hidden() {}\n\nfn private() {}\n/// A type.\npub struct Handle;\n/// Builds.\n#[macro_export]\nmacro_rules! build { () => {} }\n/// Async.\npub async unsafe fn go() {}\n";
        let mut items = Vec::new();
        let module = scan(text, "src/lib.rs", &mut items);
        assert_eq!(module, "A crate.\n");
        let names: Vec<_> = items.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["spawn", "Handle", "build!", "go"]);
        assert_eq!(
            items[0].signature,
            "pub fn spawn<F>(f: F)\nwhere\n    F: Send,"
        );
        assert_eq!(items[0].doc, "Spawns a task.\n\nMore.\n");
    }
}
