//! PostgreSQL's SQL for the statements that differ between backends, and how it binds
//! parameters: timestamps as `timestamptz`, JSON cast to `jsonb`/`json`, lease ends added by
//! the database's clock (so instances' clocks need not agree).

use sqlx::Postgres;
use sqlx::postgres::PgArguments;
use sqlx::query::Query;

use super::columns::storable_json;
use crate::backend::{Dialect, Param};
use crate::tables::{session_columns, turn_columns};

/// SQL for the end of a lease whose length in seconds is the parameter `$n`.
macro_rules! lease_end {
    ($n:literal) => {
        concat!(
            "date_trunc('milliseconds', now() + make_interval(secs => $",
            $n,
            "))"
        )
    };
}

pub(super) const DIALECT: Dialect = Dialect {
    insert_session: "INSERT INTO sessions (id, project_id, root, title, status, model, mode, \
                     metadata, created_at, updated_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $9)",
    list_sessions_by_created: concat!(
        "SELECT ",
        session_columns!(),
        " FROM sessions WHERE ($1::text IS NULL OR project_id = $1)",
        " AND ($2::text IS NULL OR status = $2)",
        " ORDER BY created_at DESC, ord DESC LIMIT $3"
    ),
    list_sessions_by_updated: concat!(
        "SELECT ",
        session_columns!(),
        " FROM sessions WHERE ($1::text IS NULL OR project_id = $1)",
        " AND ($2::text IS NULL OR status = $2)",
        " ORDER BY updated_at DESC, ord DESC LIMIT $3"
    ),
    update_session: concat!(
        "UPDATE sessions SET title = COALESCE($1, title), status = COALESCE($2, status),",
        " model = COALESCE($3, model), mode = COALESCE($4, mode),",
        " metadata = COALESCE($5::jsonb, metadata), updated_at = $6 WHERE id = $7 RETURNING ",
        session_columns!()
    ),
    save_conversation: "UPDATE sessions SET conversation = $1::json, updated_at = $2 \
                        WHERE id = $3 RETURNING id",
    insert_turn: concat!(
        "INSERT INTO turns",
        " (id, session_id, request_id, input, status, started_at, owner, lease_until)",
        " VALUES ($1, $2, $3, $4, 'running', $5, $6, CASE WHEN $7 IS NULL THEN NULL ELSE ",
        lease_end!(7),
        " END)",
        " ON CONFLICT ON CONSTRAINT turns_session_request_key DO NOTHING RETURNING ",
        turn_columns!()
    ),
    list_turns: concat!(
        "SELECT ",
        turn_columns!(),
        " FROM turns WHERE session_id = $1 ORDER BY started_at, ord"
    ),
    renew_leases: concat!(
        "UPDATE turns SET lease_until = ",
        lease_end!(1),
        " WHERE status = 'running' AND owner = $2 RETURNING id"
    ),
    fail_expired: concat!(
        "UPDATE turns SET status = 'failed', error = $1, ended_at = $2",
        " WHERE status = 'running' AND (lease_until < now() OR owner = $3) RETURNING ",
        turn_columns!()
    ),
    lapsed_turns: concat!(
        "SELECT ",
        turn_columns!(),
        " FROM turns WHERE status = 'running' AND (lease_until < now() OR owner = $1)",
        " ORDER BY started_at, ord"
    ),
    take_over_turn: concat!(
        "UPDATE turns SET owner = $1, lease_until = ",
        lease_end!(2),
        " WHERE id = $3 AND status = 'running' AND (lease_until < now() OR owner = $1)",
        " RETURNING ",
        turn_columns!()
    ),
    claim_writer: concat!(
        "UPDATE sessions SET",
        " writer_epoch = CASE WHEN writer = $1 THEN writer_epoch ELSE writer_epoch + 1 END,",
        " writer = $1, writer_until = ",
        lease_end!(2),
        " WHERE id = $3 AND (writer IS NULL OR writer = $1 OR writer_until < now())",
        " RETURNING writer_epoch"
    ),
    renew_writers: concat!(
        "UPDATE sessions SET writer_until = ",
        lease_end!(1),
        " WHERE writer = $2 RETURNING id, writer_epoch"
    ),
    save_conversation_fenced: "UPDATE sessions SET conversation = $1::json, updated_at = $2 \
                               WHERE id = $3 AND writer = $4 AND writer_epoch = $5 RETURNING id",
};

/// A query of this backend, with its parameters bound so far.
type PgQuery = Query<'static, Postgres, PgArguments>;

/// Binds `param` as PostgreSQL stores it.
pub(super) fn bind(query: PgQuery, param: Param<'_>) -> PgQuery {
    match param {
        Param::Text(text) => query.bind(text),
        Param::Jsonb(json) => query.bind(json.map(storable_json)),
        Param::Int(int) => query.bind(int),
        Param::Time(ts) => query.bind(ts),
        Param::LeaseEnd(ttl) => query.bind(ttl.map(|ttl| ttl.as_secs_f64())),
        // NULL is no limit.
        Param::Limit(limit) => query.bind(limit.map(i64::from)),
    }
}
