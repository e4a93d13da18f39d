//! Importing a legacy log file (seed 003 §8) into the store: its lines become the events of a
//! new session of the project (see [`keel_events::projection::log_import`]), so the project's
//! Activity Timeline shows them. Bad lines are reported by number and skipped; the good ones
//! are stored in one transaction, all or none.

use std::path::PathBuf;

use keel_events::Sequencer;
use keel_events::projection::{BadLine, read_log};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::StoreResult;
use crate::session::{NewSession, SessionStatus};
use crate::store::Store;

/// What to import.
#[derive(Debug, Clone)]
pub struct LogImportRequest {
    /// Project the log belongs to.
    pub project_id: String,
    /// Workspace folder recorded on the new session.
    pub root: PathBuf,
    /// Where the log came from (a file name), kept in the session's title and metadata.
    pub source: String,
}

/// The outcome of an import.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogImportReport {
    /// The session holding the imported events; absent when no line was imported.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Lines imported (one event each).
    pub imported: usize,
    /// Blank lines skipped.
    pub blank_lines: usize,
    /// Lines skipped as unreadable, with their numbers.
    pub bad_lines: Vec<BadLine>,
}

/// Imports the log `bytes` as a new, completed session of `request.project_id`.
pub async fn import_log(
    store: &dyn Store,
    request: &LogImportRequest,
    bytes: &[u8],
) -> StoreResult<LogImportReport> {
    let read = read_log(bytes);
    let mut report = LogImportReport {
        session_id: None,
        imported: read.events.len(),
        blank_lines: read.blank_lines,
        bad_lines: read.bad_lines,
    };
    if read.events.is_empty() {
        return Ok(report);
    }
    let mut metadata = Map::new();
    metadata.insert(
        "imported_from".into(),
        Value::String(request.source.clone()),
    );
    let session = store
        .create_session(
            NewSession::new(request.project_id.clone(), request.root.clone())
                .with_title(format!("Imported log: {}", request.source))
                .with_metadata(metadata),
        )
        .await?;
    let sequencer = Sequencer::new(session.id.clone(), request.project_id.clone());
    let events: Vec<_> = read
        .events
        .into_iter()
        .map(|(_, kind)| sequencer.stamp(None, kind))
        .collect();
    if let Err(e) = store.append_events(&events).await {
        // Leave no empty session behind.
        let _ = store.delete_session(&session.id).await;
        return Err(e);
    }
    store
        .set_session_status(&session.id, SessionStatus::Completed)
        .await?;
    report.session_id = Some(session.id);
    Ok(report)
}
