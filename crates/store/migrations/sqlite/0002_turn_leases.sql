-- Keel store schema, version 2 (SQLite): turn leases.
-- The process serving a turn holds a lease on it and renews it; once the lease lapses, any
-- process sharing the database may fail the turn (its process died).
ALTER TABLE turns ADD COLUMN owner TEXT;
ALTER TABLE turns ADD COLUMN lease_until TEXT;

-- Turns left running before leases existed count as lapsed.
UPDATE turns SET lease_until = '1970-01-01T00:00:00.000Z' WHERE status = 'running';

CREATE INDEX turns_running_by_owner ON turns (owner) WHERE status = 'running';
