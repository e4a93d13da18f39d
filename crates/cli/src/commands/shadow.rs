//! `keel shadow diff|apply [PATH…]|discard`: the batch a shadowed session (`--shadow`,
//! `shadow = true`) staged under `.keel/shadow/<session>/`, reviewed, applied to the real tree
//! (all of it or some paths) or thrown away.
//!
//! Exit status: 0 on success; 1 when there is no pending batch, it is damaged, a path is not
//! staged (nothing is then applied) or a path conflicts (the real file changed meanwhile: it
//! is left alone, reported, and stays staged; the other paths still apply); 2 for usage errors.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use keel_tools::shadow::{self, ApplyReport, Batch, ChangeKind, Shadow, ShadowError};

use super::EXIT_USAGE;

/// `keel shadow` subcommands.
#[derive(Debug, Subcommand)]
pub enum ShadowCommand {
    /// Show the staged batch: every path, its change, and the combined unified diff.
    Diff(ShadowArgs),
    /// Apply the staged changes to the real tree: all of them, or only the PATHs given.
    Apply(ApplyArgs),
    /// Throw the staged changes away (the shadow workspace is removed, even a damaged one).
    Discard(ShadowArgs),
}

/// Where the batch is.
#[derive(Debug, Args)]
pub struct ShadowArgs {
    /// Project folder.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub root: PathBuf,
    /// The session whose batch it is [default: the only session with one].
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `keel shadow apply`.
#[derive(Debug, Args)]
pub struct ApplyArgs {
    /// Where the batch is.
    #[command(flatten)]
    pub shadow: ShadowArgs,
    /// Staged paths to apply (relative to the root) [default: all].
    #[arg(value_name = "PATH")]
    pub paths: Vec<String>,
}

/// Runs `keel shadow …`.
pub fn run(command: ShadowCommand) -> ExitCode {
    match command {
        ShadowCommand::Diff(args) => diff(&args),
        ShadowCommand::Apply(args) => apply(&args),
        ShadowCommand::Discard(args) => discard(&args),
    }
}

fn diff(args: &ShadowArgs) -> ExitCode {
    let batch =
        match Shadow::open_pending(&args.root, args.session.as_deref()).and_then(|s| s.batch()) {
            Ok(batch) => batch,
            Err(e) => return failed("diff", &e),
        };
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&batch).unwrap_or_default()
        );
    } else {
        print!("{}", render_batch(&batch));
    }
    ExitCode::SUCCESS
}

fn apply(args: &ApplyArgs) -> ExitCode {
    let report = match Shadow::open_pending(&args.shadow.root, args.shadow.session.as_deref())
        .and_then(|s| s.apply(&args.paths))
    {
        Ok(report) => report,
        Err(e) => return failed("apply", &e),
    };
    for conflict in &report.conflicts {
        eprintln!(
            "keel shadow apply: warning: `{}` was not overwritten: {}",
            conflict.path, conflict.reason
        );
    }
    if args.shadow.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        print!("{}", render_report(&report));
    }
    if report.conflicts.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn discard(args: &ShadowArgs) -> ExitCode {
    match shadow::discard(&args.root, args.session.as_deref()) {
        Ok(session) => {
            if args.json {
                println!(
                    "{}",
                    serde_json::json!({ "session": session, "discarded": true })
                );
            } else {
                println!(
                    "Discarded session {session}'s staged changes; the real tree is unchanged."
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => failed("discard", &e),
    }
}

fn failed(what: &str, error: &ShadowError) -> ExitCode {
    eprintln!("keel shadow {what}: {error}");
    match error {
        ShadowError::Root(_) | ShadowError::InvalidSession(_) => ExitCode::from(EXIT_USAGE),
        _ => ExitCode::from(1),
    }
}

fn kind_name(kind: ChangeKind) -> &'static str {
    match kind {
        ChangeKind::Created => "created",
        ChangeKind::Updated => "updated",
        ChangeKind::Deleted => "deleted",
    }
}

/// The batch as text: a line per path, then the combined diff.
pub fn render_batch(batch: &Batch) -> String {
    let mut out = String::new();
    if batch.changes.is_empty() {
        let _ = writeln!(out, "Session {}: nothing staged.", batch.session);
        return out;
    }
    let _ = writeln!(
        out,
        "Session {}: {} staged change(s)",
        batch.session,
        batch.changes.len()
    );
    for change in &batch.changes {
        let _ = write!(
            out,
            "  {:<8} {} (+{} -{})",
            kind_name(change.kind),
            change.path,
            change.lines_added,
            change.lines_removed
        );
        if let Some(conflict) = &change.conflict {
            let _ = write!(out, "  CONFLICT: {conflict}");
        }
        out.push('\n');
    }
    if !batch.diff.is_empty() {
        out.push('\n');
        out.push_str(&batch.diff);
        if !batch.diff.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// What applying did, as text.
pub fn render_report(report: &ApplyReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Applied {} change(s) of session {}{}",
        report.applied.len(),
        report.session,
        if report.applied.is_empty() {
            String::new()
        } else {
            format!(": {}", report.applied.join(", "))
        }
    );
    for conflict in &report.conflicts {
        let _ = writeln!(
            out,
            "Conflict, not overwritten: {} ({})",
            conflict.path, conflict.reason
        );
    }
    if report.closed {
        let _ = writeln!(
            out,
            "Nothing is left staged; the shadow workspace is removed."
        );
    } else {
        let _ = writeln!(out, "Still staged: {}", report.remaining.join(", "));
    }
    out
}

#[cfg(test)]
mod tests {
    use keel_tools::shadow::{Conflict, StagedChange};

    use super::*;

    #[test]
    fn renders_a_batch_and_a_report() {
        let batch = Batch {
            session: "sess_1".into(),
            changes: vec![
                StagedChange {
                    path: "src/lib.rs".into(),
                    kind: ChangeKind::Updated,
                    lines_added: 1,
                    lines_removed: 1,
                    diff: Some("--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-a\n+b\n".into()),
                    conflict: None,
                },
                StagedChange {
                    path: "old.txt".into(),
                    kind: ChangeKind::Deleted,
                    lines_added: 0,
                    lines_removed: 2,
                    diff: None,
                    conflict: Some(
                        "changed outside the session since the shadow copy was made".into(),
                    ),
                },
            ],
            diff: "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-a\n+b\n".into(),
        };
        insta::assert_snapshot!("shadow_batch", render_batch(&batch));
        let report = ApplyReport {
            session: "sess_1".into(),
            applied: vec!["src/lib.rs".into()],
            conflicts: vec![Conflict {
                path: "old.txt".into(),
                reason: "changed outside the session since the shadow copy was made".into(),
            }],
            remaining: vec!["old.txt".into()],
            closed: false,
        };
        insta::assert_snapshot!("shadow_report", render_report(&report));
    }
}
