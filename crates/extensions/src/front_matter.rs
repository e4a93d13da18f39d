//! YAML front matter: the block between a first line `---` and the next `---` (or `...`) line,
//! as Claude Code, the Agent Skills format and most static-site tools write it.

use serde::de::DeserializeOwned;

/// A file cut at its front matter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split<'a> {
    /// The YAML between the fences (`None`: the file has no front matter).
    pub yaml: Option<&'a str>,
    /// The text after the closing fence (the whole file when there is no front matter).
    pub body: &'a str,
    /// The 1-based line the body starts on.
    pub body_line: usize,
}

/// Why front matter could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrontMatterError {
    /// The file does not start with a `---` line.
    #[error("no front matter: the file must start with a `---` line, then YAML, then `---`")]
    Missing,
    /// A `---` line opens it and no `---` line closes it.
    #[error("the front matter opened on line 1 is never closed by a `---` line")]
    Unclosed,
    /// The YAML is not valid or does not have the expected shape.
    #[error("{message}")]
    Yaml {
        /// The 1-based line in the file, when the YAML parser knows it.
        line: Option<usize>,
        /// The YAML parser's message.
        message: String,
    },
}

impl FrontMatterError {
    /// The 1-based line of the file the error is about.
    pub fn line(&self) -> usize {
        match self {
            Self::Missing | Self::Unclosed => 1,
            Self::Yaml { line, .. } => line.unwrap_or(1),
        }
    }
}

/// Cuts `text` at its front matter: `yaml` is `None` when the first line (after an optional
/// byte-order mark) is not `---`. An opening fence with no closing one is an error.
pub fn split(text: &str) -> Result<Split<'_>, FrontMatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = strip_fence(text, &["---"]) else {
        return Ok(Split {
            yaml: None,
            body: text,
            body_line: 1,
        });
    };
    let mut offset = 0;
    let mut line = 2;
    while offset <= rest.len() {
        let remaining = &rest[offset..];
        if let Some(after) = strip_fence(remaining, &["---", "..."]) {
            return Ok(Split {
                yaml: Some(&rest[..offset]),
                body: after,
                body_line: line + 1,
            });
        }
        match remaining.find('\n') {
            Some(end) => {
                offset += end + 1;
                line += 1;
            }
            None => break,
        }
    }
    Err(FrontMatterError::Unclosed)
}

/// `text` after a first line that is exactly one of `fences` (trailing spaces and `\r`
/// allowed), or `None`.
fn strip_fence<'a>(text: &'a str, fences: &[&str]) -> Option<&'a str> {
    let (line, rest) = match text.find('\n') {
        Some(end) => (&text[..end], &text[end + 1..]),
        None => (text, ""),
    };
    let line = line.trim_end_matches([' ', '\t', '\r']);
    fences.contains(&line).then_some(rest)
}

/// Reads the front matter of `text` as `T`, with the body: a file without front matter is
/// [`FrontMatterError::Missing`]; an empty block is `T`'s default.
pub fn parse<T: DeserializeOwned + Default>(
    text: &str,
) -> Result<(T, Split<'_>), FrontMatterError> {
    let split = split(text)?;
    let Some(yaml) = split.yaml else {
        return Err(FrontMatterError::Missing);
    };
    Ok((parse_yaml(yaml)?, split))
}

/// Reads the front matter of `text` as `T` when it has one (its default otherwise), with the
/// body.
pub fn parse_optional<T: DeserializeOwned + Default>(
    text: &str,
) -> Result<(T, Split<'_>), FrontMatterError> {
    let split = split(text)?;
    let value = match split.yaml {
        Some(yaml) => parse_yaml(yaml)?,
        None => T::default(),
    };
    Ok((value, split))
}

/// `yaml` (the block starting on the file's line 2) as `T`.
fn parse_yaml<T: DeserializeOwned + Default>(yaml: &str) -> Result<T, FrontMatterError> {
    if yaml.trim().is_empty() {
        return Ok(T::default());
    }
    serde_yaml::from_str(yaml).map_err(|e| FrontMatterError::Yaml {
        // The YAML starts on line 2, after the opening fence.
        line: e.location().map(|l| l.line() + 1),
        message: without_location(&e.to_string()),
    })
}

/// serde_yaml's message without its own " at line L column C" (the file's line is given
/// separately).
fn without_location(message: &str) -> String {
    match message.find(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_without_fences_is_all_body() {
        let split = split("# Title\n---\n").unwrap();
        assert_eq!(split.yaml, None);
        assert_eq!(split.body, "# Title\n---\n");
        assert_eq!(split.body_line, 1);
    }

    #[test]
    fn the_block_and_the_body_line() {
        let split = split("---\nname: x\r\n---  \nBody\n").unwrap();
        assert_eq!(split.yaml, Some("name: x\r\n"));
        assert_eq!(split.body, "Body\n");
        assert_eq!(split.body_line, 4);
    }

    #[test]
    fn an_unclosed_block_is_an_error_on_line_one() {
        let error = split("---\nname: x\n").unwrap_err();
        assert_eq!(error, FrontMatterError::Unclosed);
        assert_eq!(error.line(), 1);
    }

    #[test]
    fn yaml_errors_name_the_line_of_the_file() {
        #[derive(Debug, Default, serde::Deserialize)]
        struct Meta {
            #[allow(dead_code)]
            name: Option<String>,
        }
        let error = parse::<Meta>("---\ndescription: ok\nname: [1, 2]\n---\n").unwrap_err();
        assert_eq!(error.line(), 3, "{error}");
    }
}
