//! Figure 1: many SSE subscribers on one session while a scripted run streams.

use std::collections::HashMap;
use std::time::Duration;

use anyhow::{Context, Result};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use super::server::{Api, Memory, Process, Spec, cpu_secs};
use super::sse::{self, Log, Phase, Target};
use super::stats::{SequenceCheck, Spread};

/// Longest wait for all subscribers to connect.
const CONNECT_LIMIT: Duration = Duration::from_secs(120);
/// Longest wait for the scripted turn.
const TURN_LIMIT: Duration = Duration::from_secs(600);
/// Longest wait, after the turn ended, for every subscriber to receive the last event.
const DRAIN_LIMIT: Duration = Duration::from_secs(60);

/// Events listed with their latency, slowest first.
const SLOWEST_SHOWN: usize = 5;

/// What the fan-out run measured.
#[derive(Debug)]
pub struct Report {
    /// Subscribers asked for.
    pub subscribers: usize,
    /// Subscribers whose stream opened.
    pub connected: usize,
    /// Why the others did not (first few, with a count of each).
    pub connect_errors: Vec<(String, usize)>,
    /// Time to open every stream, seconds.
    pub connect_secs: f64,
    /// Status of the turn, and its error.
    pub turn: (String, Option<String>),
    /// First and last seq of the run.
    pub seqs: (u64, u64),
    /// Events the JSON pages return for the run.
    pub read_back: u64,
    /// Events received, over all subscribers.
    pub deliveries: u64,
    /// Sum of every subscriber's sequence check.
    pub check: SequenceCheck,
    /// Subscribers that saw exactly the run's seqs, each once, in order.
    pub clean_subscribers: usize,
    /// Control messages and early stream ends, with a count of each.
    pub notices: Vec<(String, usize)>,
    /// Turn start to the last receipt, seconds.
    pub run_secs: f64,
    /// Receipt time − the event's `ts`, ms.
    pub latency: Option<Spread>,
    /// Receipt time − the first receipt of the same seq by any subscriber, ms.
    pub spread: Option<Spread>,
    /// The events with the highest median latency: seq, type, latency spread (ms).
    pub slowest: Vec<(u64, String, Spread)>,
    /// Server memory with the session created, before any subscriber.
    pub memory_start: Memory,
    /// Server memory with every subscriber connected.
    pub memory_connected: Memory,
    /// Server memory after the run.
    pub memory_end: Memory,
    /// CPU seconds the server used from turn start until every subscriber was done.
    pub server_cpu_secs: f64,
    /// CPU seconds this benchmark process (the subscribers) used in the same window.
    pub client_cpu_secs: f64,
    /// Length of that window, seconds.
    pub window_secs: f64,
}

impl Report {
    /// Events in the run.
    pub fn events(&self) -> u64 {
        (self.seqs.1 + 1).saturating_sub(self.seqs.0)
    }

    /// Deliveries per second, turn start to the last receipt.
    pub fn events_per_sec(&self) -> f64 {
        self.deliveries as f64 / self.run_secs.max(f64::EPSILON)
    }
}

/// Runs the fan-out figure against a server started from `spec`.
pub async fn run(spec: &Spec, subscribers: usize, client: &reqwest::Client) -> Result<Report> {
    let server = Process::start(spec)?;
    let result = measure(&server, spec, subscribers, client).await;
    let tail = server.stderr_tail();
    server.stop()?;
    result.with_context(|| format!("keel-server's last lines:\n{tail}"))
}

