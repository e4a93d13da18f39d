//! Which stored events of a session to read back.

/// A window of a session's events: those with `seq > after_seq`, in seq order, at most `limit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EventRange {
    /// Only events after this seq (0 reads from the start).
    pub after_seq: u64,
    /// At most this many events; `None` reads to the end.
    pub limit: Option<u32>,
}

impl EventRange {
    /// Every event of the session.
    pub fn all() -> Self {
        Self::default()
    }

    /// Events after `seq` (what a client that last saw `seq` is missing).
    pub fn after(seq: u64) -> Self {
        Self {
            after_seq: seq,
            limit: None,
        }
    }

    /// Keeps at most `limit` events.
    pub fn with_limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }
}
