//! Opening stores: the project default location, paths, `sqlite:` and `postgres://` URLs,
//! rejected locations, and the SQLite connection settings (WAL, synchronous=NORMAL, foreign
//! keys, busy timeout).

use crate::common;

use common::{TestDb, session, status_events};
use keel_store::{
    EventRange, PostgresStore, SqliteStore, Store, StoreError, default_db_path, open, open_store,
};
use pretty_assertions::assert_eq;

#[tokio::test]
async fn project_default_is_dot_keel_keel_db_created_with_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open_project(dir.path()).await.unwrap();
    let expected = dir.path().join(".keel").join("keel.db");
    assert_eq!(default_db_path(dir.path()), expected);
    assert_eq!(store.path(), Some(expected.as_path()));
    assert!(expected.is_file());
    assert_eq!(store.backend(), "sqlite");
}

#[tokio::test]
async fn connections_use_wal_normal_sync_foreign_keys_and_a_busy_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open_project(dir.path()).await.unwrap();
    let pragma = |name: &'static str| {
        let pool = store.pool().clone();
        async move {
            let value: i64 = sqlx::query_scalar(name).fetch_one(&pool).await.unwrap();
            value
        }
    };
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(mode, "wal");
    assert_eq!(pragma("PRAGMA synchronous").await, 1, "NORMAL");
    assert_eq!(pragma("PRAGMA foreign_keys").await, 1);
    assert_eq!(pragma("PRAGMA busy_timeout").await, 5000);
}

#[tokio::test]
async fn sqlite_urls_and_plain_paths_open_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state/db.sqlite");
    let url = format!("sqlite://{}", path.display());
    {
        let store = open_store(&url).await.unwrap();
        session(store.as_ref(), "s").await;
        store.append_events(&status_events("s", 3)).await.unwrap();
        store.close().await;
    }
    let by_path = open_store(path.to_str().unwrap()).await.unwrap();
    assert_eq!(
        by_path
            .read_events("s", EventRange::all())
            .await
            .unwrap()
            .len(),
        3
    );
    let by_url = SqliteStore::connect(&url).await.unwrap();
    assert_eq!(by_url.last_seq("s").await.unwrap(), 3);
}

#[tokio::test]
async fn in_memory_store_works_and_keeps_its_data_while_open() {
    let store = open_store("sqlite::memory:").await.unwrap();
    session(store.as_ref(), "s").await;
    store.append_events(&status_events("s", 20)).await.unwrap();
    assert_eq!(store.count_events("s").await.unwrap(), 20);
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    assert_eq!(store.get_session("s").await.unwrap().id, "s");
    // Two in-memory stores do not share data.
    let other = SqliteStore::memory().await.unwrap();
    assert!(other.get_session("s").await.unwrap_err().is_not_found());
}

#[tokio::test]
async fn unsupported_or_malformed_locations_are_bad_urls() {
    let err = open("mysql://localhost/keel").await.unwrap_err();
    assert!(matches!(err, StoreError::BadUrl { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        "bad store location `mysql://localhost/keel`: unsupported scheme `mysql` (this build \
         supports `sqlite:`, `postgres://` and `postgresql://` URLs, or a file path)"
    );
    assert!(matches!(
        open_store("  ").await.unwrap_err(),
        StoreError::BadUrl { .. }
    ));
    assert!(matches!(
        SqliteStore::connect("mysql://x").await.unwrap_err(),
        StoreError::BadUrl { .. }
    ));
    let err = SqliteStore::connect("sqlite://x.db?mode=sideways")
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::BadUrl { .. }), "{err}");
    let err = PostgresStore::connect("postgres://u:secret@localhost:5432/db?sslmode=sideways")
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::BadUrl { .. }), "{err}");
    assert!(!err.to_string().contains("secret"), "{err}");
}

#[tokio::test]
async fn an_unreachable_postgres_server_is_an_open_error_without_the_password() {
    // Port 1 on localhost: nothing listens there.
    let err = open("postgresql://keel:secret@127.0.0.1:1/keel?connect_timeout=2")
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Open { .. }), "{err}");
    assert!(
        err.to_string()
            .starts_with("cannot open the store at `postgresql://keel:***@127.0.0.1:1/keel"),
        "{err}"
    );
    assert!(!err.to_string().contains("secret"), "{err}");
}

#[tokio::test]
async fn postgres_urls_open_a_postgres_store() {
    let Some(db) = TestDb::postgres().await else {
        return;
    };
    let url = db.pg_url();
    let store = open(&url).await.unwrap();
    assert_eq!(store.backend(), "postgres");
    session(store.as_ref(), "s").await;
    store.append_events(&status_events("s", 3)).await.unwrap();
    assert_eq!(store.last_seq("s").await.unwrap(), 3);
    // `postgresql://` too, and reopening does not rerun migrations.
    let again = open(&url.replacen("postgres://", "postgresql://", 1))
        .await
        .unwrap();
    assert_eq!(again.count_events("s").await.unwrap(), 3);
    let pg = db.postgres_store().await;
    let applied: i64 = sqlx::query_scalar("SELECT count(*) FROM _sqlx_migrations")
        .fetch_one(pg.pool())
        .await
        .unwrap();
    assert_eq!(
        applied,
        keel_store::postgres_migrator().iter().count() as i64
    );
    store.close().await;
    again.close().await;
    pg.close().await;
}

#[tokio::test]
async fn an_unusable_location_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "not a folder").unwrap();
    let err = SqliteStore::open(blocker.join("keel.db"))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::CreateDir { .. }), "{err}");

    // A file that is not a database.
    let junk = dir.path().join("junk.db");
    std::fs::write(&junk, vec![b'x'; 4096]).unwrap();
    let err = SqliteStore::open(&junk).await.unwrap_err();
    assert!(
        matches!(err, StoreError::Open { .. } | StoreError::Migration(_)),
        "{err}"
    );
}

#[tokio::test]
async fn reopening_does_not_rerun_migrations() {
    let dir = tempfile::tempdir().unwrap();
    for _ in 0..3 {
        let store = SqliteStore::open_project(dir.path()).await.unwrap();
        let applied: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM _sqlx_migrations")
            .fetch_one(store.pool())
            .await
            .unwrap();
        assert_eq!(applied, keel_store::migrator().iter().count() as i64);
        store.close().await;
    }
}

#[tokio::test]
async fn turns_left_running_before_leases_existed_count_as_lapsed() {
    use sqlx::SqlSafeStr;
    use sqlx::migrate::{Migration, MigrationType, Migrator};

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v1.db");
    // A database at schema version 1, with a turn left running.
    {
        let options = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(&path)
            .create_if_missing(true);
        let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
        let v1 = Migrator::with_migrations(vec![Migration::new(
            1,
            "init".into(),
            MigrationType::Simple,
            include_str!("../migrations/sqlite/0001_init.sql").into_sql_str(),
            false,
        )]);
        v1.run(&pool).await.unwrap();
        sqlx::raw_sql(
            "INSERT INTO sessions (id, project_id, root, created_at, updated_at) \
             VALUES ('s', 'p', '/w', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'); \
             INSERT INTO turns (id, session_id, input, status, started_at) \
             VALUES ('old', 's', 'work', 'running', '2026-01-01T00:00:00.000Z');",
        )
        .execute(&pool)
        .await
        .unwrap();
        pool.close().await;
    }
    let store = SqliteStore::open(&path).await.unwrap();
    let turn = store.get_turn("old").await.unwrap();
    assert_eq!(turn.owner, None);
    assert!(turn.lease_until.is_some());
    let failed = store.fail_expired_turns(None).await.unwrap();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].id, "old");
}
