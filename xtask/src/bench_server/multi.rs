//! Figure 4: several instances on one PostgreSQL database, SSE subscribers spread across them,
//! while one instance streams a long scripted turn: every subscriber must see every event
//! (the instance writing the session forwards its own; the others relay them through
//! LISTEN/NOTIFY), with the delivery latency per instance and the events stored per second.

use std::time::Duration;

use anyhow::{Context, Result, bail};
use keel_test_support::ScriptBuilder;

use super::fanout::{drain_within, open};
use super::postgres::BenchDatabase;
use super::server::{Api, Process, Spec};
use super::sse::{self, Target};
use super::stats::{SequenceCheck, Spread};

/// Longest wait for the turn.
const TURN_LIMIT: Duration = Duration::from_secs(900);
/// Longest wait, after the turn ended, for every subscriber to receive the last event: ten
/// thousand subscribers' deliveries take their time on a small machine.
const DRAIN_LIMIT: Duration = Duration::from_secs(600);

/// What one instance's subscribers saw.
#[derive(Debug)]
pub struct Instance {
    /// Subscribers asked for on this instance.
    pub subscribers: usize,
    /// Subscribers whose stream opened.
    pub connected: usize,
    /// Their sequence checks, summed (`missing` counts what never arrived: lost).
    pub check: SequenceCheck,
    /// Events received.
    pub deliveries: u64,
    /// Receipt time − the event's `ts`, ms.
    pub latency: Option<Spread>,
    /// Whether this instance wrote the session (ran the turn).
    pub writer: bool,
}

/// What the multi-instance run measured.
#[derive(Debug)]
pub struct Report {
    /// Instances on the database.
    pub instances: Vec<Instance>,
    /// Status of the turn, and its error.
    pub turn: (String, Option<String>),
    /// Events of the run (by seq).
    pub events: u64,
    /// Events the JSON pages return for the run.
    pub read_back: u64,
    /// First to last stored event of the run (their `ts`), seconds.
    pub store_secs: f64,
    /// Time to open every stream, seconds.
    pub connect_secs: f64,
    /// Turn start to the last receipt, seconds.
    pub run_secs: f64,
}

impl Report {
    /// Events stored per second, first to last event of the run.
    pub fn stored_per_sec(&self) -> f64 {
        self.read_back as f64 / self.store_secs.max(f64::EPSILON)
    }

    /// Events never received, over every subscriber.
    pub fn lost(&self) -> u64 {
        self.instances.iter().map(|i| i.check.missing).sum()
    }

    /// Subscribers over every instance.
    pub fn subscribers(&self) -> usize {
        self.instances.iter().map(|i| i.subscribers).sum()
    }
}

/// Writes the turn's script: one answer of `deltas` text pieces, `delay_ms` apart.
pub fn write_script(path: &std::path::Path, deltas: usize, delay_ms: u64) -> Result<()> {
    let text: String = (0..deltas).map(|i| format!("w{:02} ", i % 100)).collect();
    Ok(ScriptBuilder::new()
        .chunk_chars(4)
        .delay_ms(delay_ms)
        .text(text)
        .write(path)?)
}

/// Starts `instances` servers from `spec` on a fresh database of the PostgreSQL server
/// `admin_url` names, spreads `subscribers` across them and measures one turn run on the first.
pub async fn run(
    spec: &Spec,
    admin_url: &str,
    instances: usize,
    subscribers: usize,
    client: &reqwest::Client,
) -> Result<Report> {
    let database = match BenchDatabase::create(admin_url).await? {
        Ok(database) => database,
        Err(reason) => bail!("the multi-instance figure needs PostgreSQL: {reason}"),
    };
    let mut servers = Vec::with_capacity(instances);
    let mut started = Ok(());
    for n in 0..instances {
        let mut one = spec.clone();
        one.database_url = Some(database.url.clone());
        one.data_dir = spec.data_dir.join(format!("instance-{n}"));
        one.extra_args
            .extend(["--instance-id".to_owned(), format!("bench-{n}")]);
        match Process::start(&one) {
            Ok(server) => servers.push(server),
            Err(e) => {
                started = Err(e);
                break;
            }
        }
    }
    let result = match started {
        Ok(()) => measure(&servers, spec, subscribers, client).await,
        Err(e) => Err(e),
    };
    let tails: Vec<String> = servers.iter().map(Process::stderr_tail).collect();
    for server in servers {
        server.stop()?;
    }
    database.drop_database().await?;
    result.with_context(|| format!("the instances' last lines:\n{}", tails.join("\n---\n")))
}

