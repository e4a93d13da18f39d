//! Persistence throughput on SQLite and PostgreSQL: events/s appended one per transaction, in
//! batches of 256 (one transaction each), through the batching `EventWriter`, and reading a
//! 10k-event range back. SQLite is a real file (WAL, synchronous=NORMAL) in a temporary folder;
//! PostgreSQL is a fresh database (dropped afterwards) on the server `KEEL_TEST_DATABASE_URL`
//! names, skipped outside CI when that is unset (every append there also writes its
//! `agent_events` rows and NOTIFYs). Events are a realistic mix (LLM deltas, tool start/output/end, file changes, status
//! lines), ~250 bytes of JSON on average.
//!
//! `KEEL_TEST_DATABASE_URL=postgres://… cargo bench -p keel-store --bench store`

// criterion_group! generates an undocumented public function; a bench may unwrap.
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use keel_events::{Event, EventKind, Sequencer};
use keel_store::{
    EventRange, EventWriter, NewSession, PostgresStore, SqliteStore, Store, WriterOptions,
};
use keel_test_support::TestDatabase;
use sqlx::postgres::PgPoolOptions;
use tokio::runtime::Runtime;

/// Events per measured iteration of the write benchmarks.
const EVENTS: u64 = 2_000;
/// Events in the read benchmark's range.
const READ_RANGE: u64 = 10_000;

/// Payloads as JSON, so fields the catalogue adds later (all optional) do not break the bench.
fn kind(i: u64) -> EventKind {
    let call_id = format!("call_{}", i / 5);
    let (ty, payload) = match i % 5 {
        0 => (
            "run.llm.delta",
            serde_json::json!({"text": "Let me look at the failing test and the module it covers. "}),
        ),
        1 => (
            "run.tool.start",
            serde_json::json!({"call_id": call_id, "tool_name": "read_file",
                "arguments": {"path": "src/store/sqlite/events.rs", "start_line": 1}}),
        ),
        2 => (
            "run.tool.output",
            serde_json::json!({"call_id": call_id, "stream": "stdout",
                "content": "running 12 tests\ntest append_then_read ... ok\ntest duplicate_seq ... ok\n"}),
        ),
        3 => (
            "run.tool.end",
            serde_json::json!({"call_id": call_id, "tool_name": "read_file", "status": "success",
                "result": "pub(super) async fn append(pool: &SqlitePool, events: &[&Event]) { … }",
                "duration_ms": 3, "args_summary": "src/store/sqlite/events.rs",
                "result_summary": "182 lines"}),
        ),
        _ if i % 10 == 4 => (
            "run.file.change",
            serde_json::json!({"path": "src/lib.rs", "op": "update", "summary": "export the writer",
                "lines_added": 3, "lines_removed": 1, "size": 1024}),
        ),
        _ => (
            "system.status",
            serde_json::json!({"message": format!("iteration {i}")}),
        ),
    };
    EventKind::from_parts(ty, &payload.to_string()).unwrap()
}

fn events(session: &str, n: u64) -> Vec<Event> {
    let sequencer = Sequencer::new(session, "bench");
    (0..n)
        .map(|i| sequencer.stamp(Some("turn"), kind(i)))
        .collect()
}

struct Fixture {
    backend: &'static str,
    store: Arc<dyn Store>,
    sessions: AtomicU64,
    _dir: Option<tempfile::TempDir>,
    _pg: Option<TestDatabase>,
}

impl Fixture {
    /// SQLite, and PostgreSQL unless its benchmarks are skipped.
    fn all(rt: &Runtime) -> Vec<Self> {
        let dir = tempfile::tempdir().unwrap();
        let sqlite = rt.block_on(SqliteStore::open_project(dir.path())).unwrap();
        let mut all = vec![Self {
            backend: "sqlite",
            store: Arc::new(sqlite),
            sessions: AtomicU64::new(0),
            _dir: Some(dir),
            _pg: None,
        }];
        if let Some(db) = rt.block_on(TestDatabase::create()) {
            let store = rt
                .block_on(PostgresStore::connect_with(
                    db.options(),
                    PgPoolOptions::new().max_connections(4),
                    db.name().to_owned(),
                ))
                .unwrap();
            all.push(Self {
                backend: "postgres",
                store: Arc::new(store),
                sessions: AtomicU64::new(0),
                _dir: None,
                _pg: Some(db),
            });
        }
        all
    }

