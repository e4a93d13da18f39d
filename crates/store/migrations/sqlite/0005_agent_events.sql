-- Keel store schema, version 5 (SQLite): seed 003 §0's `agent_events`, the Activity Timeline
-- rows of the event log, as PostgreSQL has had them since version 1. SQLite has no `uuid` or
-- `jsonb`: ids are the UUIDs' text (the same values PostgreSQL stores, see `project_uuid` and
-- `task_uuid`), the payload is JSON text, `created_at` RFC 3339 text. `session_id`, which the
-- seed's table does not have, ties a row to its session so that deleting the session, or
-- pruning its events, takes the rows along. Rows of events stored before this version are
-- written when the store is first opened with it (see `sqlite/timeline.rs`).
CREATE TABLE agent_events (
  id         TEXT PRIMARY KEY,
  task_id    TEXT,
  project_id TEXT NOT NULL,
  type       TEXT NOT NULL
    CONSTRAINT agent_events_type_check
    CHECK (type IN ('agent_phase', 'tool_call', 'file_update', 'self_repair', 'log', 'error')),
  payload    TEXT NOT NULL DEFAULT '{}',
  created_at TEXT DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  seq        INTEGER,
  session_id TEXT REFERENCES sessions (id) ON DELETE CASCADE
);

CREATE INDEX idx_agent_events_project_id ON agent_events (project_id);
CREATE INDEX idx_agent_events_task_id ON agent_events (task_id);
CREATE INDEX idx_agent_events_created_at ON agent_events (created_at DESC);
CREATE INDEX idx_agent_events_type ON agent_events (type);
CREATE INDEX idx_agent_events_session_seq ON agent_events (session_id, seq);
