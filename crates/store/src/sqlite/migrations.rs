//! The SQLite schema migrations, embedded in the binary.
//!
//! sqlx's `migrate!` macro needs its `macros` feature (kept off to save build time), so the
//! files of `migrations/sqlite/` are listed here by hand; a test checks the list against the
//! folder.

use sqlx::SqlSafeStr;
use sqlx::migrate::{Migration, MigrationType, Migrator};

/// `(version, description, sql)` of every migration, in order.
pub(crate) const MIGRATIONS: &[(i64, &str, &str)] = &[
    (
        1,
        "init",
        include_str!("../../migrations/sqlite/0001_init.sql"),
    ),
    (
        2,
        "turn_leases",
        include_str!("../../migrations/sqlite/0002_turn_leases.sql"),
    ),
];

/// The migrator that brings a SQLite database up to the current schema.
pub fn migrator() -> Migrator {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_migration_file_is_embedded() -> std::io::Result<()> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations/sqlite");
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
