//! A throw-away PostgreSQL database for the persistence figure: created next to the one
//! `KEEL_BENCH_DATABASE_URL` names, dropped afterwards.

use std::time::Duration;

use anyhow::{Context, Result};
use sqlx::postgres::PgConnection;
use sqlx::{AssertSqlSafe, Connection};

/// The server to use when `KEEL_BENCH_DATABASE_URL` is not set.
pub const DEFAULT_URL: &str = "postgres://postgres:keel@127.0.0.1:5432/keel_test";

/// A database this benchmark created.
#[derive(Debug)]
pub struct BenchDatabase {
    admin_url: String,
    name: String,
    /// URL of the new database, for `--database-url`.
    pub url: String,
}

impl BenchDatabase {
    /// Creates `keel_bench_<pid>` on the server of `admin_url`; `Ok(Err(reason))` when that
    /// server cannot be reached.
    pub async fn create(admin_url: &str) -> Result<std::result::Result<Self, String>> {
        let connect =
            tokio::time::timeout(Duration::from_secs(5), PgConnection::connect(admin_url)).await;
        let mut connection = match connect {
            Ok(Ok(connection)) => connection,
            Ok(Err(e)) => return Ok(Err(format!("cannot connect to {}: {e}", redact(admin_url)))),
            Err(_) => {
                return Ok(Err(format!(
                    "no answer from {} within 5 s",
                    redact(admin_url)
                )));
            }
        };
        // The statements below are built from this name only: no outside text reaches them.
        let name = format!("keel_bench_{}", std::process::id());
        sqlx::raw_sql(AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
        )))
        .execute(&mut connection)
        .await
        .context("cannot drop a leftover bench database")?;
        sqlx::raw_sql(AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&mut connection)
            .await
            .with_context(|| format!("cannot create database {name}"))?;
        let _ = connection.close().await;
        Ok(Ok(Self {
            url: with_database(admin_url, &name)?,
            admin_url: admin_url.to_owned(),
            name,
        }))
    }

    /// Drops the database (the server using it must have stopped; remaining connections are
    /// closed by force).
    pub async fn drop_database(self) -> Result<()> {
        let mut connection = PgConnection::connect(&self.admin_url)
            .await
            .with_context(|| format!("cannot connect to drop {}", self.name))?;
        sqlx::raw_sql(AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS {} WITH (FORCE)",
            self.name
        )))
        .execute(&mut connection)
        .await
        .with_context(|| format!("cannot drop database {}", self.name))?;
        let _ = connection.close().await;
        Ok(())
    }
}

/// `url` with its database (path) replaced by `name`, the query kept.
pub fn with_database(url: &str, name: &str) -> Result<String> {
    keel_test_support::postgres::with_database(url, name)
        .with_context(|| format!("not a URL: {}", redact(url)))
}

/// `url` without its password, for messages.
pub fn redact(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return url.to_owned();
    };
    let authority_end = url[scheme_end..]
        .find(['/', '?'])
        .map_or(url.len(), |i| scheme_end + i);
    let authority = &url[scheme_end..authority_end];
    match authority.rsplit_once('@') {
        Some((user, host)) => {
            let user = user.split_once(':').map_or(user, |(u, _)| u);
            format!(
                "{}{user}:***@{host}{}",
                &url[..scheme_end],
                &url[authority_end..]
            )
        }
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_is_replaced_and_the_query_kept() {
        assert_eq!(
            with_database("postgres://u:p@h:5432/keel_test", "b").unwrap(),
            "postgres://u:p@h:5432/b"
        );
        assert_eq!(
            with_database("postgres://h/db?sslmode=disable", "b").unwrap(),
            "postgres://h/b?sslmode=disable"
        );
        assert_eq!(
            with_database("postgres://h?sslmode=disable", "b").unwrap(),
            "postgres://h/b?sslmode=disable"
        );
        assert_eq!(
            with_database("postgres://h", "b").unwrap(),
            "postgres://h/b"
        );
        assert!(with_database("nonsense", "b").is_err());
    }

    #[test]
    fn passwords_are_not_shown() {
        assert_eq!(
            redact("postgres://postgres:keel@127.0.0.1:5432/keel_test"),
            "postgres://postgres:***@127.0.0.1:5432/keel_test"
        );
        assert_eq!(redact("postgres://h/db"), "postgres://h/db");
    }
}
