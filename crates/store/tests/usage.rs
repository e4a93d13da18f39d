//! Sessions' tokens and cost: the store adds each appended `run.usage.report` to its session's
//! totals in the append's transaction, on every backend; pruning keeps them; the migration that
//! adds them fills them in from the reports already stored.

use crate::common;

use std::borrow::Cow;
use std::path::PathBuf;

use common::{TestDb, session, store_tests};
use keel_events::{Event, RunUsageReport, Sequencer, SystemStatus, Usage};
use keel_store::{
    NewSession, SessionFilter, SessionUsage, SqliteStore, Store, migrator, postgres_migrator,
};

fn report(prompt: u64, completion: u64, cached: Option<u64>, cost: Option<f64>) -> RunUsageReport {
    RunUsageReport {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        cached_tokens: cached,
        cumulative: Usage::default(),
        model: Some("gpt-4o".to_owned()),
        cost_usd: cost,
        purpose: None,
    }
}

/// Usage reports (and other events) of session `id`, seq 1, 2, …
fn stream(id: &str) -> (Sequencer, Vec<Event>) {
    let seq = Sequencer::new(id, "p");
    let events = vec![
        seq.stamp(Some("t1"), report(1_000, 100, Some(400), Some(0.0125))),
        seq.stamp(Some("t1"), SystemStatus::line("working")),
        seq.stamp(Some("t1"), report(2_000, 200, None, None)),
    ];
    (seq, events)
}

store_tests! {
    #[tokio::test]
    async fn usage_reports_add_up_in_the_session_row(db, store) {
        session(store.as_ref(), "a").await;
        session(store.as_ref(), "b").await;
        assert_eq!(store.get_session("a").await.unwrap().usage, SessionUsage::default());

        // A batch, then a report alone (SQLite's one-row append path), then another session.
        let (seq, events) = stream("a");
        store.append_events(&events).await.unwrap();
        store
            .append_event(&seq.stamp(Some("t2"), report(10, 1, None, Some(0.0000015))))
            .await
            .unwrap();
        let (_, other) = stream("b");
        store.append_events(&other[..1]).await.unwrap();

        let a = store.get_session("a").await.unwrap().usage;
        assert_eq!(
            (a.prompt_tokens, a.completion_tokens, a.cached_tokens, a.total_tokens),
            (3_010, 301, 400, 3_311)
        );
        assert_eq!((a.model_calls, a.unpriced_calls), (3, 1));
        assert!((a.cost_usd.unwrap() - 0.0125015).abs() < 1e-12, "{a:?}");
        let b = store.get_session("b").await.unwrap().usage;
        assert_eq!((b.total_tokens, b.model_calls), (1_100, 1));

        // A batch that fails (its seqs are taken) stores nothing, totals included.
        assert!(store.append_events(&events).await.is_err());
        assert_eq!(store.get_session("a").await.unwrap().usage, a);

        // Listing shows the same totals; pruning the events keeps them.
        let listed = store.list_sessions(&SessionFilter::all()).await.unwrap();
        let listed_a = listed.iter().find(|s| s.id == "a").unwrap();
        assert_eq!(listed_a.usage, a);
        assert_eq!(store.prune_events("a", 3).await.unwrap(), 3);
        assert_eq!(store.get_session("a").await.unwrap().usage, a);
    }

    #[tokio::test]
    async fn sessions_without_priced_calls_have_no_cost(db, store) {
        session(store.as_ref(), "s").await;
        let seq = Sequencer::new("s", "p");
        store
            .append_events(&[
                seq.stamp(None, report(5, 5, None, None)),
                seq.stamp(None, report(5, 5, None, None)),
            ])
            .await
            .unwrap();
        let usage = store.get_session("s").await.unwrap().usage;
        assert_eq!(usage.cost_usd, None);
        assert_eq!((usage.model_calls, usage.unpriced_calls, usage.total_tokens), (2, 2, 20));
        let json = serde_json::to_value(store.get_session("s").await.unwrap()).unwrap();
        assert_eq!(json["usage"]["total_tokens"], 20);
        assert!(json["usage"].get("cost_usd").is_none(), "{json}");
    }
}

