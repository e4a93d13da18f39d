//! npm packages: the README, `package.json`'s description, and the declarations of the
//! package's `.d.ts` files (its `types` entry first) with their JSDoc comments.

use std::path::{Path, PathBuf};

use super::digest::{DocItem, Docs};
use crate::packages::readme_in;

/// Most `.d.ts` files read from one package.
const MAX_FILES: usize = 200;
/// Lines of a declaration kept.
const SIGNATURE_LINES: usize = 6;

/// The docs of the package installed at `dir` (`node_modules/NAME`).
pub fn docs(dir: &Path) -> Docs {
    let manifest: serde_json::Value = std::fs::read_to_string(dir.join("package.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let mut docs = Docs {
        readme: readme_in(dir).and_then(|p| std::fs::read_to_string(p).ok()),
        overview: manifest
            .get("description")
            .and_then(|d| d.as_str())
            .map(str::to_owned),
        ..Docs::default()
    };
    let entry = ["types", "typings"]
        .iter()
        .find_map(|key| manifest.get(*key).and_then(|v| v.as_str()))
        .map(|t| dir.join(t.trim_start_matches("./")));
    let mut files = Vec::new();
    collect_dts(dir, &mut files);
    files.sort();
    if let Some(entry) = entry.filter(|e| e.is_file()) {
        files.retain(|f| *f != entry);
        files.insert(0, entry);
    }
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
        scan(&text, &rel, &mut docs.items);
    }
    docs
}

/// Every `.d.ts` file under `dir`, not descending into nested `node_modules`.
fn collect_dts(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "node_modules" && !name.starts_with('.') {
                collect_dts(&path, out);
            }
        } else if name.ends_with(".d.ts") || name.ends_with(".d.mts") || name.ends_with(".d.cts") {
            out.push(path);
        }
    }
}

/// Declaration keywords after `export` / `declare`.
const KEYWORDS: &[&str] = &[
    "function",
    "class",
    "interface",
    "type",
    "const",
    "let",
    "var",
    "enum",
    "namespace",
    "module",
];

/// Pushes each exported or declared item of a `.d.ts` file, with the JSDoc before it.
pub(crate) fn scan(text: &str, file: &str, items: &mut Vec<DocItem>) {
    let lines: Vec<&str> = text.lines().collect();
    let mut doc = String::new();
    let mut i = 0;
    while i < lines.len() {
        let trimmed = lines[i].trim();
        i += 1;
        if trimmed.starts_with("/**") {
            doc = jsdoc_line(trimmed.trim_start_matches("/**"));
            let mut closed = trimmed.ends_with("*/");
            while !closed && i < lines.len() {
                let line = lines[i].trim();
                i += 1;
                closed = line.ends_with("*/");
                doc.push_str(&jsdoc_line(line));
            }
            doc = format!("{}\n", doc.trim());
            continue;
        }
        if trimmed.is_empty() || trimmed.starts_with("//") {
            continue;
        }
        if let Some(name) = declared_name(trimmed) {
            let mut signature = trimmed.to_owned();
            let mut extra = 0;
            while !ends_declaration(&signature) && i < lines.len() && extra < SIGNATURE_LINES {
                signature.push('\n');
                signature.push_str(lines[i]);
                i += 1;
                extra += 1;
            }
            let signature = match signature.find('{') {
                Some(at) if !signature.starts_with("export type") => {
                    signature[..at].trim_end().to_owned()
                }
                _ => signature.trim_end().to_owned(),
            };
            items.push(DocItem {
                name,
                signature,
                file: file.to_owned(),
                doc: std::mem::take(&mut doc),
            });
        } else if let Some(name) = member_name(trimmed)
            && !doc.trim().is_empty()
        {
            items.push(DocItem {
                name,
                signature: trimmed.to_owned(),
                file: file.to_owned(),
                doc: std::mem::take(&mut doc),
            });
        }
        doc.clear();
    }
}

/// A JSDoc line without its `*` decoration.
fn jsdoc_line(line: &str) -> String {
    let line = line.trim().trim_end_matches("*/").trim_end();
    let line = line.strip_prefix('*').unwrap_or(line);
    let line = line.strip_prefix(' ').unwrap_or(line);
    if line.is_empty() {
        "\n".to_owned()
    } else {
        format!("{line}\n")
    }
}

/// The name declared by an `export` / `declare` line.
fn declared_name(line: &str) -> Option<String> {
    let mut words = line
        .split(|c: char| c.is_whitespace() || matches!(c, '(' | '<' | ':' | '=' | '{' | ';'))
        .filter(|w| !w.is_empty());
    let first = words.next()?;
    if first != "export" && first != "declare" {
        return None;
    }
    let mut saw_keyword = false;
    for word in words {
        if KEYWORDS.contains(&word) {
            saw_keyword = true;
            continue;
        }
        if matches!(
            word,
            "declare" | "default" | "abstract" | "async" | "export"
        ) {
            continue;
        }
        if saw_keyword {
            return Some(word.trim_matches(['"', '\'']).to_owned());
        }
        return None;
    }
    None
}

/// The name of a documented interface or class member (`get(url: string): Promise<R>;`).
fn member_name(line: &str) -> Option<String> {
    let line = line
        .trim_start_matches("readonly ")
        .trim_start_matches("static ");
    let end = line.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))?;
    let name = &line[..end];
    let next = line[end..].trim_start().chars().next()?;
    (!name.is_empty() && matches!(next, '(' | ':' | '?' | '<')).then(|| name.to_owned())
}

fn ends_declaration(text: &str) -> bool {
    let t = text.trim_end();
    t.contains('{') || t.ends_with(';') || t.ends_with('}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_declarations_and_jsdoc() {
        let text = "/**\n * Pads a string on the left.\n * @param str the text\n */\nexport declare function leftPad(str: string, len: number): string;\nexport interface Options {\n  /** The fill character. */\n  ch?: string;\n  undocumented: number;\n}\ndeclare const VERSION: string;\nexport default leftPad;\n";
        let mut items = Vec::new();
        scan(text, "index.d.ts", &mut items);
        let names: Vec<_> = items.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["leftPad", "Options", "ch", "VERSION"]);
        assert_eq!(
            items[0].doc,
            "Pads a string on the left.\n@param str the text\n"
        );
        assert_eq!(items[1].signature, "export interface Options");
    }
}
