//! Preloading: the digests of the libraries named in `[context] libraries`, rendered once as
//! the prompt's background section, each library once however it is spelled.

use std::path::{Path, PathBuf};

use super::library_digest;

/// Tokens of all preloaded digests together.
pub const PRELOAD_TOKENS: usize = 6_000;
/// Fewest tokens one preloaded digest gets.
const MIN_LIBRARY_TOKENS: usize = 600;

/// The preloaded digests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Preloaded {
    /// The section body: each digest, then the libraries that could not be read.
    pub text: String,
    /// The names whose digest is in `text` (as asked for, and as the lock file spells them).
    names: Vec<String>,
}

impl Preloaded {
    /// Whether `library`'s digest is preloaded (names compared as crates and Python
    /// distributions compare them: case, `-` and `_` aside).
    pub fn contains(&self, library: &str) -> bool {
        let wanted = normalise(library);
        self.names.iter().any(|n| normalise(n) == wanted)
    }

    /// Whether nothing was preloaded or reported.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}

fn normalise(name: &str) -> String {
    name.trim().to_ascii_lowercase().replace('_', "-")
}

/// Renders the digests of `libraries` for the project at `root` within `total_tokens`
/// (shared evenly). A name listed twice, or two names of one package, give one digest; a
/// library that cannot be read is listed with the reason.
pub fn preload(root: &Path, libraries: &[String], total_tokens: usize) -> Preloaded {
    let mut wanted: Vec<&str> = Vec::new();
    for name in libraries {
        if !wanted.iter().any(|w| normalise(w) == normalise(name)) {
            wanted.push(name.trim());
        }
    }
    if wanted.is_empty() {
        return Preloaded::default();
    }
    let each = (total_tokens / wanted.len()).max(MIN_LIBRARY_TOKENS);
    let mut out = Preloaded::default();
    let mut sources: Vec<PathBuf> = Vec::new();
    let mut failed: Vec<String> = Vec::new();
    for name in wanted {
        match library_digest(root, name, None, each) {
            Ok(digest) => {
                out.names.push(name.to_owned());
                out.names.push(digest.library.name.clone());
                if sources.contains(&digest.library.source) {
                    continue;
                }
                sources.push(digest.library.source.clone());
                out.text.push_str(digest.text.trim_end());
                out.text.push_str("\n\n");
            }
            Err(error) => {
                tracing::warn!(library = name, %error, "library docs not preloaded");
                failed.push(format!("- `{name}`: {error}"));
            }
        }
    }
    if !failed.is_empty() {
        out.text.push_str("Not preloaded:\n");
        out.text.push_str(&failed.join("\n"));
        out.text.push('\n');
    }
    out.text = out.text.trim_end().to_owned();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_like_crate_names() {
        let p = Preloaded {
            text: "x".to_owned(),
            names: vec!["tokio_util".to_owned()],
        };
        assert!(p.contains("Tokio-Util"));
        assert!(!p.contains("tokio"));
    }
}
