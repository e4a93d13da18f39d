//! Definitions found in a file, and the identifiers it references.

use serde::{Deserialize, Serialize};

use crate::language::Language;

/// What kind of thing a definition is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SymbolKind {
    /// A free function.
    Function,
    /// A function inside a class, impl, trait or interface.
    Method,
    /// A class (or a C union).
    Class,
    /// A struct.
    Struct,
    /// An enum.
    Enum,
    /// An interface.
    Interface,
    /// A Rust trait.
    Trait,
    /// A Rust `impl` block (shown for context; it defines no name of its own).
    Impl,
    /// A type alias or other type definition.
    Type,
    /// A module or namespace.
    Module,
    /// A macro.
    Macro,
    /// A constant or static.
    Constant,
}

impl SymbolKind {
    /// Lower-case name (`function`, `struct`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            SymbolKind::Function => "function",
            SymbolKind::Method => "method",
            SymbolKind::Class => "class",
            SymbolKind::Struct => "struct",
            SymbolKind::Enum => "enum",
            SymbolKind::Interface => "interface",
            SymbolKind::Trait => "trait",
            SymbolKind::Impl => "impl",
            SymbolKind::Type => "type",
            SymbolKind::Module => "module",
            SymbolKind::Macro => "macro",
            SymbolKind::Constant => "constant",
        }
    }

    /// Whether functions directly inside it are methods.
    pub fn holds_methods(self) -> bool {
        matches!(
            self,
            SymbolKind::Class
                | SymbolKind::Struct
                | SymbolKind::Enum
                | SymbolKind::Interface
                | SymbolKind::Trait
                | SymbolKind::Impl
        )
    }

    /// Whether the definition introduces a name other files can reference.
    pub fn defines_name(self) -> bool {
        !matches!(self, SymbolKind::Impl)
    }
}

/// One definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Symbol {
    /// What it is.
    pub kind: SymbolKind,
    /// Its name.
    pub name: String,
    /// The declaration up to its body, on one line (`fn f(a: u32) -> bool`).
    pub signature: String,
    /// First line (1-based).
    pub start_line: u32,
    /// Last line (1-based, inclusive).
    pub end_line: u32,
    /// First line of its doc comment or docstring. (Always serialised: the cache's format is
    /// not self-describing.)
    #[serde(default)]
    pub doc: Option<String>,
    /// How many definitions enclose it (0 for top level).
    pub depth: u8,
}

impl Symbol {
    /// Its lines among `lines`, its file's lines (fewer when the file has changed since).
    pub fn lines_in<'a, 'l>(&self, lines: &'l [&'a str]) -> &'l [&'a str] {
        let end = (self.end_line as usize).min(lines.len());
        let start = (self.start_line as usize).saturating_sub(1).min(end);
        &lines[start..end]
    }

    /// The line (0-based) where it begins once the decorators or attributes written above it
    /// are counted (`@pytest.mark.parametrize(…)` over several lines, `#[derive(…)]`): what
    /// a reader needs with it, and what its own lines leave out.
    pub fn decorated_start(&self, lines: &[&str]) -> usize {
        let start = (self.start_line as usize)
            .saturating_sub(1)
            .min(lines.len());
        let Some(first) = lines.get(start) else {
            return start;
        };
        let indent = indent_of(first);
        let mut decorated = start;
        for i in (start.saturating_sub(MAX_DECORATOR_LINES)..start).rev() {
            let line = lines[i];
            let text = line.trim_start();
            let same_level = indent_of(line) == indent;
            if same_level && (text.starts_with('@') || text.starts_with("#[")) {
                decorated = i;
            } else if text.is_empty()
                || (same_level && !text.starts_with([')', ']', '}']))
                || indent_of(line) < indent
            {
                break;
            }
        }
        decorated
    }

    /// Its lines among `lines` with the decorators above it ([`Symbol::decorated_start`]).
    pub fn decorated_lines_in<'a, 'l>(&self, lines: &'l [&'a str]) -> &'l [&'a str] {
        let end = (self.end_line as usize).min(lines.len());
        &lines[self.decorated_start(lines).min(end)..end]
    }
}

/// Most lines above a definition searched for its decorators.
const MAX_DECORATOR_LINES: usize = 60;

/// The width of a line's leading whitespace.
fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Everything the map knows about one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileTags {
    /// The file's language.
    pub language: Language,
    /// Definitions, in source order.
    pub symbols: Vec<Symbol>,
    /// Identifiers the file references, with how often, sorted by name.
    pub references: Vec<(String, u32)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn symbol(start_line: u32, end_line: u32) -> Symbol {
        Symbol {
            kind: SymbolKind::Function,
            name: "f".into(),
            signature: "fn f()".into(),
            start_line,
            end_line,
            doc: None,
            depth: 0,
        }
    }

    #[test]
    fn a_symbols_lines_are_cut_to_the_file() {
        let lines = ["a", "b", "c"];
        assert_eq!(symbol(2, 3).lines_in(&lines), ["b", "c"]);
        assert_eq!(symbol(2, 9).lines_in(&lines), ["b", "c"]);
        assert!(symbol(7, 9).lines_in(&lines).is_empty());
    }

    #[test]
    fn decorators_above_a_definition_are_its_lines_too() {
        let python = [
            "import pytest",
            "",
            "@pytest.mark.parametrize(",
            "    (\"a\", \"b\"),",
            "    [(1, 2)],",
            ")",
            "@slow",
            "def test_f(a, b):",
            "    assert a < b",
        ];
        assert_eq!(symbol(8, 9).decorated_start(&python), 2);
        assert_eq!(symbol(8, 9).decorated_lines_in(&python).len(), 7);
        let rust = ["}", "#[derive(Debug)]", "pub struct Rgb {", "}"];
        assert_eq!(symbol(3, 4).decorated_start(&rust), 1);
        // Another definition's body above it is not a decorator.
        let plain = ["def g():", "    return 1", "def f():", "    pass"];
        assert_eq!(symbol(3, 4).decorated_start(&plain), 2);
        let method = [
            "class A:",
            "    @property",
            "    def f(self):",
            "        return 1",
        ];
        assert_eq!(symbol(3, 4).decorated_start(&method), 1);
        assert_eq!(symbol(9, 9).decorated_start(&plain), 4);
    }
}
