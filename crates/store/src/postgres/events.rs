//! Writing PostgreSQL's `events` table (the append-only event log) and `agent_events` (its
//! Activity Timeline rows, seed 003 §0) together: appends in one statement that also announces
//! them, and prunes and session deletes that take the timeline rows along.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use keel_events::Event;
use keel_events::projection::{AgentEventRow, to_timeline_all};
use sqlx::PgPool;
use sqlx::error::ErrorKind;
use uuid::{Builder, Uuid};

use super::columns::storable_json;
use crate::claim::WriterClaim;
use crate::error::{StoreError, StoreResult};
use crate::tables::events::{EventRow, event_rows};
use crate::tables::usage::{UsageDelta, usage_deltas};
use crate::uuids::{project_uuid, task_uuid};

/// The statement that inserts the events and their timeline rows, adds the usage reports to
/// their sessions' totals (one row of `$16…$23` per session), then notifies `keel_events` once
/// per session touched with `{"session_id": …, "seq": <highest stored seq>}`. One statement, so
/// one transaction: the notifications are delivered when (and only if) it commits. The highest
/// seq takes the rows inserted by this statement (which its own sub-selects cannot see) and
/// those stored before into account. `$fence` opens the `WITH` list, `$when` and `$and` guard
/// every write with it.
macro_rules! append_sql {
    ($fence:literal, $when:literal, $and:literal) => {
        concat!(
            "WITH ",
            $fence,
            "ev AS (
    INSERT INTO events (session_id, seq, id, type, turn_id, project_id, ts, data)
    SELECT s, q, i, ty, tu, p, t, d::jsonb
    FROM unnest($1::text[], $2::bigint[], $3::uuid[], $4::text[], $5::text[], $6::text[],
                $7::timestamptz[], $8::text[]) AS u(s, q, i, ty, tu, p, t, d)",
            $when,
            "
    RETURNING session_id, seq
), ae AS (
    INSERT INTO agent_events (id, task_id, project_id, type, payload, created_at, seq)
    SELECT i, ta, p, ty, pl::jsonb, c, q
    FROM unnest($9::uuid[], $10::uuid[], $11::uuid[], $12::text[], $13::text[],
                $14::timestamptz[], $15::bigint[]) AS u(i, ta, p, ty, pl, c, q)",
            $when,
            "
), us AS (
    UPDATE sessions s SET
        prompt_tokens = s.prompt_tokens + u.p,
        completion_tokens = s.completion_tokens + u.co,
        cached_tokens = s.cached_tokens + u.ca,
        total_tokens = s.total_tokens + u.t,
        model_calls = s.model_calls + u.n,
        unpriced_calls = s.unpriced_calls + u.un,
        cost_nanousd = CASE WHEN u.c IS NULL THEN s.cost_nanousd
                            ELSE COALESCE(s.cost_nanousd, 0) + u.c END
    FROM unnest($16::text[], $17::bigint[], $18::bigint[], $19::bigint[], $20::bigint[],
                $21::bigint[], $22::bigint[], $23::bigint[]) AS u(id, p, co, ca, t, n, un, c)
    WHERE s.id = u.id",
            $and,
            "
), touched AS (
    SELECT session_id, max(seq) AS seq FROM ev GROUP BY session_id
)
SELECT pg_notify('keel_events', json_build_object(
    'session_id', t.session_id,
    'seq', GREATEST(t.seq, (SELECT max(e.seq) FROM events e WHERE e.session_id = t.session_id))
)::text)
FROM touched t"
        )
    };
}

/// Appends without a writer claim.
const APPEND_SQL: &str = append_sql!("", "", "");

/// Appends under a writer claim: session `$24` held by `$25` at epoch `$26`. The session row
/// is locked for share, so a claim taken over concurrently either waits for this append to
/// commit or, having committed first, makes it write nothing (and return no row).
const FENCED_APPEND_SQL: &str = append_sql!(
    "fence AS (
    SELECT id FROM sessions WHERE id = $24 AND writer = $25 AND writer_epoch = $26 FOR SHARE
), ",
    " WHERE EXISTS (SELECT 1 FROM fence)",
    " AND EXISTS (SELECT 1 FROM fence)"
);

/// The columns of one batch, as arrays.
#[derive(Default)]
struct Columns {
    session_id: Vec<String>,
    seq: Vec<i64>,
    id: Vec<Uuid>,
    kind: Vec<&'static str>,
    turn_id: Vec<Option<String>>,
    project_id: Vec<String>,
    ts: Vec<DateTime<Utc>>,
    data: Vec<String>,
    timeline: TimelineColumns,
}

/// The `agent_events` rows of one batch, as arrays.
#[derive(Default)]
struct TimelineColumns {
    id: Vec<Uuid>,
    task_id: Vec<Option<Uuid>>,
    project_id: Vec<Uuid>,
    kind: Vec<String>,
    payload: Vec<String>,
    created_at: Vec<DateTime<Utc>>,
    seq: Vec<i64>,
}

