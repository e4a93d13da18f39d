//! Figure 2: events persisted per second through the server, on SQLite or PostgreSQL.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use keel_test_support::ScriptBuilder;

use super::fanout::{drain, open};
use super::server::{Api, Process, Spec};
use super::sse::{self, Target};

/// Longest wait for the long turn.
const TURN_LIMIT: Duration = Duration::from_secs(900);

/// What one persistence run measured.
#[derive(Debug)]
pub struct Report {
    /// `sqlite` or `postgres`.
    pub store: &'static str,
    /// Status of the turn, and its error.
    pub turn: (String, Option<String>),
    /// Events the run produced (by seq).
    pub events: u64,
    /// Events the JSON pages return for the run.
    pub read_back: u64,
    /// Turn start to the final event, seconds.
    pub wall_secs: f64,
    /// How the end was observed.
    pub end_from: &'static str,
}

impl Report {
    /// Stored events per second.
    pub fn events_per_sec(&self) -> f64 {
        self.read_back as f64 / self.wall_secs.max(f64::EPSILON)
    }
}

/// Writes the long script: one answer of `deltas` text pieces, streamed without pauses.
pub fn write_script(path: &Path, deltas: usize) -> Result<()> {
    let text: String = (0..deltas).map(|i| format!("w{:02} ", i % 100)).collect();
    Ok(ScriptBuilder::new()
        .chunk_chars(4)
        .delay_ms(0)
        .text(text)
        .write(path)?)
}

/// Runs one persistence measurement against a server started from `spec`.
pub async fn run(spec: &Spec, store: &'static str, client: &reqwest::Client) -> Result<Report> {
    let server = Process::start(spec)?;
    let result = measure(&server, spec, store, client).await;
    let tail = server.stderr_tail();
    server.stop()?;
    result.with_context(|| format!("keel-server ({store}) last lines:\n{tail}"))
}

async fn measure(
    server: &Process,
    spec: &Spec,
    store: &'static str,
    client: &reqwest::Client,
) -> Result<Report> {
    let api = Api {
        client: client.clone(),
        base: server.base.clone(),
        token: spec.token.clone(),
    };
    let session = api
        .create_session("bench-persist", &spec.allowed_root)
        .await?;
    let after = api.last_seq(&session).await?;
    // One live subscriber: events are broadcast only once stored, so its last receipt is
    // when the final event was committed.
    let target = Target {
        client: client.clone(),
        url: format!("{}/v1/sessions/{session}/events?after={after}", server.base),
        token: spec.token.clone(),
    };
    let (phase, tasks, outcomes) = open(&target, 1).await;
    let subscribed = outcomes.iter().all(Result::is_ok);

    let started_us = sse::now_micros();
    let turn_id = api.start_turn(&session, "Write a long answer.").await?;
    let turn = api.wait_turn(&session, &turn_id, TURN_LIMIT).await?;
    let last = api.last_seq(&session).await?;
    let logs = drain(phase, tasks, last).await;
    let stored = api.read_back(&session, after).await?;

    let live_end = logs
        .first()
        .filter(|log| subscribed && log.notices.is_empty())
        .and_then(|log| log.receipts.last())
        .filter(|r| r.seq == last)
        .map(|r| r.received_us);
    let (end_us, end_from) = match live_end {
        Some(end) => (end, "live receipt of the final event"),
        None => (
            stored
                .last_ts
                .as_deref()
                .and_then(sse::rfc3339_micros)
                .context("the final event has no readable ts")?,
            "ts of the final event (the live subscriber fell behind)",
        ),
    };
    Ok(Report {
        store,
        turn,
        events: last.saturating_sub(after),
        read_back: stored.count,
        wall_secs: (end_us - started_us) as f64 / 1e6,
        end_from,
    })
}
