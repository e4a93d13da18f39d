//! The child's process group: signalled as a whole so grandchildren never outlive a command.

use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// A process group that is killed (SIGKILL) when this guard is dropped, whatever happened.
#[derive(Debug)]
pub struct GroupGuard {
    pgid: Option<Pid>,
}

impl GroupGuard {
    /// Guards the group led by `pid` (the child was spawned with `process_group(0)`).
    pub fn new(pid: Option<u32>) -> Self {
        Self {
            pgid: pid
                .and_then(|p| i32::try_from(p).ok())
                .filter(|p| *p > 1)
                .map(Pid::from_raw),
        }
    }

    /// Sends `signal` to every process of the group. Returns false once the group is gone.
    pub fn signal(&self, signal: Signal) -> bool {
        match self.pgid {
            Some(pgid) => match killpg(pgid, signal) {
                Ok(()) => true,
                Err(Errno::ESRCH) => false,
                Err(e) => {
                    tracing::warn!(
                        pgid = pgid.as_raw(),
                        %signal,
                        "cannot signal a process group: {e}"
                    );
                    true
                }
            },
            None => false,
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.signal(Signal::SIGKILL);
    }
}
