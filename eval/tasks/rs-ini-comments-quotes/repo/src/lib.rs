//! A small INI-style config parser.

mod error;

pub use error::ParseError;

use std::collections::BTreeMap;

/// A parsed config: section name → key → value.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Config {
    sections: BTreeMap<String, BTreeMap<String, String>>,
}

impl Config {
    /// The value of `key` in `section` (`""` for keys before any section header).
    pub fn get(&self, section: &str, key: &str) -> Option<&str> {
        self.sections.get(section)?.get(key).map(String::as_str)
    }

    /// Names of all sections that have at least one key, sorted.
    pub fn sections(&self) -> Vec<&str> {
        self.sections.keys().map(String::as_str).collect()
    }

    fn insert(&mut self, section: &str, key: String, value: String) {
        self.sections
            .entry(section.to_string())
            .or_default()
            .insert(key, value);
    }
}

/// Parse config text.
pub fn parse(text: &str) -> Result<Config, ParseError> {
    let mut config = Config::default();
    let mut section = String::new();
    for (index, raw) in text.lines().enumerate() {
        let line_no = index + 1;
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let name = rest
                .strip_suffix(']')
                .ok_or(ParseError::BadSection { line: line_no })?;
            section = name.trim().to_string();
            continue;
        }
        let (key, value) = line
            .split_once('=')
            .ok_or(ParseError::MissingEquals { line: line_no })?;
        let key = key.trim();
        if key.is_empty() {
            return Err(ParseError::EmptyKey { line: line_no });
        }
        config.insert(&section, key.to_string(), value.trim().to_string());
    }
    Ok(config)
}
