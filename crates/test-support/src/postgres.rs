//! Fresh PostgreSQL databases for tests and benchmarks, on the server `KEEL_TEST_DATABASE_URL`
//! names, and one rule for when there is none: outside CI the PostgreSQL tests are skipped with
//! a notice; under CI (`CI=true`) the run fails, so a misconfigured CI cannot pass by skipping.

use std::str::FromStr;

use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::{AssertSqlSafe, Connection, Row};

/// The variable naming the PostgreSQL server for tests: a URL of a database on it that the
/// tests may connect to and create databases from.
pub const DATABASE_URL_VAR: &str = "KEEL_TEST_DATABASE_URL";

/// The prefix of every database [`TestDatabase`] creates.
const PREFIX: &str = "keel_t_";

/// Databases of this prefix older than this were left by a run that did not finish (killed,
/// aborted) and are dropped by the next one.
const STALE_AFTER_MS: i64 = 3_600_000;

/// What to do about a PostgreSQL test, given the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Run it on the server of this URL.
    Run(String),
    /// Skip it: no server is configured and this is not CI.
    Skip,
    /// Fail the run: no server is configured, and under CI a skipped test would pass unseen.
    Fail,
}

/// The plan for values `database_url` (of [`DATABASE_URL_VAR`]) and `ci` (of `CI`): run when
/// a URL is set and not empty; otherwise fail when `ci` is `true`, else skip.
pub fn plan(database_url: Option<&str>, ci: Option<&str>) -> Plan {
    match database_url {
        Some(url) if !url.trim().is_empty() => Plan::Run(url.to_owned()),
        _ if ci == Some("true") => Plan::Fail,
        _ => Plan::Skip,
    }
}

/// The server URL to create test databases on, following [`plan`] for this process's
/// environment: `None` after a notice on standard error when the tests are to be skipped; a
/// panic when they may not be.
pub fn server_url() -> Option<String> {
    let url = std::env::var(DATABASE_URL_VAR).ok();
    let ci = std::env::var("CI").ok();
    match plan(url.as_deref(), ci.as_deref()) {
        Plan::Run(url) => Some(url),
        Plan::Skip => {
            #[allow(clippy::print_stderr)] // the notice is the point: a skip must not be silent
            {
                eprintln!("note: {DATABASE_URL_VAR} is unset; skipping PostgreSQL");
            }
            None
        }
        Plan::Fail => panic!(
            "{DATABASE_URL_VAR} must be set under CI=true: the PostgreSQL tests may not be skipped"
        ),
    }
}

/// A PostgreSQL database created for one test or benchmark (named `keel_t_<uuid v7>`), dropped
/// with this value, open connections and all.
#[derive(Debug)]
pub struct TestDatabase {
    /// The server's database it was created from (boxed: the options are large).
    admin: Box<PgConnectOptions>,
    name: String,
    url: String,
}

impl TestDatabase {
    /// A fresh database on the server of [`server_url`], or `None` when the PostgreSQL tests
    /// are skipped. Panics when the server cannot be reached or refuses.
    pub async fn create() -> Option<Self> {
        Some(Self::create_on(&server_url()?).await)
    }

    /// A fresh database on the server of `server_url`; also drops databases that earlier runs
    /// left behind. Panics when the server cannot be reached or refuses.
    pub async fn create_on(server_url: &str) -> Self {
        let admin = PgConnectOptions::from_str(server_url)
            .unwrap_or_else(|e| panic!("{DATABASE_URL_VAR} is not a PostgreSQL URL: {e}"));
        let name = format!("{PREFIX}{}", uuid::Uuid::now_v7().simple());
        let mut conn = PgConnection::connect_with(&admin)
            .await
            .unwrap_or_else(|e| panic!("cannot connect to the {DATABASE_URL_VAR} server: {e}"));
        drop_stale(&mut conn).await;
        // The name is ours (a prefix and hex digits): no outside text reaches the statement.
        sqlx::raw_sql(AssertSqlSafe(format!("CREATE DATABASE \"{name}\"")))
            .execute(&mut conn)
            .await
            .unwrap_or_else(|e| panic!("cannot create database {name}: {e}"));
        let _ = conn.close().await;
        Self {
            url: with_database(server_url, &name)
                .unwrap_or_else(|| panic!("{DATABASE_URL_VAR} is not a URL")),
            admin: Box::new(admin),
            name,
        }
    }

