//! `skill`: the instructions of one of the session's skills (keel-extensions' [`Skills`]),
//! loaded only when the model asks — the system prompt lists just their names and
//! descriptions. The result gives the skill's folder and the files beside `SKILL.md`; a
//! project skill's files are read with `read_file` like any other, and `file` reads one
//! beside the skill wherever it lives (a user skill's folder is outside the workspace).

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use keel_extensions::{SKILL_FILE, Skill as SkillEntry, Skills};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::tool::{ToolContext, ToolResult, TypedTool};

/// Name of the skill tool.
pub const SKILL: &str = "skill";
/// Files beside `SKILL.md` listed in a result before the rest are counted.
const MAX_LISTED: usize = 50;
/// Largest file beside a skill that `file` reads.
const MAX_FILE_BYTES: u64 = 256 * 1024;

/// Arguments of `skill`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillArgs {
    /// The skill's name, as listed under "Skills" in the system prompt.
    pub name: String,
    /// Optional: a file in the skill's folder (relative to it, e.g. `reference.md`) to read
    /// instead of the instructions.
    #[serde(default)]
    pub file: Option<String>,
}

/// `skill`: loads a skill's instructions, or a file beside them.
#[derive(Debug, Clone, Default)]
pub struct Skill {
    skills: Arc<Skills>,
}

impl Skill {
    /// The tool over `skills` (offered only when there is at least one).
    pub fn new(skills: Arc<Skills>) -> Self {
        Self { skills }
    }
}

#[async_trait]
impl TypedTool for Skill {
    type Args = SkillArgs;

    fn name(&self) -> &'static str {
        SKILL
    }

    fn description(&self) -> &'static str {
        "Load the instructions of a skill listed under \"Skills\" in the system prompt, when the task matches its description. The result gives the instructions, the skill's folder and the files beside them; follow the instructions, and read a file they mention with `file` (or read_file when the folder is in the project)."
    }

    fn brief(&self) -> Option<&'static str> {
        Some("Load a listed skill's instructions by name.")
    }

    fn usable(&self) -> bool {
        !self.skills.is_empty()
    }

    async fn run(&self, ctx: &ToolContext, args: SkillArgs) -> ToolResult {
        let name = args.name.trim();
        let Some(skill) = self.skills.get(name) else {
            let names: Vec<&str> = self.skills.all().iter().map(|s| s.name.as_str()).collect();
            return ToolResult::error(format!(
                "There is no skill `{name}`. Skills: {}.",
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            ));
        };
        let skill = skill.clone();
        let root = ctx.root.clone();
        let file = args.file.filter(|f| !f.trim().is_empty());
        let outcome = tokio::task::spawn_blocking(move || match file {
            Some(file) => read_beside(&skill, file.trim()),
            None => instructions(&skill, &root),
        })
        .await;
        match outcome {
            Ok(Ok(text)) => ToolResult::ok(text),
            Ok(Err(message)) => ToolResult::error(message),
            Err(e) => ToolResult::error(format!("skill stopped: {e}")),
        }
    }
}

/// The skill's instructions, folder and files.
fn instructions(skill: &SkillEntry, root: &Path) -> Result<String, String> {
    let body = skill
        .body()
        .map_err(|e| format!("Cannot load the skill: {e}"))?;
    let folder = match skill.dir.strip_prefix(root) {
        Ok(relative) => format!(
            "{} (in the project: read its files with read_file)",
            relative.display()
        ),
        Err(_) => format!(
            "{} (outside the project: read its files with this tool's `file`)",
            skill.dir.display()
        ),
    };
    let mut files = Vec::new();
    list_files(&skill.dir, &skill.dir, &mut files);
    files.sort();
    let listed = if files.is_empty() {
        "none".to_owned()
    } else if files.len() > MAX_LISTED {
        format!(
            "{} and {} more",
            files[..MAX_LISTED].join(", "),
            files.len() - MAX_LISTED
        )
    } else {
        files.join(", ")
    };
    Ok(format!(
        "# Skill: {}\n\nFolder: {folder}\nFiles beside SKILL.md: {listed}\n\n{body}\n",
        skill.name
    ))
}

/// The files under `dir` (hidden ones aside), relative to `base`, `SKILL.md` left out.
fn list_files(base: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            list_files(base, &path, out);
        } else if let Ok(relative) = path.strip_prefix(base)
            && relative != Path::new(SKILL_FILE)
        {
            out.push(relative.display().to_string());
        }
    }
}

/// `file` in the skill's folder: relative, no `..`, and still inside it once links are
/// followed.
fn read_beside(skill: &SkillEntry, file: &str) -> Result<String, String> {
    let relative = PathBuf::from(file);
    if !relative
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(format!(
            "`{file}` is not a path inside the skill's folder: give it relative to {}, without `..`.",
            skill.dir.display()
        ));
    }
    let dir = skill
        .dir
        .canonicalize()
        .map_err(|e| format!("Cannot open the skill's folder: {e}"))?;
    let path = dir
        .join(&relative)
        .canonicalize()
        .map_err(|e| format!("Cannot read `{file}` in the skill `{}`: {e}", skill.name))?;
    if !path.starts_with(&dir) {
        return Err(format!(
            "`{file}` leads out of the skill's folder; it is not read."
        ));
    }
    let size = std::fs::metadata(&path)
        .map_err(|e| format!("Cannot read `{file}`: {e}"))?
        .len();
    if size > MAX_FILE_BYTES {
        return Err(format!(
            "`{file}` has {size} bytes; this tool reads files of at most {MAX_FILE_BYTES}."
        ));
    }
    let bytes = std::fs::read(&path).map_err(|e| format!("Cannot read `{file}`: {e}"))?;
    String::from_utf8(bytes).map_err(|_| format!("`{file}` is not UTF-8 text."))
}
