//! The languages the map understands: file extensions, grammars and tags queries.

use std::path::Path;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use tree_sitter::Query;

use crate::error::RepoMapError;
use crate::queries;

/// A programming language with a tree-sitter grammar and a tags query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// Rust (`.rs`).
    Rust,
    /// Python (`.py`, `.pyi`).
    Python,
    /// JavaScript and JSX (`.js`, `.jsx`, `.mjs`, `.cjs`).
    JavaScript,
    /// TypeScript (`.ts`, `.mts`, `.cts`).
    TypeScript,
    /// TypeScript with JSX (`.tsx`).
    Tsx,
    /// Go (`.go`).
    Go,
    /// Java (`.java`).
    Java,
    /// C (`.c`, `.h`).
    C,
    /// C++ (`.cc`, `.cpp`, `.cxx`, `.hpp`, `.hh`, `.hxx`).
    Cpp,
}

impl Language {
    /// Every supported language.
    pub const ALL: [Language; 9] = [
        Language::Rust,
        Language::Python,
        Language::JavaScript,
        Language::TypeScript,
        Language::Tsx,
        Language::Go,
        Language::Java,
        Language::C,
        Language::Cpp,
    ];

    /// The language of a file, from its extension; `None` when it is not supported.
    pub fn from_path(path: &Path) -> Option<Language> {
        let ext = path.extension()?.to_str()?;
        Some(match ext {
            "rs" => Language::Rust,
            "py" | "pyi" => Language::Python,
            "js" | "jsx" | "mjs" | "cjs" => Language::JavaScript,
            "ts" | "mts" | "cts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "go" => Language::Go,
            "java" => Language::Java,
            "c" | "h" => Language::C,
            "cc" | "cpp" | "cxx" | "c++" | "hpp" | "hh" | "hxx" | "h++" => Language::Cpp,
            _ => return None,
        })
    }

    /// A short lower-case name (`rust`, `python`, …).
    pub fn name(self) -> &'static str {
        match self {
            Language::Rust => "rust",
            Language::Python => "python",
            Language::JavaScript => "javascript",
            Language::TypeScript => "typescript",
            Language::Tsx => "tsx",
            Language::Go => "go",
            Language::Java => "java",
            Language::C => "c",
            Language::Cpp => "cpp",
        }
    }

    /// The tree-sitter grammar.
    pub fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::Rust => tree_sitter_rust::LANGUAGE.into(),
            Language::Python => tree_sitter_python::LANGUAGE.into(),
            Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Language::Go => tree_sitter_go::LANGUAGE.into(),
            Language::Java => tree_sitter_java::LANGUAGE.into(),
            Language::C => tree_sitter_c::LANGUAGE.into(),
            Language::Cpp => tree_sitter_cpp::LANGUAGE.into(),
        }
    }

    /// The full tags query source: the grammar crate's bundled query plus ours.
    pub fn tags_query_source(self) -> String {
        let parts: &[&str] = match self {
            Language::Rust => &[tree_sitter_rust::TAGS_QUERY, queries::RUST],
            Language::Python => &[tree_sitter_python::TAGS_QUERY, queries::PYTHON],
            Language::JavaScript => &[
                tree_sitter_javascript::TAGS_QUERY,
                queries::JAVASCRIPT,
                queries::JAVASCRIPT_ONLY,
            ],
            Language::TypeScript | Language::Tsx => &[
                tree_sitter_javascript::TAGS_QUERY,
                queries::JAVASCRIPT,
                tree_sitter_typescript::TAGS_QUERY,
                queries::TYPESCRIPT,
            ],
            Language::Go => &[tree_sitter_go::TAGS_QUERY, queries::GO],
            Language::Java => &[tree_sitter_java::TAGS_QUERY, queries::JAVA],
            Language::C => &[tree_sitter_c::TAGS_QUERY, queries::C],
            Language::Cpp => &[tree_sitter_cpp::TAGS_QUERY, queries::CPP],
        };
        parts.join("\n")
    }

    /// The compiled tags query, built once per process.
    pub fn tags_query(self) -> Result<&'static Query, RepoMapError> {
        static QUERIES: [OnceLock<Result<Query, String>>; 9] = [const { OnceLock::new() }; 9];
        let slot = &QUERIES[self as usize];
        slot.get_or_init(|| {
            Query::new(&self.grammar(), &self.tags_query_source()).map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|message| RepoMapError::Query {
            language: self.name(),
            message: message.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_query_compiles() {
        for language in Language::ALL {
            assert!(
                language.tags_query().is_ok(),
                "{}: {:?}",
                language.name(),
                language.tags_query().err()
            );
        }
    }

    #[test]
    fn extensions_map_to_languages() {
        assert_eq!(
            Language::from_path(Path::new("a/b.rs")),
            Some(Language::Rust)
        );
        assert_eq!(Language::from_path(Path::new("x.tsx")), Some(Language::Tsx));
        assert_eq!(Language::from_path(Path::new("x.hpp")), Some(Language::Cpp));
        assert_eq!(Language::from_path(Path::new("README.md")), None);
        assert_eq!(Language::from_path(Path::new("Makefile")), None);
    }
}
