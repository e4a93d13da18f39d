//! SQLite's SQL for the statements that differ between backends, and how it binds parameters:
//! timestamps as RFC 3339 text, lease ends computed by this process's clock.

use keel_events::{format_ts, now_millis};
use sqlx::Sqlite;
use sqlx::query::Query;
use sqlx::sqlite::SqliteArguments;

use crate::backend::{Dialect, Param};
use crate::tables::{session_columns, turn_columns};

/// SQL for now, as timestamps are stored (RFC 3339 UTC text with milliseconds).
macro_rules! now {
    () => {
        "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
    };
}

pub(super) const DIALECT: Dialect = Dialect {
    insert_session: "INSERT INTO sessions \
         (id, project_id, root, title, status, model, mode, metadata, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)",
    list_sessions_by_created: concat!(
        "SELECT ",
        session_columns!(),
        " FROM sessions WHERE ($1 IS NULL OR project_id = $1) AND ($2 IS NULL OR status = $2)",
        " ORDER BY created_at DESC, rowid DESC LIMIT $3"
    ),
    list_sessions_by_updated: concat!(
        "SELECT ",
        session_columns!(),
        " FROM sessions WHERE ($1 IS NULL OR project_id = $1) AND ($2 IS NULL OR status = $2)",
        " ORDER BY updated_at DESC, rowid DESC LIMIT $3"
    ),
    update_session: concat!(
        "UPDATE sessions SET title = COALESCE($1, title), status = COALESCE($2, status),",
        " model = COALESCE($3, model), mode = COALESCE($4, mode),",
        " metadata = COALESCE($5, metadata), updated_at = $6 WHERE id = $7 RETURNING ",
        session_columns!()
    ),
    save_conversation: "UPDATE sessions SET conversation = $1, updated_at = $2 WHERE id = $3 \
                        RETURNING id",
    insert_turn: concat!(
        "INSERT INTO turns",
        " (id, session_id, request_id, input, status, started_at, owner, lease_until)",
        " VALUES ($1, $2, $3, $4, 'running', $5, $6, $7)",
        " ON CONFLICT (session_id, request_id) DO NOTHING RETURNING ",
        turn_columns!()
    ),
    list_turns: concat!(
        "SELECT ",
        turn_columns!(),
        " FROM turns WHERE session_id = $1 ORDER BY started_at, rowid"
    ),
    renew_leases: "UPDATE turns SET lease_until = $1 WHERE status = 'running' AND owner = $2 \
                   RETURNING id",
    fail_expired: concat!(
        "UPDATE turns SET status = 'failed', error = $1, ended_at = $2",
        " WHERE status = 'running' AND (lease_until < $2 OR owner = $3) RETURNING ",
        turn_columns!()
    ),
    lapsed_turns: concat!(
        "SELECT ",
        turn_columns!(),
        " FROM turns WHERE status = 'running' AND (lease_until < ",
        now!(),
        " OR owner = $1) ORDER BY started_at, rowid"
    ),
    take_over_turn: concat!(
        "UPDATE turns SET owner = $1, lease_until = $2",
        " WHERE id = $3 AND status = 'running' AND (lease_until < ",
        now!(),
        " OR owner = $1) RETURNING ",
        turn_columns!()
    ),
    claim_writer: concat!(
        "UPDATE sessions SET",
        " writer_epoch = CASE WHEN writer = $1 THEN writer_epoch ELSE writer_epoch + 1 END,",
        " writer = $1, writer_until = $2",
        " WHERE id = $3 AND (writer IS NULL OR writer = $1 OR writer_until < ",
        now!(),
        ") RETURNING writer_epoch"
    ),
    renew_writers: "UPDATE sessions SET writer_until = $1 WHERE writer = $2 \
                    RETURNING id, writer_epoch",
    save_conversation_fenced: "UPDATE sessions SET conversation = $1, updated_at = $2 \
                               WHERE id = $3 AND writer = $4 AND writer_epoch = $5 RETURNING id",
};

/// A query of this backend, with its parameters bound so far.
type SqliteQuery = Query<'static, Sqlite, SqliteArguments>;

/// Binds `param` as SQLite stores it.
pub(super) fn bind(query: SqliteQuery, param: Param<'_>) -> SqliteQuery {
    match param {
        Param::Text(text) => query.bind(text),
        Param::Jsonb(json) => query.bind(json),
        Param::Int(int) => query.bind(int),
        Param::Time(ts) => query.bind(format_ts(&ts)),
        Param::LeaseEnd(ttl) => query.bind(ttl.map(lease_end)),
        // A negative limit is none.
        Param::Limit(limit) => query.bind(limit.map_or(-1, i64::from)),
    }
}

/// The end of a lease of `ttl` taken now, as stored.
fn lease_end(ttl: std::time::Duration) -> String {
    let ttl = chrono::Duration::from_std(ttl).unwrap_or(chrono::Duration::MAX);
    let end = now_millis()
        .checked_add_signed(ttl)
        .unwrap_or(chrono::DateTime::<chrono::Utc>::MAX_UTC);
    format_ts(&end)
}
