//! Agent Skills: a folder holding `SKILL.md` — YAML front matter with `name` and `description`,
//! then the instructions — and any files beside it. Only names and descriptions are read up
//! front; the body is read when the model asks for the skill.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::front_matter::{self, FrontMatterError};
use crate::sources::{SKILL_FOLDERS, Scope, Sources, USER_SKILLS, sorted_entries};
use crate::warning::Warning;

/// The file a skill folder is recognised by.
pub const SKILL_FILE: &str = "SKILL.md";
/// Longest name the Agent Skills format allows.
const MAX_NAME: usize = 64;
/// Longest description the Agent Skills format allows.
const MAX_DESCRIPTION: usize = 1024;

/// One skill found on disk (its body not read yet).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// Its `name`.
    pub name: String,
    /// Its `description`: what it does and when to use it.
    pub description: String,
    /// The skill's folder: files beside `SKILL.md` are read from here.
    pub dir: PathBuf,
    /// Whose folder it came from.
    pub scope: Scope,
}

impl Skill {
    /// The skill's `SKILL.md`.
    pub fn file(&self) -> PathBuf {
        self.dir.join(SKILL_FILE)
    }

    /// The instructions: `SKILL.md` after its front matter, read now.
    pub fn body(&self) -> Result<String, SkillError> {
        let path = self.file();
        let text = std::fs::read_to_string(&path).map_err(|source| SkillError::Read {
            path: path.clone(),
            source,
        })?;
        let split = front_matter::split(&text).map_err(|e| SkillError::FrontMatter {
            path: path.clone(),
            line: e.line(),
            message: e.to_string(),
        })?;
        Ok(split.body.trim().to_owned())
    }
}

/// Why a skill's body could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SkillError {
    /// The file cannot be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The `SKILL.md`.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Its front matter broke since it was found.
    #[error("{}:{line}: {message}", path.display())]
    FrontMatter {
        /// The `SKILL.md`.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// The front matter of `SKILL.md` (other keys — `license`, `allowed-tools`, `metadata` — are
/// allowed and ignored).
#[derive(Debug, Default, Deserialize)]
struct SkillMeta {
    name: Option<String>,
    description: Option<String>,
}

/// The skills a project and its user have, found once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Skills {
    skills: Vec<Skill>,
}

impl Skills {
    /// The skills under `sources`' folders ([`SKILL_FOLDERS`] of the project, then `skills/`
    /// of the user's folder), sorted by name, with a warning for each `SKILL.md` skipped (bad or
    /// missing front matter, or a name already taken by an earlier folder).
    pub fn discover(sources: &Sources) -> (Self, Vec<Warning>) {
        let mut skills: Vec<Skill> = Vec::new();
        let mut warnings = Vec::new();
        for (folder, scope) in sources.folders(&SKILL_FOLDERS, USER_SKILLS) {
            for dir in sorted_entries(&folder) {
                let file = dir.join(SKILL_FILE);
                if !file.is_file() {
                    continue;
                }
                match load(&dir, scope) {
                    Ok(skill) => match skills.iter().find(|s| s.name == skill.name) {
                        Some(first) => warnings.push(Warning {
                            path: file,
                            line: 1,
                            message: format!(
                                "the skill `{}` is already defined by {}",
                                skill.name,
                                first.file().display()
                            ),
                        }),
                        None => skills.push(skill),
                    },
                    Err(warning) => warnings.push(warning),
                }
            }
        }
        skills.sort_by(|a, b| a.name.cmp(&b.name));
        (Self { skills }, warnings)
    }

    /// The skills, sorted by name.
    pub fn all(&self) -> &[Skill] {
        &self.skills
    }

    /// The skill called `name`.
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.name == name)
    }

    /// No skill was found.
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// How many were found.
    pub fn len(&self) -> usize {
        self.skills.len()
    }
}

/// The skill in `dir`, or the warning that skips it.
fn load(dir: &Path, scope: Scope) -> Result<Skill, Warning> {
    let path = dir.join(SKILL_FILE);
    let warn = |line: usize, message: String| Warning {
        path: path.clone(),
        line,
        message,
    };
    let text = std::fs::read_to_string(&path).map_err(|e| warn(1, e.to_string()))?;
    let (meta, _) = front_matter::parse::<SkillMeta>(&text).map_err(|e| match e {
        FrontMatterError::Missing => warn(
            1,
            "no front matter: SKILL.md must start with `---`, then `name:` and `description:`, then `---`".to_owned(),
        ),
        e => warn(e.line(), e.to_string()),
    })?;
    let line_of = |key: &str| key_line(&text, key);
    let name = meta
        .name
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty())
        .ok_or_else(|| warn(1, "the front matter has no `name`".to_owned()))?;
    if name.chars().count() > MAX_NAME
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(warn(
            line_of("name"),
            format!(
                "the name `{name}` is not a skill name (lower-case letters, digits and `-`, at most {MAX_NAME})"
            ),
        ));
    }
    let description = meta
        .description
        .map(|d| d.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|d| !d.is_empty())
        .ok_or_else(|| warn(1, "the front matter has no `description`".to_owned()))?;
    if description.chars().count() > MAX_DESCRIPTION {
        return Err(warn(
            line_of("description"),
            format!("the description is longer than {MAX_DESCRIPTION} characters"),
        ));
    }
    Ok(Skill {
        name,
        description,
        dir: dir.to_path_buf(),
        scope,
    })
}

/// The 1-based line of the top-level `key:` in `text`'s front matter (1 when not found).
fn key_line(text: &str, key: &str) -> usize {
    text.lines()
        .position(|line| {
            line.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
        .map_or(1, |i| i + 1)
}