impl TimelineColumns {
    fn push(&mut self, event: &Event, seq: i64) -> StoreResult<()> {
        for record in to_timeline_all(event) {
            let row = AgentEventRow::from(&record);
            let id = Uuid::try_parse(&row.id).map_err(|e| StoreError::InvalidInput {
                field: "timeline record id",
                reason: format!("`{}` is not a UUID: {e}", row.id),
            })?;
            self.id.push(id);
            self.task_id.push(row.task_id.as_deref().map(task_uuid));
            self.project_id.push(project_uuid(&row.project_id));
            self.kind.push(row.event_type);
            self.payload.push(storable_json(row.payload.to_string()));
            self.created_at.push(event.ts);
            self.seq.push(seq);
        }
        Ok(())
    }
}

/// The sessions' usage totals to add, as arrays (one element per session).
#[derive(Default)]
struct UsageColumns {
    session_id: Vec<String>,
    prompt_tokens: Vec<i64>,
    completion_tokens: Vec<i64>,
    cached_tokens: Vec<i64>,
    total_tokens: Vec<i64>,
    model_calls: Vec<i64>,
    unpriced_calls: Vec<i64>,
    cost_nanousd: Vec<Option<i64>>,
}

impl UsageColumns {
    fn of(deltas: &[UsageDelta]) -> Self {
        let mut u = Self::default();
        for d in deltas {
            u.session_id.push(d.session_id.clone());
            u.prompt_tokens.push(d.prompt_tokens);
            u.completion_tokens.push(d.completion_tokens);
            u.cached_tokens.push(d.cached_tokens);
            u.total_tokens.push(d.total_tokens);
            u.model_calls.push(d.model_calls);
            u.unpriced_calls.push(d.unpriced_calls);
            u.cost_nanousd.push(d.cost_nanousd);
        }
        u
    }
}

