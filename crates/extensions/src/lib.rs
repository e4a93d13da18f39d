//! Keel's extension files, in the formats other coding agents already use, so a team's files
//! work here unchanged: Agent Skills (`SKILL.md` folders in `.keel/skills/`, `.agents/skills/`,
//! `.claude/skills/` and the user's `skills/`) and custom commands (`NAME.md` prompt templates
//! in `.keel/commands/`, `.claude/commands/` and the user's `commands/`) and hooks (commands
//! run at points of a session, configured in `keel.toml`, Claude Code's `.claude/settings.json`
//! or Codex's `.codex/hooks.json`) and custom subagents (`NAME.md` in `.keel/agents/`,
//! `.claude/agents/` and the user's `agents/`), with the trusted folders a project's hooks and
//! agents need.
//!
//! One discovery for every kind: [`Sources`] names the project and the user's config folder,
//! each kind lists its folders in order of precedence, a file that cannot be used is a
//! [`Warning`] naming its file and line and is skipped, and YAML front matter is read by
//! [`front_matter`]. Nothing here runs anything (keel-tools runs hooks).

pub mod agent;
pub mod command;
pub mod front_matter;
pub mod hook;
pub mod skill;
mod sources;
mod tool_names;
mod tool_patterns;
pub mod trust;
mod warning;

pub use agent::{AGENT_FOLDERS, Agent, Agents, USER_AGENTS};
pub use command::{Command, Commands, ExpandError};
pub use front_matter::FrontMatterError;
pub use hook::outcome::{Decision, HookOutcome, HookRun};
pub use hook::{Hook, HookEvent, HookOrigin, Hooks, MatcherError};
pub use skill::{SKILL_FILE, Skill, SkillError, Skills};
pub use sources::{
    COMMAND_FOLDERS, HOOK_FILES, SKILL_FOLDERS, Scope, Sources, USER_COMMANDS, USER_HOOKS,
    USER_SKILLS,
};
pub use tool_names::{allowed_keel_tools, claude_tool_names, keel_tool_name};
pub use tool_patterns::{command_matches, command_patterns};
pub use trust::{TRUST_FILE, TrustError, TrustedFolders};
pub use warning::Warning;

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExample;
