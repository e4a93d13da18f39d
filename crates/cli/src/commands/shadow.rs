//! `keel shadow diff|apply [PATH…]|discard [PATH…]`: the batch a shadowed session (`--shadow`,
//! `shadow = true`) staged under `.keel/shadow/<session>/`, reviewed, applied to the real tree
//! or thrown away (all of it or some paths). Applying, and discarding some paths, leave a
//! `system.log` in the session's stored log, as the server's routes do.
//!
//! Exit status: 0 on success; 1 when there is no pending batch, it is damaged, a path is not
//! staged (nothing is then applied or discarded) or a path conflicts (the real file changed
//! meanwhile: it is left alone, reported, and stays staged; the other paths still apply); 2 for
//! usage errors (a bad session id, a path outside the root).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use keel_events::SystemLog;
use keel_tools::shadow::{self, ApplyReport, Batch, ChangeKind, Shadow, ShadowError};

use super::EXIT_USAGE;
use super::run::block_on;
use super::sessions::existing_store;

/// `keel shadow` subcommands.
#[derive(Debug, Subcommand)]
pub enum ShadowCommand {
    /// Show the staged batch: every path, its change, and the combined unified diff.
    Diff(ShadowArgs),
    /// Apply the staged changes to the real tree: all of them, or only the PATHs given.
    Apply(PathsArgs),
    /// Throw the staged changes away: all of them (the shadow workspace is removed, even a
    /// damaged one), or only the PATHs given.
    Discard(PathsArgs),
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

/// Arguments of `keel shadow apply` and `keel shadow discard`.
#[derive(Debug, Args)]
pub struct PathsArgs {
    /// Where the batch is.
    #[command(flatten)]
    pub shadow: ShadowArgs,
    /// Staged paths (relative to the root; a move by either of its paths) [default: all].
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
    let batch = match Shadow::open_pending(&args.root, args.session.as_deref())
        .and_then(|mut s| s.batch())
    {
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

fn apply(args: &PathsArgs) -> ExitCode {
    let report = match Shadow::open_pending(&args.shadow.root, args.shadow.session.as_deref())
        .and_then(|s| s.apply(&args.paths))
    {
        Ok(report) => report,
        Err(e) => return failed("apply", &e),
    };
    record("apply", &args.shadow.root, &report.session, report.log());
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

fn discard(args: &PathsArgs) -> ExitCode {
    if !args.paths.is_empty() {
        return discard_paths(args);
    }
    let shadow_args = &args.shadow;
    match shadow::discard(&shadow_args.root, shadow_args.session.as_deref()) {
        Ok(session) => {
            if shadow_args.json {
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

fn discard_paths(args: &PathsArgs) -> ExitCode {
    let report = match Shadow::open_pending(&args.shadow.root, args.shadow.session.as_deref())
        .and_then(|s| s.discard_paths(&args.paths))
    {
        Ok(report) => report,
        Err(e) => return failed("discard", &e),
    };
    record("discard", &args.shadow.root, &report.session, report.log());
    if args.shadow.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        println!(
            "Discarded {} staged change(s) of session {}: {}",
            report.discarded.len(),
            report.session,
            report.discarded.join(", ")
        );
        if report.closed {
            println!("Nothing is left staged; the shadow workspace is removed.");
        } else {
            println!("Still staged: {}", report.remaining.join(", "));
        }
    }
    ExitCode::SUCCESS
}

/// Leaves `event` in `session`'s stored log (when the project has a store and the session is
/// in it), as the server does for the same action; a failure to record is only a warning.
fn record(what: &str, root: &Path, session: &str, event: SystemLog) {
    let command = format!("shadow {what}");
    block_on(&command, async {
        match existing_store(root).await {
            Ok(Some(store)) => {
                let appended = keel_host::append_outside_turn(store.as_ref(), session, event).await;
                store.close().await;
                if let Err(e) = appended {
                    eprintln!(
                        "keel {command}: warning: not recorded in session {session}'s log: {e}"
                    );
                }
            }
            Ok(None) => {}
            Err(e) => {
                eprintln!("keel {command}: warning: not recorded in session {session}'s log: {e}")
            }
        }
        ExitCode::SUCCESS
    });
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
        ChangeKind::Moved => "moved",
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
        let shown = match &change.from {
            Some(from) => format!("{from} → {}", change.path),
            None => change.path.clone(),
        };
        let _ = write!(
            out,
            "  {:<8} {shown} (+{} -{})",
            kind_name(change.kind),
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
                    from: None,
                    lines_added: 1,
                    lines_removed: 1,
                    diff: Some("--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-a\n+b\n".into()),
                    conflict: None,
                },
                StagedChange {
                    path: "lib/moved.rs".into(),
                    kind: ChangeKind::Moved,
                    from: Some("src/moved.rs".into()),
                    lines_added: 0,
                    lines_removed: 0,
                    diff: None,
                    conflict: None,
                },
                StagedChange {
                    path: "old.txt".into(),
                    kind: ChangeKind::Deleted,
                    from: None,
                    lines_added: 0,
                    lines_removed: 2,
                    diff: None,
                    conflict: Some("changed outside the session since the agent saw it".into()),
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
                reason: "changed outside the session since the agent saw it".into(),
            }],
            remaining: vec!["old.txt".into()],
            closed: false,
        };
        insta::assert_snapshot!("shadow_report", render_report(&report));
    }
}
