//! The SQLite schema migrations, embedded in the binary (see [`crate::migrations`]).

use sqlx::migrate::Migrator;

use crate::migrations::{Embedded, migrator_of};

/// Every migration of `migrations/sqlite/`, in order.
pub(crate) const MIGRATIONS: &[Embedded] = &[
    (
        1,
        "init",
        include_str!("../../migrations/sqlite/0001_init.sql"),
    ),
    (
        2,
        "turn_leases",
        include_str!("../../migrations/sqlite/0002_turn_leases.sql"),
    ),
    (
        3,
        "session_usage",
        include_str!("../../migrations/sqlite/0003_session_usage.sql"),
    ),
    (
        4,
        "session_writers",
        include_str!("../../migrations/sqlite/0004_session_writers.sql"),
    ),
    (
        5,
        "agent_events",
        include_str!("../../migrations/sqlite/0005_agent_events.sql"),
    ),
];

/// The migrator that brings a SQLite database up to the current schema.
pub fn migrator() -> Migrator {
    migrator_of(MIGRATIONS)
}
