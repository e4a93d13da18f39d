//! The PostgreSQL schema migrations, embedded in the binary (see [`crate::migrations`]), and
//! the optional Supabase Realtime set-up of `agent_events`.

use sqlx::PgPool;
use sqlx::migrate::Migrator;

use crate::error::StoreResult;
use crate::migrations::{Embedded, migrator_of};

/// Every migration of `migrations/postgres/`, in order.
pub(crate) const MIGRATIONS: &[Embedded] = &[
    (
        1,
        "init",
        include_str!("../../migrations/postgres/0001_init.sql"),
    ),
    (
        2,
        "turn_leases",
        include_str!("../../migrations/postgres/0002_turn_leases.sql"),
    ),
    (
        3,
        "session_usage",
        include_str!("../../migrations/postgres/0003_session_usage.sql"),
    ),
    (
        4,
        "session_writers",
        include_str!("../../migrations/postgres/0004_session_writers.sql"),
    ),
];

/// The migrator that brings a PostgreSQL database up to the current schema.
pub fn postgres_migrator() -> Migrator {
    migrator_of(MIGRATIONS)
}

/// The publication Supabase Realtime streams from.
pub const REALTIME_PUBLICATION: &str = "supabase_realtime";

/// Seed 003 §0's "enable Realtime" statements, run only when the `supabase_realtime`
/// publication exists and only as far as they are not already in effect: adds `agent_events`
/// to the publication (unless it already publishes all tables or this one) and sets its replica
/// identity to FULL.
const ENABLE_REALTIME: &str = r#"
DO $keel$
DECLARE
    pub record;
BEGIN
    SELECT puballtables INTO pub FROM pg_publication WHERE pubname = 'supabase_realtime';
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF NOT pub.puballtables AND NOT EXISTS (
        SELECT 1 FROM pg_publication_rel pr
        JOIN pg_publication p ON p.oid = pr.prpubid
        WHERE p.pubname = 'supabase_realtime' AND pr.prrelid = 'agent_events'::regclass
    ) THEN
        ALTER PUBLICATION supabase_realtime ADD TABLE agent_events;
    END IF;
    IF (SELECT relreplident FROM pg_class WHERE oid = 'agent_events'::regclass) <> 'f' THEN
        ALTER TABLE agent_events REPLICA IDENTITY FULL;
    END IF;
END
$keel$
"#;

/// Applies [`ENABLE_REALTIME`]; returns whether the publication exists (and so now covers
/// `agent_events`).
pub(super) async fn enable_realtime(pool: &PgPool) -> StoreResult<bool> {
    sqlx::raw_sql(ENABLE_REALTIME).execute(pool).await?;
    let exists: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = 'supabase_realtime')",
    )
    .fetch_one(pool)
    .await?;
    Ok(exists)
}
