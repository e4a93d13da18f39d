-- Keel store schema, version 1 (PostgreSQL).
-- Timestamps are timestamptz (written with millisecond precision).

-- One conversation with the agent in one workspace. `ord` breaks ties between equal timestamps
-- (insertion order, like SQLite's rowid).
CREATE TABLE sessions (
    id           text PRIMARY KEY,
    project_id   text NOT NULL,
    root         text NOT NULL,
    title        text NOT NULL DEFAULT '',
    status       text NOT NULL DEFAULT 'idle',
    model        text,
    mode         text,
    metadata     jsonb NOT NULL DEFAULT '{}',
    -- Kept as `json` (exact text), as the context crate serialised it.
    conversation json,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    ord          bigint GENERATED ALWAYS AS IDENTITY
);

CREATE INDEX sessions_by_created ON sessions (created_at DESC, ord DESC);
CREATE INDEX sessions_by_updated ON sessions (updated_at DESC, ord DESC);
CREATE INDEX sessions_by_project ON sessions (project_id, created_at DESC);

-- One user request inside a session; request_id is the client's idempotency key.
CREATE TABLE turns (
    id         text PRIMARY KEY,
    session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    request_id text,
    input      text NOT NULL,
    status     text NOT NULL,
    error      text,
    started_at timestamptz NOT NULL,
    ended_at   timestamptz,
    ord        bigint GENERATED ALWAYS AS IDENTITY,
    CONSTRAINT turns_session_request_key UNIQUE (session_id, request_id)
);

CREATE INDEX turns_by_session ON turns (session_id, started_at, ord);
CREATE INDEX turns_running ON turns (status) WHERE status = 'running';

-- The event log: the full event JSON plus the envelope columns it is queried by.
-- Append-only; (session_id, seq) is never overwritten.
CREATE TABLE events (
    session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq        bigint NOT NULL,
    id         uuid NOT NULL,
    type       text NOT NULL,
    turn_id    text,
    project_id text NOT NULL,
    ts         timestamptz NOT NULL,
    data       jsonb NOT NULL,
    CONSTRAINT events_session_seq_key UNIQUE (session_id, seq),
    CONSTRAINT events_id_key UNIQUE (id)
);

CREATE INDEX events_by_turn ON events (turn_id) WHERE turn_id IS NOT NULL;

-- Seed 003 §0: the Activity Timeline rows, exactly as specified, plus `seq` (the seq of the
-- event each row was projected from). `task_id` is the turn id and `project_id` the project id,
-- each mapped to a UUID v5 when it is not a UUID (see keel_store::project_uuid / task_uuid).
CREATE TABLE agent_events (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  task_id uuid,
  project_id uuid NOT NULL,
  type text NOT NULL,
  payload jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz DEFAULT now(),
  seq bigint,
  CONSTRAINT agent_events_type_check
    CHECK (type IN ('agent_phase', 'tool_call', 'file_update', 'self_repair', 'log', 'error'))
);

CREATE INDEX idx_agent_events_project_id ON agent_events(project_id);
CREATE INDEX idx_agent_events_task_id ON agent_events(task_id);
CREATE INDEX idx_agent_events_created_at ON agent_events(created_at DESC);
CREATE INDEX idx_agent_events_type ON agent_events(type);
