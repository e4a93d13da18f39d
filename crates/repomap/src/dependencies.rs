//! File dependencies (seed 002 §10: `dependencies: {file: [files it uses]}`), read from the same
//! definitions and references the ranking walks: file A depends on file B when A references a
//! name B defines.
//!
//! A name defined in more than [`MAX_DEFINERS`] files (`get`, `run`, `__init__`) says nothing
//! about which of them A uses, so it makes no edge; the ranking still counts it, down-weighted.

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashMap;

use crate::symbol::FileTags;

/// Most files that may define a name for a reference to it to count as a dependency.
pub const MAX_DEFINERS: usize = 5;

/// Every file's dependencies: the other files defining names it references, sorted by path;
/// files that depend on nothing are listed with an empty list.
pub fn dependencies<'a>(
    files: impl IntoIterator<Item = (&'a str, &'a FileTags)>,
) -> BTreeMap<String, Vec<String>> {
    let files: Vec<(&str, &FileTags)> = files.into_iter().collect();
    let mut definers: FxHashMap<&str, BTreeSet<&str>> = FxHashMap::default();
    for (path, tags) in &files {
        for symbol in tags.symbols.iter().filter(|s| s.kind.defines_name()) {
            definers
                .entry(symbol.name.as_str())
                .or_default()
                .insert(path);
        }
    }
    files
        .iter()
        .map(|(path, tags)| {
            let used: BTreeSet<&str> = tags
                .references
                .iter()
                .filter_map(|(name, _)| definers.get(name.as_str()))
                .filter(|defined_in| defined_in.len() <= MAX_DEFINERS)
                .flatten()
                .copied()
                .filter(|other| other != path)
                .collect();
            (
                (*path).to_owned(),
                used.into_iter().map(str::to_owned).collect(),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::language::Language;
    use crate::symbol::{Symbol, SymbolKind};

    fn tags(defines: &[&str], references: &[&str]) -> FileTags {
        FileTags {
            language: Language::Python,
            symbols: defines
                .iter()
                .map(|name| Symbol {
                    kind: SymbolKind::Function,
                    name: (*name).to_owned(),
                    signature: format!("def {name}()"),
                    start_line: 1,
                    end_line: 2,
                    doc: None,
                    depth: 0,
                })
                .collect(),
            references: references.iter().map(|r| ((*r).to_owned(), 1)).collect(),
        }
    }

    #[test]
    fn a_reference_to_a_definition_elsewhere_is_a_dependency() {
        let app = tags(&["main"], &["parse", "render", "main", "print"]);
        let parse = tags(&["parse"], &["tokenize"]);
        let lexer = tags(&["tokenize"], &[]);
        let render = tags(&["render", "parse"], &["parse"]);
        let deps = dependencies([
            ("app.py", &app),
            ("parse.py", &parse),
            ("lexer.py", &lexer),
            ("render.py", &render),
        ]);
        assert_eq!(deps["app.py"], ["parse.py", "render.py"]);
        assert_eq!(deps["parse.py"], ["lexer.py"]);
        assert!(deps["lexer.py"].is_empty(), "listed, with nothing");
        // Its own definition of `parse` is not a dependency; the other one is.
        assert_eq!(deps["render.py"], ["parse.py"]);
    }

    #[test]
    fn a_name_defined_everywhere_makes_no_edge() {
        let common: Vec<FileTags> = (0..=MAX_DEFINERS).map(|_| tags(&["get"], &[])).collect();
        let user = tags(&[], &["get"]);
        let mut files: Vec<(String, &FileTags)> = common
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("m{i}.py"), t))
            .collect();
        files.push(("user.py".to_owned(), &user));
        let deps = dependencies(files.iter().map(|(p, t)| (p.as_str(), *t)));
        assert!(deps["user.py"].is_empty());
    }
}