    /// The `postgres://` URL of this database.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The database's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Connect options for this database.
    pub fn options(&self) -> PgConnectOptions {
        (*self.admin).clone().database(&self.name)
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let (admin, name) = ((*self.admin).clone(), self.name.clone());
        // Drop often runs inside the test's runtime, which cannot be blocked on: use a thread
        // with a runtime of its own.
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            runtime.block_on(async {
                let mut conn = PgConnection::connect_with(&admin).await?;
                drop_database(&mut conn, &name).await?;
                conn.close().await
            })?;
            Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
        })
        .join();
        if !matches!(dropped, Ok(Ok(()))) {
            #[allow(clippy::print_stderr)] // a leftover database is worth a line, not a failure
            {
                eprintln!(
                    "warning: could not drop test database {}: {dropped:?}",
                    self.name
                );
            }
        }
    }
}

async fn drop_database(conn: &mut PgConnection, name: &str) -> sqlx::Result<()> {
    sqlx::raw_sql(AssertSqlSafe(format!(
        "DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"
    )))
    .execute(conn)
    .await
    .map(drop)
}

/// Drops the databases of earlier runs older than [`STALE_AFTER_MS`]: a UUID v7's first 48
/// bits are its creation time in milliseconds. Best effort: a failure leaves them for later.
async fn drop_stale(conn: &mut PgConnection) {
    let Ok(rows) = sqlx::query("SELECT datname FROM pg_database WHERE starts_with(datname, $1)")
        .bind(PREFIX)
        .fetch_all(&mut *conn)
        .await
    else {
        return;
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    for row in rows {
        let name: String = row.get(0);
        let created = name
            .strip_prefix(PREFIX)
            .and_then(|hex| hex.get(..12))
            .and_then(|hex| i64::from_str_radix(hex, 16).ok());
        if created.is_some_and(|created| now - created > STALE_AFTER_MS) {
            let _ = drop_database(conn, &name).await;
        }
    }
}

/// `url` with its database (the path) replaced by `name`, its query kept; `None` when `url`
/// has no `scheme://`.
pub fn with_database(url: &str, name: &str) -> Option<String> {
    let scheme_end = url.find("://")? + 3;
    let authority_end = url[scheme_end..]
        .find(['/', '?'])
        .map_or(url.len(), |at| scheme_end + at);
    let query = url[authority_end..]
        .find('?')
        .map_or("", |at| &url[authority_end + at..]);
    Some(format!("{}/{name}{query}", &url[..authority_end]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_url_runs_in_and_out_of_ci() {
        let url = "postgres://u:p@h/db";
        assert_eq!(plan(Some(url), None), Plan::Run(url.to_owned()));
        assert_eq!(plan(Some(url), Some("true")), Plan::Run(url.to_owned()));
    }

    #[test]
    fn a_missing_url_skips_outside_ci() {
        assert_eq!(plan(None, None), Plan::Skip);
        assert_eq!(plan(None, Some("false")), Plan::Skip);
        assert_eq!(plan(None, Some("")), Plan::Skip);
        assert_eq!(plan(Some(""), None), Plan::Skip);
    }

    #[test]
    fn a_missing_url_fails_under_ci() {
        assert_eq!(plan(None, Some("true")), Plan::Fail);
        assert_eq!(plan(Some(""), Some("true")), Plan::Fail);
        assert_eq!(plan(Some("  "), Some("true")), Plan::Fail);
    }

    #[tokio::test]
    async fn a_database_lives_as_long_as_its_value() {
        let Some(db) = TestDatabase::create().await else {
            return;
        };
        let mut conn = PgConnection::connect(db.url()).await.unwrap();
        let current: String = sqlx::query_scalar("SELECT current_database()")
            .fetch_one(&mut conn)
            .await
            .unwrap();
        assert_eq!(current, db.name());
        conn.close().await.unwrap();

        let (admin, name) = ((*db.admin).clone(), db.name().to_owned());
        drop(db);
        let mut conn = PgConnection::connect_with(&admin).await.unwrap();
        let left: i64 = sqlx::query_scalar("SELECT count(*) FROM pg_database WHERE datname = $1")
            .bind(&name)
            .fetch_one(&mut conn)
            .await
            .unwrap();
        assert_eq!(left, 0, "{name} outlived its TestDatabase");
    }

    #[test]
    fn the_database_is_replaced_and_the_query_kept() {
        let cases = [
            ("postgres://u:p@h:5432/keel_test", "postgres://u:p@h:5432/b"),
            (
                "postgres://h/db?sslmode=disable",
                "postgres://h/b?sslmode=disable",
            ),
            (
                "postgres://h?sslmode=disable",
                "postgres://h/b?sslmode=disable",
            ),
            ("postgres://h", "postgres://h/b"),
        ];
        for (url, expected) in cases {
            assert_eq!(with_database(url, "b").as_deref(), Some(expected), "{url}");
        }
        assert_eq!(with_database("nonsense", "b"), None);
    }
}
