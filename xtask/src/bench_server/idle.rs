//! Figure 3: server memory per idle session, and per idle SSE subscriber on top.

use std::time::Duration;

use anyhow::{Context, Result, bail};
use tokio::task::JoinSet;

use super::fanout::{drain, open};
use super::server::{Api, Memory, Process, Spec};
use super::sse::Target;

/// Sessions created at once.
const CREATE_CONCURRENCY: usize = 16;
/// Pause before reading memory, so the server settles.
const SETTLE: Duration = Duration::from_millis(500);

/// What the idle run measured.
#[derive(Debug)]
pub struct Report {
    /// Sessions created.
    pub sessions: usize,
    /// Time to create them, seconds.
    pub create_secs: f64,
    /// Memory after start-up and one warm-up session.
    pub base: Memory,
    /// Memory with every session created.
    pub with_sessions: Memory,
    /// Subscribers connected (one per session).
    pub subscribers: usize,
    /// Memory with every subscriber connected.
    pub with_subscribers: Memory,
}

/// Runs the idle-session figure against a server started from `spec`.
pub async fn run(spec: &Spec, sessions: usize, client: &reqwest::Client) -> Result<Report> {
    let server = Process::start(spec)?;
    let result = measure(&server, spec, sessions, client).await;
    let tail = server.stderr_tail();
    server.stop()?;
    result.with_context(|| format!("keel-server's last lines:\n{tail}"))
}

async fn measure(
    server: &Process,
    spec: &Spec,
    sessions: usize,
    client: &reqwest::Client,
) -> Result<Report> {
    let api = Api {
        client: client.clone(),
        base: server.base.clone(),
        token: spec.token.clone(),
    };
    // Warm-up: the first session and stream set up what every later one shares.
    let warm = api.create_session("bench-idle", &spec.allowed_root).await?;
    let (phase, tasks, _) = open(&target(server, spec, client, &warm), 1).await;
    drain(phase, tasks, 0).await;
    tokio::time::sleep(SETTLE).await;
    let base = server.memory()?;

    let started = std::time::Instant::now();
    let mut ids = Vec::with_capacity(sessions);
    let mut running = JoinSet::new();
    for _ in 0..sessions {
        if running.len() == CREATE_CONCURRENCY
            && let Some(done) = running.join_next().await
        {
            ids.push(done??);
        }
        let api = api.clone();
        let root = spec.allowed_root.clone();
        running.spawn(async move { api.create_session("bench-idle", &root).await });
    }
    while let Some(done) = running.join_next().await {
        ids.push(done??);
    }
    let create_secs = started.elapsed().as_secs_f64();
    if ids.len() != sessions {
        bail!("created {} sessions of {sessions}", ids.len());
    }
    tokio::time::sleep(SETTLE).await;
    let with_sessions = server.memory()?;

    let mut phases = Vec::with_capacity(sessions);
    let mut subscribers = 0;
    for id in &ids {
        let (phase, tasks, outcomes) = open(&target(server, spec, client, id), 1).await;
        subscribers += outcomes.iter().filter(|o| o.is_ok()).count();
        phases.push((phase, tasks));
    }
    tokio::time::sleep(SETTLE).await;
    let with_subscribers = server.memory()?;
    for (phase, tasks) in phases {
        drain(phase, tasks, 0).await;
    }
    Ok(Report {
        sessions,
        create_secs,
        base,
        with_sessions,
        subscribers,
        with_subscribers,
    })
}

fn target(server: &Process, spec: &Spec, client: &reqwest::Client, session: &str) -> Target {
    Target {
        client: client.clone(),
        url: format!("{}/v1/sessions/{session}/events", server.base),
        token: spec.token.clone(),
    }
}
