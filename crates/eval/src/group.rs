//! Children in their own process group, waited for under a time limit and a cancel token,
//! and killed as a group so nothing they started outlives them.
//!
//! (keel-tools has the same guard for the commands the agent runs; keel-eval stays off
//! keel-tools, whose dependencies are the index and the repo map.)

use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::process::Child;
use tokio_util::sync::CancellationToken;

/// How a waited-for child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// It exited: its code, or `None` when a signal ended it.
    Exited(Option<i32>),
    /// The time limit passed; the group was killed.
    TimedOut,
    /// The cancel token fired; the group was killed.
    Cancelled,
}

/// A process group that is killed (SIGKILL) when this guard is dropped.
#[derive(Debug)]
pub struct Group {
    pgid: Option<Pid>,
}

impl Group {
    /// Guards the group led by `child` (spawned with `process_group(0)`).
    pub fn of(child: &Child) -> Self {
        Self {
            pgid: child
                .id()
                .and_then(|pid| i32::try_from(pid).ok())
                .filter(|pid| *pid > 1)
                .map(Pid::from_raw),
        }
    }

    /// Kills every process of the group.
    pub fn kill(&self) {
        if let Some(pgid) = self.pgid {
            let _ = killpg(pgid, Signal::SIGKILL);
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Waits for `child` at most `limit`, or until `cancel` fires; then kills its group either
/// way (what it left running goes too). Returns how it ended and how long that took.
pub async fn wait(
    child: &mut Child,
    limit: Duration,
    cancel: &CancellationToken,
) -> (Ending, Duration) {
    let group = Group::of(child);
    let started = Instant::now();
    let ending = tokio::select! {
        status = child.wait() => Ending::Exited(status.ok().and_then(|s| s.code())),
        () = tokio::time::sleep(limit) => Ending::TimedOut,
        () = cancel.cancelled() => Ending::Cancelled,
    };
    let took = started.elapsed();
    group.kill();
    if !matches!(ending, Ending::Exited(_)) {
        let _ = child.wait().await;
    }
    (ending, took)
}
