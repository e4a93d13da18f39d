//! Where extension files are looked for: the project's folders in order, then the user's config
//! folder. The first file found under a name wins; a later one of the same name is a warning.

use std::path::{Path, PathBuf};

/// Whose folder a file came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// The project's (`.keel/`, `.agents/`, `.claude/`).
    Project,
    /// The user's config folder (`$KEEL_CONFIG_DIR`, else `~/.config/keel`).
    User,
}

impl Scope {
    /// `project` or `user`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Project => "project",
            Self::User => "user",
        }
    }
}

/// The folders a kind of extension file lives in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sources {
    /// The project root.
    pub root: PathBuf,
    /// The user's config folder, if there is one.
    pub user_dir: Option<PathBuf>,
}

/// The project folders that may hold skills, in order of precedence.
pub const SKILL_FOLDERS: [&str; 3] = [".keel/skills", ".agents/skills", ".claude/skills"];
/// The project folders that may hold command templates, in order of precedence.
pub const COMMAND_FOLDERS: [&str; 2] = [".keel/commands", ".claude/commands"];
/// The project files that may hold hooks, in order: Claude Code's settings (shared, then
/// local) and Codex's `hooks.json` (the same shape).
pub const HOOK_FILES: [&str; 3] = [
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".codex/hooks.json",
];
/// The user config folder's hook file (Claude Code's shape).
pub const USER_HOOKS: &str = "hooks.json";
/// The user config folder's subfolder of skills.
pub const USER_SKILLS: &str = "skills";
/// The user config folder's subfolder of command templates.
pub const USER_COMMANDS: &str = "commands";

impl Sources {
    /// The project at `root`, with the user's config folder `user_dir`.
    pub fn new(root: impl Into<PathBuf>, user_dir: Option<PathBuf>) -> Self {
        Self {
            root: root.into(),
            user_dir,
        }
    }

    /// The folders to search, with their scope, in order of precedence: the project's
    /// `project` subfolders, then `user` under the user's folder.
    pub fn folders(&self, project: &[&str], user: &str) -> Vec<(PathBuf, Scope)> {
        let mut folders: Vec<(PathBuf, Scope)> = project
            .iter()
            .map(|folder| (self.root.join(folder), Scope::Project))
            .collect();
        if let Some(dir) = &self.user_dir {
            folders.push((dir.join(user), Scope::User));
        }
        folders
    }
}

/// The entries of `dir` sorted by name (none when it cannot be read: a missing folder is the
/// usual case).
pub(crate) fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    paths
}
