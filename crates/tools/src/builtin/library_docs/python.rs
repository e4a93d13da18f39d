//! Python packages: module docstrings, and the docstrings of public classes, functions and
//! methods with their `def` / `class` lines, read by a light line scanner.

use std::path::{Path, PathBuf};

use super::digest::{DocItem, Docs};

/// Most modules read from one package.
const MAX_FILES: usize = 400;
/// Lines of a signature kept.
const SIGNATURE_LINES: usize = 8;

/// The docs of the package at `path` (a package folder or a single module file).
pub fn docs(path: &Path) -> Docs {
    let mut docs = Docs::default();
    let (base, mut files) = if path.is_dir() {
        let mut files = Vec::new();
        collect_py(path, &mut files);
        files.sort();
        let init = path.join("__init__.py");
        files.sort_by_key(|f| *f != init);
        (path.parent().unwrap_or(path).to_owned(), files)
    } else {
        (
            path.parent().unwrap_or(path).to_owned(),
            vec![path.to_owned()],
        )
    };
    files.truncate(MAX_FILES);
    for (n, file) in files.iter().enumerate() {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        docs.files += 1;
        let rel = file
            .strip_prefix(&base)
            .unwrap_or(file)
            .display()
            .to_string();
        let module_doc = scan(&text, &rel, &mut docs.items);
        if n == 0 && docs.overview.is_none() {
            docs.overview = module_doc;
        } else if let Some(doc) = module_doc {
            let module = rel
                .trim_end_matches(".py")
                .trim_end_matches("/__init__")
                .replace('/', ".");
            docs.items.push(DocItem {
                name: module.clone(),
                signature: format!("module {module}"),
                file: rel,
                doc,
            });
        }
    }
    docs
}

/// Every public `.py` file under `dir` (no tests, no `_private` modules but `__init__.py`).
fn collect_py(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            let skip = name.starts_with(['_', '.']) || matches!(name.as_str(), "tests" | "test");
            if !skip && path.join("__init__.py").is_file() {
                collect_py(&path, out);
            }
        } else if name.ends_with(".py") && (name == "__init__.py" || !name.starts_with('_')) {
            out.push(path);
        }
    }
}

/// The docstring starting at line `i` (after blank lines), and the line after it.
fn docstring_at(lines: &[&str], mut i: usize) -> Option<(String, usize)> {
    while i < lines.len() && lines[i].trim().is_empty() {
        i += 1;
    }
    let first = lines.get(i)?.trim();
    let body = first.trim_start_matches(['r', 'R', 'u', 'U']);
    let quote = if body.starts_with("\"\"\"") {
        "\"\"\""
    } else if body.starts_with("'''") {
        "'''"
    } else {
        return None;
    };
    let rest = &body[3..];
    if let Some(end) = rest.find(quote) {
        return Some((rest[..end].trim().to_owned(), i + 1));
    }
    let mut text = vec![rest.to_owned()];
    let indent = lines
        .get(i + 1..)
        .into_iter()
        .flatten()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .next()
        .unwrap_or(0);
    let mut j = i + 1;
    while j < lines.len() {
        let line = lines[j];
        let cut = line
            .get(indent.min(line.len() - line.trim_start().len())..)
            .unwrap_or(line);
        if let Some(end) = cut.find(quote) {
            text.push(cut[..end].to_owned());
            return Some((text.join("\n").trim().to_owned(), j + 1));
        }
        text.push(cut.to_owned());
        j += 1;
    }
    Some((text.join("\n").trim().to_owned(), j))
}

/// Reads one module: returns its docstring and pushes each public `class` / `def` with one.
pub(crate) fn scan(text: &str, file: &str, items: &mut Vec<DocItem>) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let module_doc = {
        let mut i = 0;
        while i < lines.len() && (lines[i].trim().is_empty() || lines[i].trim().starts_with('#')) {
            i += 1;
        }
        docstring_at(&lines, i).map(|(doc, _)| doc)
    };
    // (indent, class name) of the classes enclosing the current line.
    let mut classes: Vec<(usize, String)> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        i += 1;
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        classes.retain(|(at, _)| *at < indent);
        let (kind, rest) = if let Some(rest) = trimmed.strip_prefix("class ") {
            ("class", rest)
        } else if let Some(rest) = trimmed
            .strip_prefix("def ")
            .or_else(|| trimmed.strip_prefix("async def "))
        {
            ("def", rest)
        } else {
            continue;
        };
        let end = rest
            .find(|c: char| !c.is_alphanumeric() && c != '_')
            .unwrap_or(rest.len());
        let name = rest[..end].to_owned();
        // The signature runs to the line ending in `:` with brackets balanced.
        let mut signature = trimmed.trim_end().to_owned();
        let mut extra = 0;
        while !(balanced(&signature) && signature.trim_end().ends_with(':'))
            && i < lines.len()
            && extra < SIGNATURE_LINES
        {
            signature.push('\n');
            signature.push_str(lines[i].trim_end());
            i += 1;
            extra += 1;
        }
        let qualified = match classes.last() {
            Some((_, class)) => format!("{class}.{name}"),
            None => name.clone(),
        };
        let enclosing_public = classes.iter().all(|(_, c)| !c.starts_with('_'));
        if kind == "class" {
            classes.push((indent, name.clone()));
        }
        let public = !name.starts_with('_') || name == "__init__";
        if let Some((doc, next)) = docstring_at(&lines, i)
            && public
            && enclosing_public
        {
            items.push(DocItem {
                name: qualified,
                signature: signature.trim_end_matches(':').to_owned(),
                file: file.to_owned(),
                doc,
            });
            i = next;
        }
    }
    module_doc
}

fn balanced(text: &str) -> bool {
    let open = text.matches(['(', '[']).count();
    let close = text.matches([')', ']']).count();
    open <= close
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_docstrings() {
        let text = "\"\"\"HTTP for humans.\"\"\"\n\nimport os\n\ndef get(url,\n        params=None):\n    \"\"\"Sends a GET request.\n\n    :param url: URL.\n    \"\"\"\n    return 1\n\nclass Session:\n    '''A session.'''\n\n    def request(self, method):\n        \"\"\"Makes a request.\"\"\"\n\n    def _private(self):\n        \"\"\"Hidden.\"\"\"\n\nasync def fetch():\n    \"\"\"Fetches.\"\"\"\n";
        let mut items = Vec::new();
        let module = scan(text, "requests/api.py", &mut items);
        assert_eq!(module.as_deref(), Some("HTTP for humans."));
        let names: Vec<_> = items.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["get", "Session", "Session.request", "fetch"]);
        assert_eq!(items[0].signature, "def get(url,\n        params=None)");
        assert_eq!(items[0].doc, "Sends a GET request.\n\n:param url: URL.");
    }
}
