//! The `sessions` table.

use keel_events::now_millis;
use serde_json::{Map, Value};
use sqlx::PgPool;
use sqlx::error::ErrorKind;
use sqlx::postgres::PgRow;
use uuid::Uuid;

use super::columns::{RowRef, row_id, storable_json};
use crate::error::{StoreError, StoreResult};
use crate::session::{NewSession, Session, SessionFilter, SessionOrder, SessionUpdate};

/// The columns of [`Session`], in the order [`from_row`] reads them.
macro_rules! session_columns {
    () => {
        "id, project_id, root, title, status, model, mode, metadata::text AS metadata, \
         created_at, updated_at"
    };
}

fn from_row(row: &PgRow) -> StoreResult<Session> {
    let id = row_id(row, "session")?;
    let r = RowRef {
        table: "session",
        id: &id,
    };
    Ok(Session {
        project_id: r.text(row, "project_id")?,
        root: r.text(row, "root")?.into(),
        title: r.text(row, "title")?,
        status: r.parsed(row, "status")?,
        model: r.opt_text(row, "model")?,
        mode: r.opt_text(row, "mode")?,
        metadata: r.json(row, "metadata")?.unwrap_or_default(),
        created_at: r.ts(row, "created_at")?,
        updated_at: r.ts(row, "updated_at")?,
        id,
    })
}

fn metadata_json(metadata: &Map<String, Value>) -> String {
    // A map of JSON values always serialises.
    storable_json(serde_json::to_string(metadata).unwrap_or_else(|_| "{}".to_owned()))
}

pub(super) async fn create(pool: &PgPool, new: NewSession) -> StoreResult<Session> {
    let root = new
        .root
        .to_str()
        .ok_or_else(|| StoreError::InvalidInput {
            field: "session root",
            reason: format!("`{}` is not valid UTF-8", new.root.display()),
        })?
        .to_owned();
    let now = now_millis();
    let session = Session {
        id: new.id.unwrap_or_else(|| Uuid::now_v7().to_string()),
        project_id: new.project_id,
        root: root.clone().into(),
        title: new.title,
        status: crate::session::SessionStatus::Idle,
        model: new.model,
        mode: new.mode,
        metadata: new.metadata,
        created_at: now,
        updated_at: now,
    };
    let inserted = sqlx::query(
        "INSERT INTO sessions (id, project_id, root, title, status, model, mode, metadata, \
         created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $9)",
    )
    .bind(&session.id)
    .bind(&session.project_id)
    .bind(root)
    .bind(&session.title)
    .bind(session.status.as_str())
    .bind(&session.model)
    .bind(&session.mode)
    .bind(metadata_json(&session.metadata))
    .bind(now)
    .execute(pool)
    .await;
    match inserted {
        Ok(_) => Ok(session),
        Err(sqlx::Error::Database(e)) if e.kind() == ErrorKind::UniqueViolation => {
            Err(StoreError::DuplicateSession(session.id))
        }
        Err(e) => Err(e.into()),
    }
}

pub(super) async fn get(pool: &PgPool, id: &str) -> StoreResult<Session> {
    let row = sqlx::query(concat!(
        "SELECT ",
        session_columns!(),
        " FROM sessions WHERE id = $1"
    ))
    .bind(id)
    .fetch_optional(pool)
    .await?
    .ok_or_else(|| StoreError::session_not_found(id))?;
    from_row(&row)
}

pub(super) async fn list(pool: &PgPool, filter: &SessionFilter) -> StoreResult<Vec<Session>> {
    let sql = match filter.order {
        SessionOrder::NewestCreated => concat!(
            "SELECT ",
            session_columns!(),
            " FROM sessions WHERE ($1::text IS NULL OR project_id = $1)",
            " AND ($2::text IS NULL OR status = $2)",
            " ORDER BY created_at DESC, ord DESC LIMIT $3"
        ),
        SessionOrder::RecentlyUpdated => concat!(
            "SELECT ",
            session_columns!(),
            " FROM sessions WHERE ($1::text IS NULL OR project_id = $1)",
            " AND ($2::text IS NULL OR status = $2)",
            " ORDER BY updated_at DESC, ord DESC LIMIT $3"
        ),
    };
    let rows = sqlx::query(sql)
        .bind(&filter.project_id)
        .bind(filter.status.map(|s| s.as_str()))
        .bind(filter.limit.map(i64::from))
        .fetch_all(pool)
        .await?;
    rows.iter().map(from_row).collect()
}

pub(super) async fn update(pool: &PgPool, id: &str, update: SessionUpdate) -> StoreResult<Session> {
    let row = sqlx::query(concat!(
        "UPDATE sessions SET title = COALESCE($1, title), status = COALESCE($2, status),",
        " model = COALESCE($3, model), mode = COALESCE($4, mode),",
        " metadata = COALESCE($5::jsonb, metadata), updated_at = $6 WHERE id = $7 RETURNING ",
        session_columns!()
    ))
    .bind(update.title)
    .bind(update.status.map(|s| s.as_str()))
    .bind(update.model)
    .bind(update.mode)
    .bind(update.metadata.as_ref().map(metadata_json))
    .bind(now_millis())
    .bind(id)
    .fetch_optional(pool)
    .await?
    .ok_or_else(|| StoreError::session_not_found(id))?;
    from_row(&row)
}

pub(super) async fn save_conversation(
    pool: &PgPool,
    id: &str,
    conversation: &Value,
) -> StoreResult<()> {
    let done =
        sqlx::query("UPDATE sessions SET conversation = $1::json, updated_at = $2 WHERE id = $3")
            .bind(conversation.to_string())
            .bind(now_millis())
            .bind(id)
            .execute(pool)
            .await?;
    if done.rows_affected() == 0 {
        return Err(StoreError::session_not_found(id));
    }
    Ok(())
}

pub(super) async fn load_conversation(pool: &PgPool, id: &str) -> StoreResult<Option<Value>> {
    let row =
        sqlx::query("SELECT id, conversation::text AS conversation FROM sessions WHERE id = $1")
            .bind(id)
            .fetch_optional(pool)
            .await?
            .ok_or_else(|| StoreError::session_not_found(id))?;
    RowRef {
        table: "session",
        id,
    }
    .json(&row, "conversation")
}
