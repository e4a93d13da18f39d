//! Recording a file change: the checkpoint before it and the `run.file.change` event after it.

use std::path::Path;
use std::time::Duration;

use keel_events::{FileOp, RunFileChange};
use similar::{ChangeTag, TextDiff};

use crate::tool::ToolContext;

/// Largest before+after text size (bytes) for which a unified diff is attached to the event.
pub const MAX_DIFF_INPUT_BYTES: usize = 512 * 1024;
/// Largest unified diff (bytes) attached to the event.
pub const MAX_DIFF_BYTES: usize = 128 * 1024;

/// Saves `path`'s current state in the turn's checkpoint, if the context records checkpoints.
/// Returns a message for the model when that fails (the change must then not be made).
pub fn checkpoint_before(ctx: &ToolContext, path: &Path) -> Result<(), String> {
    match &ctx.checkpoints {
        Some(store) => store.record_before(&ctx.change_group(), path).map_err(|e| {
            tracing::warn!(
                path = %path.display(),
                "checkpoint failed, the file is left unchanged: {e}"
            );
            format!(
                "Could not save a checkpoint before changing the file, so nothing was changed: {e}"
            )
        }),
        None => Ok(()),
    }
}

/// With `approval_edits = "ask"`, shows the change (`what` and its unified diff) to a person
/// and waits: `Ok` to go ahead, `Err(message for the model)` when it was rejected (nothing is
/// then changed). Without it, always `Ok`.
pub async fn approve_edit(
    ctx: &ToolContext,
    what: &str,
    rel: &str,
    before: Option<&str>,
    after: Option<&str>,
) -> Result<(), String> {
    if ctx.approval_edits != keel_protocol::EditApproval::Ask {
        return Ok(());
    }
    let change = text_change(rel, before, after);
    let diff = change.diff.unwrap_or_else(|| {
        format!(
            "(diff too large to show: +{} -{} lines)",
            change.added, change.removed
        )
    });
    let subject = format!("{what}\n{diff}");
    let reply = ctx
        .request_approval(
            keel_events::ApprovalKind::Tool,
            subject,
            "approval_edits = \"ask\": the change is shown before it is applied",
        )
        .await;
    match reply.decision {
        keel_events::ApprovalDecision::Approve => Ok(()),
        _ => Err(format!(
            "The user rejected this change{}; `{rel}` was not changed. Ask how they want it done.",
            reply
                .reason
                .filter(|r| !r.trim().is_empty())
                .map_or_else(String::new, |r| format!(" ({r})"))
        )),
    }
}

/// Line counts and diff between two texts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TextChange {
    /// Lines added.
    pub added: u64,
    /// Lines removed.
    pub removed: u64,
    /// Unified diff, when small enough.
    pub diff: Option<String>,
}

/// Compares `before` and `after` (either may be absent: a created or deleted file).
pub fn text_change(rel: &str, before: Option<&str>, after: Option<&str>) -> TextChange {
    let old = before.unwrap_or("");
    let new = after.unwrap_or("");
    let diff = TextDiff::configure()
        .timeout(Duration::from_secs(2))
        .diff_lines(old, new);
    let mut change = TextChange::default();
    for op in diff.ops() {
        for c in diff.iter_changes(op) {
            match c.tag() {
                ChangeTag::Insert => change.added += 1,
                ChangeTag::Delete => change.removed += 1,
                ChangeTag::Equal => {}
            }
        }
    }
    if old.len() + new.len() <= MAX_DIFF_INPUT_BYTES {
        let from = if before.is_some() {
            format!("a/{rel}")
        } else {
            "/dev/null".to_owned()
        };
        let to = if after.is_some() {
            format!("b/{rel}")
        } else {
            "/dev/null".to_owned()
        };
        let text = diff
            .unified_diff()
            .context_radius(3)
            .header(&from, &to)
            .to_string();
        if text.len() <= MAX_DIFF_BYTES && !text.is_empty() {
            change.diff = Some(text);
        }
    }
    change
}

/// MIME type guessed from the path's extension.
pub fn mime_type(rel: &str) -> Option<String> {
    mime_guess::from_path(rel)
        .first()
        .map(|m| m.essence_str().to_owned())
}

/// Emits `run.file.change` for a created, updated or deleted file.
pub fn emit_edit(
    ctx: &ToolContext,
    rel: &str,
    op: FileOp,
    before: Option<&str>,
    after: Option<&str>,
    size: Option<u64>,
) -> TextChange {
    let change = text_change(rel, before, after);
    let summary = match op {
        FileOp::Create => format!("Created {rel} (+{})", change.added),
        FileOp::Update => format!("Updated {rel} (+{} -{})", change.added, change.removed),
        FileOp::Delete => format!("Deleted {rel} (-{})", change.removed),
        FileOp::Move => format!("Changed {rel}"),
    };
    ctx.emitter.emit(RunFileChange {
        path: rel.to_owned(),
        op,
        from_path: None,
        to_path: None,
        summary,
        lines_added: change.added,
        lines_removed: change.removed,
        size,
        mime_type: mime_type(rel),
        diff: change.diff.clone(),
        staged: ctx.shadowed.then_some(true),
    });
    change
}

/// Emits `run.file.change` for a created or updated binary file (an image): its size and MIME
/// type, no diff.
pub fn emit_binary(ctx: &ToolContext, rel: &str, op: FileOp, size: u64, mime_type: &str) {
    let verb = match op {
        FileOp::Create => "Created",
        FileOp::Update => "Updated",
        FileOp::Delete => "Deleted",
        FileOp::Move => "Changed",
    };
    ctx.emitter.emit(RunFileChange {
        path: rel.to_owned(),
        op,
        from_path: None,
        to_path: None,
        summary: format!("{verb} {rel} ({mime_type}, {size} bytes)"),
        lines_added: 0,
        lines_removed: 0,
        size: Some(size),
        mime_type: Some(mime_type.to_owned()),
        diff: None,
        staged: ctx.shadowed.then_some(true),
    });
}

/// Emits `run.file.change` for a move.
pub fn emit_move(ctx: &ToolContext, from: &str, to: &str, size: Option<u64>) {
    ctx.emitter.emit(RunFileChange {
        path: to.to_owned(),
        op: FileOp::Move,
        from_path: Some(from.to_owned()),
        to_path: Some(to.to_owned()),
        summary: match ctx.lang {
            keel_events::Lang::En => format!("Moved {from} → {to}"),
            keel_events::Lang::ZhCn => format!("移动文件 {from} → {to}"),
        },
        lines_added: 0,
        lines_removed: 0,
        size,
        mime_type: mime_type(to),
        diff: None,
        staged: ctx.shadowed.then_some(true),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_lines() {
        let c = text_change("a.txt", Some("a\nb\nc\n"), Some("a\nB\nc\nd\n"));
        assert_eq!((c.added, c.removed), (2, 1));
        let diff = c.diff.unwrap();
        assert!(diff.contains("--- a/a.txt"), "{diff}");
        assert!(diff.contains("+B"), "{diff}");
        let created = text_change("n.rs", None, Some("x\ny\n"));
        assert_eq!((created.added, created.removed), (2, 0));
        assert!(created.diff.unwrap().starts_with("--- /dev/null"));
    }

    #[test]
    fn guesses_mime() {
        assert_eq!(mime_type("a/b.json").as_deref(), Some("application/json"));
        assert_eq!(mime_type("noext"), None);
    }
}