/// The SQL inserting session `old` and one event (`$1`…`$7`) into a version 2 schema.
fn old_rows_sql(pg: bool) -> (String, String) {
    let now = if pg {
        "now()"
    } else {
        "'2026-01-01T00:00:00.000Z'"
    };
    let (id, ts, data) = if pg {
        (
            "CAST($3 AS uuid)",
            "CAST($6 AS timestamptz)",
            "CAST($7 AS jsonb)",
        )
    } else {
        ("$3", "$6", "$7")
    };
    (
        format!(
            "INSERT INTO sessions (id, project_id, root, title, status, created_at, updated_at) \
             VALUES ('old', 'p', '/work/old', 'old', 'idle', {now}, {now})"
        ),
        format!(
            "INSERT INTO events (session_id, seq, id, type, turn_id, project_id, ts, data) \
             VALUES ($1, $2, {id}, $4, $5, 'p', {ts}, {data})"
        ),
    )
}

/// Inserts session `old` and `events` with plain SQL, as a version 2 schema holds them.
macro_rules! insert_old {
    ($pool:expr, $pg:expr, $events:expr) => {{
        let (session_sql, event_sql) = old_rows_sql($pg);
        sqlx::query(sqlx::AssertSqlSafe(session_sql))
            .execute($pool)
            .await
            .unwrap();
        for event in $events {
            sqlx::query(sqlx::AssertSqlSafe(event_sql.clone()))
                .bind(event.session_id.clone())
                .bind(i64::try_from(event.seq).unwrap())
                .bind(event.id.to_string())
                .bind(event.type_name())
                .bind(event.turn_id.clone())
                .bind(event.ts_string())
                .bind(event.to_json())
                .execute($pool)
                .await
                .unwrap();
        }
    }};
}

/// A database at schema version 2 with a session and its usage reports, then the current
/// migrations: the totals are filled in from the stored reports.
#[tokio::test]
async fn the_migration_fills_in_the_totals_of_stored_sessions() {
    for db in TestDb::all().await {
        let (mut old, url) = match db.backend() {
            "sqlite" => (
                migrator(),
                format!("sqlite://{}", db.sqlite_path().display()),
            ),
            _ => (postgres_migrator(), db.pg_url()),
        };
        old.migrations = Cow::Owned(old.migrations[..2].to_vec());
        let (_, events) = stream("old");
        match db.backend() {
            "sqlite" => {
                let path = db.sqlite_path();
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                let options = sqlx::sqlite::SqliteConnectOptions::new()
                    .filename(&path)
                    .create_if_missing(true);
                let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
                old.run(&pool).await.unwrap();
                insert_old!(&pool, false, &events);
                pool.close().await;
            }
            _ => {
                let pool = sqlx::PgPool::connect_with(db.pg_options()).await.unwrap();
                old.run(&pool).await.unwrap();
                insert_old!(&pool, true, &events);
                pool.close().await;
            }
        }
        let store = keel_store::open(&url).await.unwrap();
        let usage = store.get_session("old").await.unwrap().usage;
        assert_eq!(
            (
                usage.prompt_tokens,
                usage.completion_tokens,
                usage.cached_tokens,
                usage.total_tokens
            ),
            (3_000, 300, 400, 3_300),
            "{}",
            db.backend()
        );
        assert_eq!(
            (usage.model_calls, usage.unpriced_calls),
            (2, 1),
            "{}",
            db.backend()
        );
        assert!(
            (usage.cost_usd.unwrap() - 0.0125).abs() < 1e-12,
            "{usage:?}"
        );
        store.close().await;
    }
}

#[tokio::test]
async fn a_new_session_starts_at_zero() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open_project(dir.path()).await.unwrap();
    let created = store
        .create_session(NewSession::new("p", PathBuf::from("/w")))
        .await
        .unwrap();
    assert_eq!(created.usage, SessionUsage::default());
    assert_eq!(store.get_session(&created.id).await.unwrap(), created);
}
