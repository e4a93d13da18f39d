//! What goes wrong reading configuration, and the warnings about old spellings.

use std::fmt;
use std::path::PathBuf;

/// A configuration file that cannot be used, or a profile that is not there.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file exists but cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A key the file's table does not have.
    #[error("unknown key `{key}` in {} line {line}{}", path.display(), suggestion_text(suggestion.as_deref()))]
    UnknownKey {
        /// The file.
        path: PathBuf,
        /// The line the key is on (1-based).
        line: usize,
        /// The key, dotted from the top (`memory.distil`).
        key: String,
        /// The known key nearest to it, dotted the same way.
        suggestion: Option<String>,
    },
    /// The file is not valid TOML, or a value has the wrong type or is out of range.
    #[error("{}", invalid_text(path, *line, text.as_deref(), message))]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The line the problem is on (1-based), when known.
        line: Option<usize>,
        /// That line's text (it names the key).
        text: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// `--profile NAME` names a profile neither file defines.
    #[error(
        "no profile `{name}` in {}{}",
        searched_text(searched),
        known_text(known)
    )]
    UnknownProfile {
        /// The profile asked for.
        name: String,
        /// The files looked in.
        searched: Vec<PathBuf>,
        /// The profiles they define.
        known: Vec<String>,
    },
}

fn suggestion_text(suggestion: Option<&str>) -> String {
    suggestion.map_or_else(String::new, |s| format!(": did you mean `{s}`?"))
}

fn invalid_text(
    path: &std::path::Path,
    line: Option<usize>,
    text: Option<&str>,
    message: &str,
) -> String {
    let mut out = format!("invalid settings file {}", path.display());
    if let Some(line) = line {
        out.push_str(&format!(", line {line}"));
    }
    out.push_str(&format!(": {message}"));
    if let Some(text) = text {
        out.push_str(&format!("\n  | {text}"));
    }
    out
}

fn searched_text(searched: &[PathBuf]) -> String {
    if searched.is_empty() {
        return "any settings file (none was found)".to_owned();
    }
    searched
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" or ")
}

fn known_text(known: &[String]) -> String {
    if known.is_empty() {
        " (no profiles are defined: add a `[profiles.NAME]` table)".to_owned()
    } else {
        format!(" (defined: {})", known.join(", "))
    }
}

/// Something a file says that still works but should change: an old spelling of a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The file.
    pub path: PathBuf,
    /// The line (1-based).
    pub line: usize,
    /// The old spelling as written (`[provider] memory_distill`).
    pub old: String,
    /// The key to use instead (`[memory] distill`).
    pub new: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` in {} line {} is an old spelling: write `{}` instead (the old one is read until the next release)",
            self.old,
            self.path.display(),
            self.line,
            self.new
        )
    }
}
