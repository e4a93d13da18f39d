-- Keel store schema, version 4 (SQLite): one writer per session, fenced.
-- The process writing a session's events holds a claim on the session (`writer`, until
-- `writer_until` unless renewed). Every claim taken from another process, or after a release,
-- gets a new `writer_epoch`: the fencing token its appends and end-of-turn writes quote, so the
-- database refuses a stale writer's writes.
ALTER TABLE sessions ADD COLUMN writer       TEXT;
ALTER TABLE sessions ADD COLUMN writer_epoch INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN writer_until TEXT;

CREATE INDEX sessions_by_writer ON sessions (writer) WHERE writer IS NOT NULL;
