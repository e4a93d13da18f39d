-- Keel store schema, version 1 (SQLite).
-- Timestamps are RFC 3339 UTC text with milliseconds, so they sort as text.

-- One conversation with the agent in one workspace.
CREATE TABLE sessions (
    id           TEXT PRIMARY KEY NOT NULL,
    project_id   TEXT NOT NULL,
    root         TEXT NOT NULL,
    title        TEXT NOT NULL DEFAULT '',
    status       TEXT NOT NULL DEFAULT 'idle',
    model        TEXT,
    mode         TEXT,
    metadata     TEXT NOT NULL DEFAULT '{}',
    conversation TEXT,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);

CREATE INDEX sessions_by_created ON sessions (created_at DESC);
CREATE INDEX sessions_by_updated ON sessions (updated_at DESC);
CREATE INDEX sessions_by_project ON sessions (project_id, created_at DESC);

-- One user request inside a session; request_id is the client's idempotency key.
CREATE TABLE turns (
    id         TEXT PRIMARY KEY NOT NULL,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    request_id TEXT,
    input      TEXT NOT NULL,
    status     TEXT NOT NULL,
    error      TEXT,
    started_at TEXT NOT NULL,
    ended_at   TEXT,
    UNIQUE (session_id, request_id)
);

CREATE INDEX turns_by_session ON turns (session_id, started_at);
CREATE INDEX turns_running ON turns (status) WHERE status = 'running';

-- The event log: the full event JSON plus the envelope columns it is queried by.
-- Append-only; (session_id, seq) is never overwritten.
CREATE TABLE events (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    id         TEXT NOT NULL UNIQUE,
    type       TEXT NOT NULL,
    turn_id    TEXT,
    project_id TEXT NOT NULL,
    ts         TEXT NOT NULL,
    data       TEXT NOT NULL,
    UNIQUE (session_id, seq)
);

CREATE INDEX events_by_turn ON events (turn_id) WHERE turn_id IS NOT NULL;
