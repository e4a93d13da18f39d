//! The languages Keel starts servers for: which files are theirs and which commands serve them
//! when `keel.toml` names none.

use std::path::Path;

/// A language with a server: the `[lsp.NAME]` table's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Language {
    /// Python (`.py`, `.pyi`): pyright, else basedpyright.
    Python,
    /// TypeScript and JavaScript: typescript-language-server.
    TypeScript,
    /// Rust (`.rs`): rust-analyzer.
    Rust,
    /// Go (`.go`): gopls.
    Go,
}

impl Language {
    /// Every language, in the order `keel lsp check` reports them.
    pub const ALL: [Self; 4] = [Self::Python, Self::TypeScript, Self::Rust, Self::Go];

    /// The `[lsp.NAME]` table's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Python => "python",
            Self::TypeScript => "typescript",
            Self::Rust => "rust",
            Self::Go => "go",
        }
    }

    /// The language named `name` (`[lsp.NAME]`).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.name() == name)
    }

    /// The language of a file, from its extension.
    pub fn of(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?;
        match ext {
            "py" | "pyi" => Some(Self::Python),
            "ts" | "tsx" | "mts" | "cts" | "js" | "jsx" | "mjs" | "cjs" => Some(Self::TypeScript),
            "rs" => Some(Self::Rust),
            "go" => Some(Self::Go),
            _ => None,
        }
    }

    /// The LSP `languageId` of a file of this language.
    pub fn language_id(self, path: &Path) -> &'static str {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default();
        match (self, ext) {
            (Self::Python, _) => "python",
            (Self::TypeScript, "tsx") => "typescriptreact",
            (Self::TypeScript, "js" | "mjs" | "cjs") => "javascript",
            (Self::TypeScript, "jsx") => "javascriptreact",
            (Self::TypeScript, _) => "typescript",
            (Self::Rust, _) => "rust",
            (Self::Go, _) => "go",
        }
    }

    /// The commands tried in order when `keel.toml` names none: the first one installed serves.
    pub fn default_commands(self) -> &'static [&'static [&'static str]] {
        match self {
            Self::Python => &[
                &["pyright-langserver", "--stdio"],
                &["basedpyright-langserver", "--stdio"],
            ],
            Self::TypeScript => &[&["typescript-language-server", "--stdio"]],
            Self::Rust => &[&["rust-analyzer"]],
            Self::Go => &[&["gopls"]],
        }
    }
}

impl std::fmt::Display for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
