//! Schema migrations embedded in the binary, and the migrator that applies them; each backend
//! lists the files of its own `migrations/<backend>/` folder.
//!
//! sqlx's `migrate!` macro needs its `macros` feature (kept off to save build time), so the
//! files are listed by hand; a test checks each list against its folder.

use sqlx::SqlSafeStr;
use sqlx::migrate::{Migration, MigrationType, Migrator};

/// One embedded migration: its version, its description and its SQL; its file is
/// `<version, 4 digits>_<description>.sql`.
pub(crate) type Embedded = (i64, &'static str, &'static str);

/// The migrator that applies `migrations`, in order.
pub(crate) fn migrator_of(migrations: &[Embedded]) -> Migrator {
    Migrator::with_migrations(
        migrations
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
    /// The `.sql` files of `migrations/<backend>/`, sorted.
    fn files(backend: &str) -> std::io::Result<Vec<String>> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("migrations")
            .join(backend);
        let mut files: Vec<String> = std::fs::read_dir(dir)?
            .filter_map(|entry| entry.ok())
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".sql"))
            .collect();
        files.sort();
        Ok(files)
    }

    #[test]
    fn every_migration_file_is_embedded() -> std::io::Result<()> {
        let backends = [
            ("sqlite", crate::sqlite::migrations::MIGRATIONS),
            ("postgres", crate::postgres::migrations::MIGRATIONS),
        ];
        for (backend, migrations) in backends {
            let listed: Vec<String> = migrations
                .iter()
                .map(|(version, description, _)| format!("{version:04}_{description}.sql"))
                .collect();
            assert_eq!(files(backend)?, listed, "migrations/{backend}");
        }
        Ok(())
    }
}