fn columns(rows: &[EventRow<'_>]) -> StoreResult<Columns> {
    let mut c = Columns::default();
    for row in rows {
        let event = row.event;
        c.session_id.push(event.session_id.clone());
        c.seq.push(row.seq);
        c.id.push(event.id);
        c.kind.push(event.type_name());
        c.turn_id.push(event.turn_id.clone());
        c.project_id.push(event.project_id.clone());
        c.ts.push(event.ts);
        c.data.push(storable_json(row.json.clone()));
        c.timeline.push(event, row.seq)?;
    }
    Ok(c)
}

pub(super) async fn append(pool: &PgPool, events: &[&Event]) -> StoreResult<usize> {
    run_append(pool, events, None).await
}

/// [`append`] under `claim`: refused with [`StoreError::Fenced`] (holder not yet named) when
/// the claim is stale.
pub(super) async fn append_fenced(
    pool: &PgPool,
    claim: &WriterClaim,
    events: &[&Event],
) -> StoreResult<usize> {
    run_append(pool, events, Some(claim)).await
}

async fn run_append(
    pool: &PgPool,
    events: &[&Event],
    claim: Option<&WriterClaim>,
) -> StoreResult<usize> {
    let rows = event_rows(events)?;
    if rows.is_empty() {
        return Ok(0);
    }
    let c = columns(&rows)?;
    let usage = UsageColumns::of(&usage_deltas(&rows));
    let sql = if claim.is_some() {
        FENCED_APPEND_SQL
    } else {
        APPEND_SQL
    };
    let mut query = sqlx::query(sql)
        .bind(&c.session_id)
        .bind(&c.seq)
        .bind(&c.id)
        .bind(&c.kind)
        .bind(&c.turn_id)
        .bind(&c.project_id)
        .bind(&c.ts)
        .bind(&c.data)
        .bind(&c.timeline.id)
        .bind(&c.timeline.task_id)
        .bind(&c.timeline.project_id)
        .bind(&c.timeline.kind)
        .bind(&c.timeline.payload)
        .bind(&c.timeline.created_at)
        .bind(&c.timeline.seq)
        .bind(&usage.session_id)
        .bind(&usage.prompt_tokens)
        .bind(&usage.completion_tokens)
        .bind(&usage.cached_tokens)
        .bind(&usage.total_tokens)
        .bind(&usage.model_calls)
        .bind(&usage.unpriced_calls)
        .bind(&usage.cost_nanousd);
    if let Some(claim) = claim {
        query = query
            .bind(&claim.session_id)
            .bind(&claim.owner)
            .bind(claim.epoch);
    }
    match query.fetch_all(pool).await {
        // One notification row per session touched: none means the fence held nothing.
        Ok(notified) if notified.is_empty() && claim.is_some() => Err(StoreError::Fenced {
            session_id: claim.map(|c| c.session_id.clone()).unwrap_or_default(),
            owner: claim.map(|c| c.owner.clone()).unwrap_or_default(),
            epoch: claim.map_or(0, |c| c.epoch),
            holder: None,
        }),
        Ok(_) => Ok(rows.len()),
        Err(error) => Err(diagnose(pool, &rows, &c, error).await),
    }
}

/// After a batch failed on a constraint, finds (and names) the first row, in batch order, that
/// broke it: an unknown session, a seq or an event id that is taken (stored, or earlier in the
/// batch). Other errors are returned as they are.
async fn diagnose(
    pool: &PgPool,
    rows: &[EventRow<'_>],
    c: &Columns,
    error: sqlx::Error,
) -> StoreError {
    let on_constraint = matches!(
        &error,
        sqlx::Error::Database(db)
            if matches!(db.kind(), ErrorKind::UniqueViolation | ErrorKind::ForeignKeyViolation)
    );
    if !on_constraint {
        return StoreError::Database(error);
    }
    match find_failing_row(pool, rows, c).await {
        Ok(Some(found)) => found,
        Ok(None) => StoreError::Database(error),
        Err(lookup) => lookup,
    }
}

async fn find_failing_row(
    pool: &PgPool,
    rows: &[EventRow<'_>],
    c: &Columns,
) -> StoreResult<Option<StoreError>> {
    let sessions: HashSet<String> =
        sqlx::query_scalar("SELECT id FROM sessions WHERE id = ANY($1)")
            .bind(&c.session_id)
            .fetch_all(pool)
            .await?
            .into_iter()
            .collect();
    let taken_seqs: HashSet<(String, i64)> = sqlx::query_as(
        "SELECT e.session_id, e.seq FROM events e \
         JOIN unnest($1::text[], $2::bigint[]) AS u(s, q) ON e.session_id = u.s AND e.seq = u.q",
    )
    .bind(&c.session_id)
    .bind(&c.seq)
    .fetch_all(pool)
    .await?
    .into_iter()
    .collect();
    let taken_ids: HashSet<Uuid> = sqlx::query_scalar(
        "SELECT id FROM events WHERE id = ANY($1) UNION SELECT id FROM agent_events WHERE id = ANY($2)",
    )
    .bind(&c.id)
    .bind(&c.timeline.id)
    .fetch_all(pool)
    .await?
    .into_iter()
    .collect();

    let mut seen_seqs = HashSet::new();
    let mut seen_ids = HashSet::new();
    for row in rows {
        let event = row.event;
        if !sessions.contains(&event.session_id) {
            return Ok(Some(StoreError::session_not_found(&event.session_id)));
        }
        let key = (event.session_id.clone(), row.seq);
        if taken_seqs.contains(&key) || !seen_seqs.insert(key) {
            return Ok(Some(StoreError::DuplicateSeq {
                session_id: event.session_id.clone(),
                seq: event.seq,
            }));
        }
        let ids = std::iter::once(event.id).chain(
            to_timeline_all(event)
                .into_iter()
                .filter_map(|record| Uuid::try_parse(&record.id).ok())
                .filter(|id| *id != event.id),
        );
        for id in ids {
            if taken_ids.contains(&id) || !seen_ids.insert(id) {
                return Ok(Some(StoreError::DuplicateEventId {
                    id: event.id.to_string(),
                    session_id: event.session_id.clone(),
                    seq: event.seq,
                }));
            }
        }
    }
    Ok(None)
}

/// The ids of the timeline rows events with these ids project to: the event id, and its
/// UUID v8 re-marking (the debugger phase records of a repair attempt).
fn timeline_ids(event_ids: Vec<Uuid>) -> Vec<Uuid> {
    let phases: Vec<Uuid> = event_ids
        .iter()
        .map(|id| Builder::from_custom_bytes(id.into_bytes()).into_uuid())
        .collect();
    let mut ids = event_ids;
    ids.extend(phases);
    ids
}

/// Deletes the session's events up to `keep_after`, but never its newest, with their timeline
/// rows.
pub(super) async fn prune(pool: &PgPool, session_id: &str, keep_after: i64) -> StoreResult<u64> {
    let mut tx = pool.begin().await?;
    let deleted: Vec<Uuid> = sqlx::query_scalar(
        "DELETE FROM events WHERE session_id = $1 AND seq <= $2 \
         AND seq < (SELECT max(seq) FROM events WHERE session_id = $1) RETURNING id",
    )
    .bind(session_id)
    .bind(keep_after)
    .fetch_all(&mut *tx)
    .await?;
    let count = deleted.len() as u64;
    if count > 0 {
        sqlx::query("DELETE FROM agent_events WHERE id = ANY($1)")
            .bind(timeline_ids(deleted))
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(count)
}

/// Deletes a session with its turns, events and their timeline rows.
pub(super) async fn delete_session(pool: &PgPool, id: &str) -> StoreResult<()> {
    let mut tx = pool.begin().await?;
    let event_ids: Vec<Uuid> = sqlx::query_scalar("SELECT id FROM events WHERE session_id = $1")
        .bind(id)
        .fetch_all(&mut *tx)
        .await?;
    if !event_ids.is_empty() {
        sqlx::query("DELETE FROM agent_events WHERE id = ANY($1)")
            .bind(timeline_ids(event_ids))
            .execute(&mut *tx)
            .await?;
    }
    let done = sqlx::query("DELETE FROM sessions WHERE id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await?;
    if done.rows_affected() == 0 {
        return Err(StoreError::session_not_found(id));
    }
    tx.commit().await?;
    Ok(())
}
