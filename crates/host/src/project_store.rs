//! A project's own store, for a process that hosts the project's sessions by itself (the CLI):
//! `<root>/.keel/keel.db`, the turns a killed process left running there failed when it is
//! opened, and the lease this process runs its turns under.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use keel_store::{SqliteStore, Store, TurnLease, default_db_path};

use crate::error::HostError;
use crate::lease::{AppendToStore, recover_lapsed_turns};

/// How long a process's claim on its running turn holds without renewal, unless
/// [`TURN_LEASE_VAR`] says otherwise; it renews every third of it. A `keel` killed mid-turn has
/// its turn failed by the next `keel` to open the project's store this long after.
pub const TURN_LEASE: Duration = Duration::from_secs(30);

/// The environment variable overriding [`TURN_LEASE`], in whole seconds (at least 1).
pub const TURN_LEASE_VAR: &str = "KEEL_TURN_LEASE_SECS";

fn turn_lease() -> Duration {
    std::env::var(TURN_LEASE_VAR)
        .ok()
        .and_then(|secs| secs.trim().parse::<u64>().ok())
        .filter(|&secs| secs > 0)
        .map_or(TURN_LEASE, Duration::from_secs)
}

/// This process's lease on the turns it runs: an owner unique to the process, the length
/// [`TURN_LEASE`] (or [`TURN_LEASE_VAR`]).
pub fn process_lease() -> TurnLease {
    TurnLease::new(
        format!(
            "keel-cli-{}-{}",
            std::process::id(),
            uuid::Uuid::now_v7().simple()
        ),
        turn_lease(),
    )
}

/// The project id of a workspace: its folder's name (`keel` for a root with none).
pub fn project_id_of(root: &Path) -> String {
    root.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "keel".to_owned())
}

/// Opens the project's store, `<root>/.keel/keel.db`, creating it if needed, and fails the
/// turns a killed process left running there ([`recover_interrupted`]); returns the store and
/// the warning of a recovery that failed.
pub async fn open_project_store(
    root: &Path,
) -> Result<(Arc<dyn Store>, Option<String>), HostError> {
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(default_db_path(root)).await?);
    let warning = recover_interrupted(store.as_ref()).await;
    Ok((store, warning))
}

/// Fails the turns whose process stopped renewing its lease (it was killed mid-turn), recording
/// each on its session; returns a warning when that could not be done.
pub async fn recover_interrupted(store: &dyn Store) -> Option<String> {
    recover_lapsed_turns(store, None, &AppendToStore(store))
        .await
        .err()
        .map(|e| format!("cannot recover interrupted turns: {e}"))
}
