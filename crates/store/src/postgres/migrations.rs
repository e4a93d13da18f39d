//! The PostgreSQL schema migrations, embedded in the binary, and the optional Supabase Realtime
//! set-up of `agent_events`.
//!
//! Like the SQLite side, the files of `migrations/postgres/` are listed here by hand (sqlx's
//! `migrate!` macro needs its `macros` feature); a test checks the list against the folder.

use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::{PgPool, SqlSafeStr};

use crate::error::StoreResult;

/// `(version, description, sql)` of every migration, in order.
pub(crate) const MIGRATIONS: &[(i64, &str, &str)] = &[
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
];

/// The migrator that brings a PostgreSQL database up to the current schema.
pub fn postgres_migrator() -> Migrator {
    Migrator::with_migrations(
        MIGRATIONS
            .iter()
            .map(|&(version, description, sql)| {
                Migration::new(
                    version,
                    description.into(),
                    MigrationType::Simple,
                    sql.into_sql_str(),
                    false,
                )
            })
            .collect(),
    )
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_migration_file_is_embedded() -> std::io::Result<()> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations/postgres");
        let mut files: Vec<String> = std::fs::read_dir(dir)?
            .filter_map(|entry| entry.ok())
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".sql"))
            .collect();
        files.sort();
        let listed: Vec<String> = MIGRATIONS
            .iter()
            .map(|(version, description, _)| format!("{version:04}_{description}.sql"))
            .collect();
        assert_eq!(files, listed);
        Ok(())
    }
}
