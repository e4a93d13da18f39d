//! Children in their own process group, waited for under a time limit and a cancel token,
//! and killed as a group so nothing they started outlives them.
//!
//! (keel-tools has the same guard for the commands the agent runs; keel-eval stays off
//! keel-tools, whose dependencies are the index and the repo map.)

use std::time::{Duration, Instant};

pub use nix::sys::signal::Signal;
use nix::sys::signal::killpg;
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

    /// Sends `signal` to every process of the group.
    pub fn signal(&self, signal: Signal) {
        if let Some(pgid) = self.pgid {
            let _ = killpg(pgid, signal);
        }
    }

    /// Kills every process of the group.
    pub fn kill(&self) {
        self.signal(Signal::SIGKILL);
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}

/// How a child is stopped at its limit or on cancel: asked with `signal`, then killed when it
/// has not ended after `grace`. (Keel cancels its turn on SIGINT, which also stops the
/// commands it runs in process groups of their own.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stopping {
    /// The signal sent to the group first.
    pub signal: Signal,
    /// How long the group has to end before SIGKILL.
    pub grace: Duration,
}

/// Waits for `child` at most `limit`, or until `cancel` fires, then stops its group as
/// `stopping` says (killed at once when `None`); the group is killed in the end either way, so
/// what the child left running goes too. Returns how it ended and how long it ran until then.
pub async fn wait(
    child: &mut Child,
    limit: Duration,
    cancel: &CancellationToken,
    stopping: Option<Stopping>,
) -> (Ending, Duration) {
    let group = Group::of(child);
    let started = Instant::now();
    let ending = tokio::select! {
        status = child.wait() => Ending::Exited(status.ok().and_then(|s| s.code())),
        () = tokio::time::sleep(limit) => Ending::TimedOut,
        () = cancel.cancelled() => Ending::Cancelled,
    };
    let took = started.elapsed();
    if !matches!(ending, Ending::Exited(_)) {
        if let Some(stopping) = stopping {
            group.signal(stopping.signal);
            let _ = tokio::time::timeout(stopping.grace, child.wait()).await;
        }
        group.kill();
        let _ = child.wait().await;
    }
    group.kill();
    (ending, took)
}
