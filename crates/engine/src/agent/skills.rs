//! The session's skills (keel-extensions' [`Skills`]): found once when the session is built,
//! listed by name and description at the end of the system prompt — after the environment
//! and project instructions, so the list is as stable as they are and a provider's prompt
//! cache keeps it — and loaded one at a time by the `skill` tool. A `SKILL.md` that cannot be
//! used is a `system.log` warning naming its file and line at the session's first turn.

use std::path::Path;
use std::sync::Arc;

use keel_events::{Emitter, LogLevel, SystemLog};
use keel_extensions::{Skills, Sources, Warning};

/// The skills of the project at `root` and of the user's config folder `user_dir`, with the
/// warnings for the files skipped.
pub(crate) fn discover(root: &Path, user_dir: Option<&Path>) -> (Arc<Skills>, Vec<Warning>) {
    let (skills, warnings) = Skills::discover(&Sources::new(root, user_dir.map(Path::to_path_buf)));
    (Arc::new(skills), warnings)
}

/// The system prompt's skills section: one line per skill, its body left for the `skill`
/// tool (empty without skills).
pub(crate) fn section(skills: &Skills) -> String {
    if skills.is_empty() {
        return String::new();
    }
    let mut lines = vec![
        keel_context::prompt::SKILLS_HEADING.to_owned(),
        String::new(),
    ];
    for skill in skills.all() {
        lines.push(format!("- {}: {}", skill.name, skill.description));
    }
    lines.join("\n")
}

/// Each warning about an extension file (a skill, an agent) as a `system.log` warning with its
/// file and line in `metadata`.
pub(crate) fn report(warnings: &[Warning], emitter: &Emitter) {
    for warning in warnings {
        let message = warning.to_string();
        tracing::warn!(%message, "extension file skipped");
        let mut metadata = serde_json::Map::new();
        metadata.insert("path".to_owned(), warning.path.display().to_string().into());
        metadata.insert("line".to_owned(), warning.line.into());
        emitter.emit(SystemLog {
            level: LogLevel::Warn,
            message,
            metadata: Some(metadata),
        });
    }
}
