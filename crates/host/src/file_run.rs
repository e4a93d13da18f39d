//! File runs (`keel exec-file`, `POST …/file-runs`): the sandbox a script runs in, set up the
//! same way by every front end.

use std::path::Path;
use std::sync::Arc;

use keel_sandbox::{Sandbox, SandboxError, SandboxPolicy};

/// The sandbox a file run in `root` runs in under `policy` (the front end's sandbox settings):
/// `None` when the policy is off. A mode this system cannot enforce is refused (unless the
/// policy's fallback is to warn: then [`Sandbox::warning`] says what is missing).
pub fn file_run_sandbox(
    policy: &SandboxPolicy,
    root: &Path,
) -> Result<Option<Arc<Sandbox>>, SandboxError> {
    if policy.is_off() {
        return Ok(None);
    }
    Sandbox::new(policy.clone(), root).map(|sandbox| Some(Arc::new(sandbox)))
}
