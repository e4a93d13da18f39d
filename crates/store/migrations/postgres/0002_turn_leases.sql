-- Keel store schema, version 2 (PostgreSQL): turn leases.
-- The process serving a turn holds a lease on it and renews it; once the lease lapses (by the
-- database's clock), any instance sharing the database may fail the turn (its process died).
ALTER TABLE turns
    ADD COLUMN owner       text,
    ADD COLUMN lease_until timestamptz;

-- Turns left running before leases existed count as lapsed.
UPDATE turns SET lease_until = 'epoch' WHERE status = 'running';

CREATE INDEX turns_running_by_owner ON turns (owner) WHERE status = 'running';