async fn measure(
    servers: &[Process],
    spec: &Spec,
    subscribers: usize,
    client: &reqwest::Client,
) -> Result<Report> {
    let api = |server: &Process| Api {
        client: client.clone(),
        base: server.base.clone(),
        token: spec.token.clone(),
    };
    let writer = servers.first().context("no instance")?;
    let session = api(writer)
        .create_session("bench-multi", &spec.allowed_root)
        .await?;
    let after = api(writer).last_seq(&session).await?;
    let connect_started = std::time::Instant::now();
    let mut opened = Vec::with_capacity(servers.len());
    for (n, server) in servers.iter().enumerate() {
        // Round robin: the first instances take one more when it does not divide.
        let count = subscribers / servers.len() + usize::from(n < subscribers % servers.len());
        let target = Target {
            client: client.clone(),
            url: format!("{}/v1/sessions/{session}/events?after={after}", server.base),
            token: spec.token.clone(),
        };
        eprintln!("  instance {n}: opening {count} subscribers…");
        opened.push((count, open(&target, count).await));
    }
    let connect_secs = connect_started.elapsed().as_secs_f64();
    tokio::time::sleep(Duration::from_millis(300)).await;

    let started_us = sse::now_micros();
    let turn_id = api(writer)
        .start_turn(&session, "Stream a long answer.")
        .await?;
    let turn = api(writer)
        .wait_turn(&session, &turn_id, TURN_LIMIT)
        .await?;
    let last = api(writer).last_seq(&session).await?;
    let mut logs = Vec::with_capacity(opened.len());
    for (count, (phase, tasks, outcomes)) in opened {
        let connected = outcomes.iter().filter(|o| o.is_ok()).count();
        logs.push((
            count,
            connected,
            drain_within(phase, tasks, last, DRAIN_LIMIT).await,
        ));
    }
    let stored = api(writer).read_back(&session, after).await?;
    let first = after + 1;
    let ts: Vec<i64> = stored.ts_us.values().copied().collect();
    let store_secs = match (ts.iter().min(), ts.iter().max()) {
        (Some(min), Some(max)) => (max - min) as f64 / 1e6,
        _ => 0.0,
    };
    let mut last_receipt = started_us;
    let mut instances = Vec::with_capacity(logs.len());
    for (n, (count, connected, logs)) in logs.into_iter().enumerate() {
        let mut check = SequenceCheck::default();
        let mut deliveries = 0u64;
        let mut latencies = Vec::new();
        for log in &logs {
            let one = SequenceCheck::of(log.receipts.iter().map(|r| r.seq), first, last);
            check.missing += one.missing;
            check.duplicates += one.duplicates;
            check.out_of_order += one.out_of_order;
            check.unexpected += one.unexpected;
            deliveries += log.receipts.len() as u64;
            for receipt in &log.receipts {
                last_receipt = last_receipt.max(receipt.received_us);
                if let Some(&ts) = stored.ts_us.get(&receipt.seq) {
                    latencies.push((receipt.received_us - ts) as f64 / 1000.0);
                }
            }
        }
        // Subscribers that never connected missed the whole run.
        check.missing += (count - connected) as u64 * (last + 1).saturating_sub(first);
        instances.push(Instance {
            subscribers: count,
            connected,
            check,
            deliveries,
            latency: Spread::of(latencies),
            writer: n == 0,
        });
    }
    Ok(Report {
        instances,
        turn,
        events: (last + 1).saturating_sub(first),
        read_back: stored.count,
        store_secs,
        connect_secs,
        run_secs: (last_receipt - started_us) as f64 / 1e6,
    })
}
