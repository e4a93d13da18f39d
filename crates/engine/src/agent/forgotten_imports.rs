//! Standard-library modules a Python file uses and never imports: a small model writing
//! `re.sub(…)` in a file it gives whole often forgets the `import re` (py-slugify in the
//! development suite: the visible tests passed, every hidden one failed with a `NameError`).
//! As an editor's quick fix does, a file given whole gets the missing `import NAME` for the
//! modules in [`STDLIB`] it uses as `NAME.attribute` and binds nowhere.

use std::sync::LazyLock;

use regex::Regex;

/// Standard-library modules imported by their own name, as code uses them.
const STDLIB: &[&str] = &[
    "abc",
    "argparse",
    "base64",
    "bisect",
    "calendar",
    "collections",
    "contextlib",
    "copy",
    "csv",
    "dataclasses",
    "datetime",
    "decimal",
    "difflib",
    "enum",
    "fnmatch",
    "fractions",
    "functools",
    "glob",
    "hashlib",
    "heapq",
    "html",
    "inspect",
    "io",
    "itertools",
    "json",
    "logging",
    "math",
    "operator",
    "os",
    "pathlib",
    "pprint",
    "random",
    "re",
    "secrets",
    "shlex",
    "shutil",
    "statistics",
    "string",
    "struct",
    "subprocess",
    "sys",
    "tempfile",
    "textwrap",
    "threading",
    "time",
    "types",
    "typing",
    "unicodedata",
    "uuid",
    "warnings",
];

/// `content` (a Python file's) with `import NAME` added for each module of [`STDLIB`] it uses
/// and does not bind, after its last top-level import (else after its docstring and leading
/// comments); the names added, empty when none is missing.
pub(crate) fn add_forgotten_imports(content: &str) -> (String, Vec<&'static str>) {
    let missing: Vec<&'static str> = STDLIB
        .iter()
        .copied()
        .filter(|name| uses(content, name) && !binds(content, name))
        .collect();
    if missing.is_empty() {
        return (content.to_owned(), missing);
    }
    let lines: Vec<&str> = content.lines().collect();
    let at = import_position(&lines);
    let mut out: Vec<String> = lines[..at].iter().map(|l| (*l).to_owned()).collect();
    out.extend(missing.iter().map(|name| format!("import {name}")));
    if lines
        .get(at)
        .is_some_and(|l| !l.trim().is_empty() && !is_import(l))
    {
        out.push(String::new());
    }
    out.extend(lines[at..].iter().map(|l| (*l).to_owned()));
    let mut text = out.join("\n");
    if content.ends_with('\n') {
        text.push('\n');
    }
    (text, missing)
}

/// Whether `content` uses `name.attribute` (not as another object's attribute).
fn uses(content: &str, name: &str) -> bool {
    let Ok(pattern) = Regex::new(&format!(
        r"(?m)(?:^|[^\w.]){}\.[A-Za-z_]",
        regex::escape(name)
    )) else {
        return false;
    };
    content
        .lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .any(|line| pattern.is_match(line))
}

/// Whether `content` binds `name` anywhere: an import, an assignment, a parameter, a
/// definition, a loop or `with … as` target.
fn binds(content: &str, name: &str) -> bool {
    let name = regex::escape(name);
    let Ok(pattern) = Regex::new(&format!(
        r"(?m)(?:^\s*(?:import|from)\s.*\b{name}\b|\b{name}\s*(?:=[^=]|:[^=])|\bdef\s+{name}\b|\bclass\s+{name}\b|\bas\s+{name}\b|\bfor\s+{name}\b|[(,]\s*{name}\s*[,)=:])"
    )) else {
        return true;
    };
    pattern.is_match(content)
}

/// Where imports go: after the last top-level import, else after the module's docstring,
/// comments and blank lines at the top.
fn import_position(lines: &[&str]) -> usize {
    if let Some(last) = lines.iter().rposition(|l| is_import(l)) {
        return last + 1;
    }
    let mut at = 0;
    let mut in_docstring: Option<&str> = None;
    while at < lines.len() {
        let line = lines[at].trim();
        if let Some(quote) = in_docstring {
            at += 1;
            if line.ends_with(quote) {
                in_docstring = None;
            }
            continue;
        }
        if line.starts_with('#') {
            at += 1;
            continue;
        }
        if let Some(quote) = ["\"\"\"", "'''"].into_iter().find(|q| line.starts_with(q)) {
            at += 1;
            if !(line.len() >= 6 && line.ends_with(quote)) {
                in_docstring = Some(quote);
            }
            continue;
        }
        break;
    }
    at
}

/// A top-level `import` or `from … import` line.
fn is_import(line: &str) -> bool {
    static IMPORT: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"^(?:import\s+\w|from\s+[\w.]+\s+import\s)").ok());
    IMPORT.as_ref().is_some_and(|re| re.is_match(line))
}

#[cfg(test)]
mod tests {
    use super::add_forgotten_imports;

    #[test]
    fn a_module_used_and_never_imported_is_imported_after_the_others() {
        let content = "\"\"\"URL slugs.\"\"\"\nimport unicodedata\n\n\ndef slugify(text):\n    text = unicodedata.normalize(\"NFKD\", text)\n    return re.sub(r\"[^a-z0-9]+\", \"-\", text.lower())\n";
        let (fixed, added) = add_forgotten_imports(content);
        assert_eq!(added, ["re"]);
        assert_eq!(
            fixed,
            "\"\"\"URL slugs.\"\"\"\nimport unicodedata\nimport re\n\n\ndef slugify(text):\n    text = unicodedata.normalize(\"NFKD\", text)\n    return re.sub(r\"[^a-z0-9]+\", \"-\", text.lower())\n"
        );
    }

    #[test]
    fn without_imports_they_go_after_the_docstring() {
        let content =
            "\"\"\"Stats.\n\nMore.\n\"\"\"\n\ndef spread(values):\n    return math.fsum(values)\n";
        let (fixed, added) = add_forgotten_imports(content);
        assert_eq!(added, ["math"]);
        assert_eq!(
            fixed,
            "\"\"\"Stats.\n\nMore.\n\"\"\"\nimport math\n\ndef spread(values):\n    return math.fsum(values)\n"
        );
    }

    #[test]
    fn bound_names_and_attributes_of_other_objects_are_left_alone() {
        for content in [
            "import re as re\nx = re.compile('a')\n",
            "from os import path\nimport os.path\nos.getcwd()\n",
            "def f(re):\n    return re.sub('a', 'b', 'c')\n",
            "self.re.sub('a')\nmatch.re.pattern\n",
            "for json in items:\n    json.dumps()\n",
            "# re.sub in a comment\nx = 1\n",
            "with open(p) as csv:\n    csv.read()\n",
            "time = clock()\nprint(time.hour)\n",
        ] {
            let (fixed, added) = add_forgotten_imports(content);
            assert!(added.is_empty(), "{content}: {added:?}");
            assert_eq!(fixed, content);
        }
    }
}