    /// A new session and `n` events for it.
    async fn session_with_events(&self, n: u64) -> (String, Vec<Event>) {
        let id = format!("s{}", self.sessions.fetch_add(1, Ordering::Relaxed));
        self.store
            .create_session(NewSession::new("bench", "/bench").with_id(&id))
            .await
            .unwrap();
        let events = events(&id, n);
        (id, events)
    }
}

fn persist(c: &mut Criterion) {
    let rt = Runtime::new().unwrap();
    for fixture in Fixture::all(&rt) {
        persist_on(c, &rt, Arc::new(fixture));
    }
}

fn persist_on(c: &mut Criterion, rt: &Runtime, fixture: Arc<Fixture>) {
    let mut group = c.benchmark_group(format!("persist/{}", fixture.backend));
    group.throughput(Throughput::Elements(EVENTS));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));

    group.bench_function("one_per_transaction", |b| {
        b.to_async(rt).iter_custom(|iters| {
            let fixture = Arc::clone(&fixture);
            async move {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let (_, events) = fixture.session_with_events(EVENTS).await;
                    let start = Instant::now();
                    for event in &events {
                        fixture.store.append_event(event).await.unwrap();
                    }
                    total += start.elapsed();
                }
                total
            }
        })
    });

    group.bench_function("batches_of_256", |b| {
        b.to_async(rt).iter_custom(|iters| {
            let fixture = Arc::clone(&fixture);
            async move {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let (_, events) = fixture.session_with_events(EVENTS).await;
                    let start = Instant::now();
                    for chunk in events.chunks(256) {
                        fixture.store.append_events(chunk).await.unwrap();
                    }
                    total += start.elapsed();
                }
                total
            }
        })
    });

    group.bench_function("event_writer", |b| {
        b.to_async(rt).iter_custom(|iters| {
            let fixture = Arc::clone(&fixture);
            async move {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let (_, events) = fixture.session_with_events(EVENTS).await;
                    let store = Arc::clone(&fixture.store);
                    let start = Instant::now();
                    let writer = EventWriter::spawn(store, WriterOptions::default()).unwrap();
                    for event in events {
                        writer.send(event).unwrap();
                    }
                    let report = writer.close().await.unwrap();
                    total += start.elapsed();
                    assert_eq!(report.stored, EVENTS);
                }
                total
            }
        })
    });
    group.finish();
}

fn read(c: &mut Criterion) {
    let rt = Runtime::new().unwrap();
    for fixture in Fixture::all(&rt) {
        read_on(c, &rt, &fixture);
    }
}

fn read_on(c: &mut Criterion, rt: &Runtime, fixture: &Fixture) {
    let session = rt.block_on(async {
        let (id, events) = fixture.session_with_events(READ_RANGE).await;
        for chunk in events.chunks(1_000) {
            fixture.store.append_events(chunk).await.unwrap();
        }
        id
    });
    let mut group = c.benchmark_group(format!("read/{}", fixture.backend));
    group.throughput(Throughput::Elements(READ_RANGE));
    group.sample_size(20);
    group.bench_function("range_10k", |b| {
        b.to_async(rt).iter(|| async {
            let read = fixture
                .store
                .read_events(&session, EventRange::all())
                .await
                .unwrap();
            assert_eq!(read.len() as u64, READ_RANGE);
            black_box(read)
        })
    });
    group.finish();
}

criterion_group!(benches, persist, read);
criterion_main!(benches);