async fn measure(
    server: &Process,
    spec: &Spec,
    subscribers: usize,
    client: &reqwest::Client,
) -> Result<Report> {
    let api = Api {
        client: client.clone(),
        base: server.base.clone(),
        token: spec.token.clone(),
    };
    let session = api
        .create_session("bench-fanout", &spec.allowed_root)
        .await?;
    let after = api.last_seq(&session).await?;
    let memory_start = server.memory()?;

    let target = Target {
        client: client.clone(),
        url: format!("{}/v1/sessions/{session}/events?after={after}", server.base),
        token: spec.token.clone(),
    };
    let connect_started = std::time::Instant::now();
    let (phase, tasks, outcomes) = open(&target, subscribers).await;
    let connect_secs = connect_started.elapsed().as_secs_f64();
    let connected = outcomes.iter().filter(|o| o.is_ok()).count();
    let connect_errors = tally(outcomes.into_iter().filter_map(Result::err));
    // Let the server settle before reading its memory.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let memory_connected = server.memory()?;

    let server_cpu = server.cpu_secs()?;
    let client_cpu = cpu_secs("/proc/self/stat")?;
    let started_us = sse::now_micros();
    let turn_id = api
        .start_turn(&session, "The statistics tests fail; find and fix the bug.")
        .await?;
    let turn = api.wait_turn(&session, &turn_id, TURN_LIMIT).await?;
    let last = api.last_seq(&session).await?;
    let logs = drain(phase, tasks, last).await;
    let window_secs = (sse::now_micros() - started_us) as f64 / 1e6;
    let server_cpu_secs = server.cpu_secs()? - server_cpu;
    let client_cpu_secs = cpu_secs("/proc/self/stat")? - client_cpu;
    let memory_end = server.memory()?;
    let stored = api.read_back(&session, after).await?;

    let first = after + 1;
    let mut check = SequenceCheck::default();
    let mut clean_subscribers = 0;
    let mut first_seen: HashMap<u64, i64> = HashMap::new();
    let mut last_receipt = started_us;
    let mut deliveries = 0u64;
    let mut latencies = Vec::new();
    let mut by_seq: HashMap<u64, Vec<f64>> = HashMap::new();
    for log in &logs {
        let one = SequenceCheck::of(log.receipts.iter().map(|r| r.seq), first, last);
        if one.is_clean() && !log.receipts.is_empty() {
            clean_subscribers += 1;
        }
        check.missing += one.missing;
        check.duplicates += one.duplicates;
        check.out_of_order += one.out_of_order;
        check.unexpected += one.unexpected;
        deliveries += log.receipts.len() as u64;
        for receipt in &log.receipts {
            let seen = first_seen.entry(receipt.seq).or_insert(receipt.received_us);
            *seen = (*seen).min(receipt.received_us);
            last_receipt = last_receipt.max(receipt.received_us);
            if let Some(&ts) = stored.ts_us.get(&receipt.seq) {
                let latency = (receipt.received_us - ts) as f64 / 1000.0;
                latencies.push(latency);
                by_seq.entry(receipt.seq).or_default().push(latency);
            }
        }
    }
    // Subscribers that never connected missed the whole run.
    check.missing += (subscribers - connected) as u64 * (last + 1).saturating_sub(first);
    let spreads = logs
        .iter()
        .flat_map(|log| log.receipts.iter())
        .filter_map(|r| {
            first_seen
                .get(&r.seq)
                .map(|f| (r.received_us - f) as f64 / 1000.0)
        })
        .collect();
    let mut slowest: Vec<(u64, String, Spread)> = by_seq
        .into_iter()
        .filter_map(|(seq, values)| {
            let kind = stored.types.get(&seq).cloned().unwrap_or_default();
            Spread::of(values).map(|spread| (seq, kind, spread))
        })
        .collect();
    slowest.sort_by(|a, b| b.2.p50.total_cmp(&a.2.p50));
    slowest.truncate(SLOWEST_SHOWN);
    let notices = tally(logs.into_iter().flat_map(|log| log.notices).map(|n| {
        // `lagged`/`reload` carry a seq: group them by kind only.
        n.split_once(": {")
            .map_or(n.clone(), |(kind, _)| kind.to_owned())
    }));
    Ok(Report {
        subscribers,
        connected,
        connect_errors,
        connect_secs,
        turn,
        seqs: (first, last),
        read_back: stored.count,
        slowest,
        deliveries,
        check,
        clean_subscribers,
        notices,
        run_secs: (last_receipt - started_us) as f64 / 1e6,
        latency: Spread::of(latencies),
        spread: Spread::of(spreads),
        memory_start,
        memory_connected,
        memory_end,
        server_cpu_secs,
        client_cpu_secs,
        window_secs,
    })
}

/// Subscribers' tasks with the phase that steers them.
pub type Subscribers = (
    watch::Sender<Phase>,
    Vec<JoinHandle<Log>>,
    Vec<Result<(), String>>,
);

/// Opens `count` subscriptions to `target` and waits until each connected or failed (or
/// [`CONNECT_LIMIT`] passed: the missing ones count as failed).
pub async fn open(target: &Target, count: usize) -> Subscribers {
    let (phase, phase_rx) = watch::channel(Phase::Running);
    let (connected_tx, mut connected_rx) = mpsc::unbounded_channel();
    let tasks: Vec<_> = (0..count)
        .map(|_| {
            tokio::spawn(sse::subscribe(
                target.clone(),
                connected_tx.clone(),
                phase_rx.clone(),
            ))
        })
        .collect();
    drop(connected_tx);
    let mut outcomes = Vec::with_capacity(count);
    let deadline = tokio::time::Instant::now() + CONNECT_LIMIT;
    while outcomes.len() < count {
        match tokio::time::timeout_at(deadline, connected_rx.recv()).await {
            Ok(Some(outcome)) => outcomes.push(outcome),
            Ok(None) => break,
            Err(_) => {
                let missing = count - outcomes.len();
                outcomes.extend(
                    (0..missing).map(|_| Err(format!("not connected within {CONNECT_LIMIT:?}"))),
                );
            }
        }
    }
    (phase, tasks, outcomes)
}

/// Tells the subscribers the run ended at `last`, waits for them to get there (at most
/// [`DRAIN_LIMIT`], then stops them) and returns their logs.
pub async fn drain(
    phase: watch::Sender<Phase>,
    tasks: Vec<JoinHandle<Log>>,
    last: u64,
) -> Vec<Log> {
    drain_within(phase, tasks, last, DRAIN_LIMIT).await
}

/// [`drain`], waiting at most `limit`.
pub async fn drain_within(
    phase: watch::Sender<Phase>,
    tasks: Vec<JoinHandle<Log>>,
    last: u64,
    limit: Duration,
) -> Vec<Log> {
    // Subscribers hold receivers until they end; a send error only means all have ended.
    let _ = phase.send(Phase::Until(last));
    let deadline = tokio::time::Instant::now() + limit;
    let mut logs = Vec::with_capacity(tasks.len());
    for mut task in tasks {
        let log = match tokio::time::timeout_at(deadline, &mut task).await {
            Ok(joined) => joined,
            Err(_) => {
                let _ = phase.send(Phase::Stop);
                task.await
            }
        };
        logs.push(log.unwrap_or_else(|e| Log {
            receipts: Vec::new(),
            notices: vec![format!("subscriber task failed: {e}")],
        }));
    }
    logs
}

/// Distinct messages with how often each occurred, most frequent first.
fn tally(messages: impl IntoIterator<Item = String>) -> Vec<(String, usize)> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for message in messages {
        *counts.entry(message).or_default() += 1;
    }
    let mut counts: Vec<_> = counts.into_iter().collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    counts
}
