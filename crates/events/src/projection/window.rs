//! Seed 003 §7.3: the front end's bounded timeline, which never cuts a move in half.
//!
//! A [`TimelineWindow`] keeps the newest [`WINDOW_CAPACITY`] (100) timeline records, in arrival
//! order, with two exceptions made for moves.
//!
//! **Move halves.** A *move call* is a `tool_call` with `toolName = "move_file"`, `success = true`
//! and both `fromPath` and `toPath`. A *move update* is a `file_update` with `op = "move"` and both
//! `fromPath` and `toPath`. (A failed `move_file` call moves nothing, has no update, and is an
//! ordinary record.)
//!
//! **Pairing.** When a half arrives, it pairs with the *nearest earlier unpaired* opposite half in
//! the window with the same `taskId`, `fromPath` and `toPath`. The engine emits the two halves of
//! one move next to each other (the update while the tool runs, the call when it ends), so either
//! order pairs, and a repeated move of the same paths pairs with its own neighbour, not an older
//! one. A half with no partner in the window stays unpaired: its partner may still come.
//!
//! **Eviction.** While the window holds more than its capacity, the oldest record is dropped,
//! together with its partner when it is paired, so a pair goes as a whole. Two things are never
//! dropped; eviction skips them and takes the next oldest:
//! - the *latest pair* (the one whose later half arrived last), so the latest move always has
//!   both sides;
//! - the *newest unpaired half*, when it arrived after the latest pair: the move in progress,
//!   held until its partner arrives (however many records come between), so it can pair. A half
//!   whose partner never comes stays held only until another half arrives.
//!
//! Dropping a pair can take the window one below capacity; it never goes above. Order is always
//! arrival order. The one case this does not cover: two moves *interleaved* (both first halves
//! before either second half) with more than a window's worth of records between, where the older
//! unprotected first half can be evicted before its partner arrives; the engine never interleaves
//! the halves of two moves.

use std::collections::VecDeque;

use super::timeline_event::{TimelineEvent, TimelinePayload};
use crate::payload::FileOp;

/// How many records a [`TimelineWindow::new`] keeps (seed 003 §7.3).
pub const WINDOW_CAPACITY: usize = 100;

/// Which half of a move a record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveHalf {
    /// The `move_file` `tool_call`.
    Call,
    /// The `file_update` with `op = move`.
    Update,
}

/// The half of a move `record` is, with its source and target path, or `None` for any other
/// record (see the module docs).
pub fn move_half(record: &TimelineEvent) -> Option<(MoveHalf, &str, &str)> {
    match &record.payload {
        TimelinePayload::ToolCall(call) if call.tool_name == "move_file" && call.success => Some((
            MoveHalf::Call,
            call.from_path.as_deref()?,
            call.to_path.as_deref()?,
        )),
        TimelinePayload::FileUpdate(update) if update.op == FileOp::Move => Some((
            MoveHalf::Update,
            update.from_path.as_deref()?,
            update.to_path.as_deref()?,
        )),
        _ => None,
    }
}

#[derive(Debug, Clone)]
struct Slot {
    serial: u64,
    partner: Option<u64>,
    record: TimelineEvent,
}

/// The newest timeline records, never holding half of a completed move (see the module docs).
#[derive(Debug, Clone)]
pub struct TimelineWindow {
    capacity: usize,
    next_serial: u64,
    /// Serials of the latest pair's two halves.
    latest_pair: Option<(u64, u64)>,
    /// Serial of the newest unpaired half, when it is newer than the latest pair.
    pending: Option<u64>,
    slots: VecDeque<Slot>,
}

impl Default for TimelineWindow {
    fn default() -> Self {
        Self::new()
    }
}

impl TimelineWindow {
    /// An empty window of [`WINDOW_CAPACITY`] records.
    pub fn new() -> Self {
        Self::with_capacity(WINDOW_CAPACITY)
    }

    /// An empty window of `capacity` records (at least 3, so the latest move and the half of a
    /// move in progress fit).
    pub fn with_capacity(capacity: usize) -> Self {
        let capacity = capacity.max(3);
        Self {
            capacity,
            next_serial: 0,
            latest_pair: None,
            pending: None,
            slots: VecDeque::with_capacity(capacity + 1),
        }
    }

    /// The most records this window holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Records held.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when no record is held.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The records, oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &TimelineEvent> + ExactSizeIterator {
        self.slots.iter().map(|slot| &slot.record)
    }

    /// The records, oldest first, as a vector.
    pub fn to_vec(&self) -> Vec<TimelineEvent> {
        self.iter().cloned().collect()
    }

    /// The two halves of the latest move, in arrival order.
    pub fn latest_move(&self) -> Option<(&TimelineEvent, &TimelineEvent)> {
        let (first, second) = self.latest_pair?;
        Some((&self.slot(first)?.record, &self.slot(second)?.record))
    }

    /// Whether the record at `index` (oldest first) is one half of a pair held in the window.
    pub fn is_paired(&self, index: usize) -> bool {
        self.slots.get(index).is_some_and(|s| s.partner.is_some())
    }

    /// Adds the newest record, pairing it if it is a move half, and evicts down to capacity.
    pub fn push(&mut self, record: TimelineEvent) {
        let serial = self.next_serial;
        self.next_serial += 1;
        let partner = self.find_partner(&record);
        if let Some(partner) = partner {
            if let Some(slot) = self.slots.iter_mut().find(|s| s.serial == partner) {
                slot.partner = Some(serial);
            }
            self.latest_pair = Some((partner, serial));
            self.pending = None;
        } else if move_half(&record).is_some() {
            self.pending = Some(serial);
        }
        self.slots.push_back(Slot {
            serial,
            partner,
            record,
        });
        self.evict();
    }

    fn slot(&self, serial: u64) -> Option<&Slot> {
        self.slots.iter().find(|s| s.serial == serial)
    }

    fn find_partner(&self, record: &TimelineEvent) -> Option<u64> {
        let (half, from, to) = move_half(record)?;
        self.slots
            .iter()
            .rev()
            .find(|slot| {
                slot.partner.is_none()
                    && slot.record.task_id == record.task_id
                    && move_half(&slot.record)
                        .is_some_and(|(h, f, t)| h != half && f == from && t == to)
            })
            .map(|slot| slot.serial)
    }

    fn evict(&mut self) {
        let latest = self.latest_pair;
        let pending = self.pending;
        let protected = |serial: u64| {
            latest.is_some_and(|(a, b)| serial == a || serial == b) || pending == Some(serial)
        };
        while self.slots.len() > self.capacity {
            let Some(index) = self.slots.iter().position(|slot| !protected(slot.serial)) else {
                return;
            };
            let Some(evicted) = self.slots.remove(index) else {
                return;
            };
            if let Some(partner) = evicted.partner {
                self.slots.retain(|slot| slot.serial != partner);
            }
        }
    }
}

impl Extend<TimelineEvent> for TimelineWindow {
    fn extend<I: IntoIterator<Item = TimelineEvent>>(&mut self, records: I) {
        for record in records {
            self.push(record);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::LogLevel;
    use crate::projection::{FileUpdatePayload, LogPayload, ToolCallPayload};

    fn rec(id: usize, payload: TimelinePayload) -> TimelineEvent {
        TimelineEvent {
            id: id.to_string(),
            timestamp: String::new(),
            task_id: "t".into(),
            project_id: "p".into(),
            parent_call_id: None,
            payload,
        }
    }

    fn log(id: usize) -> TimelineEvent {
        rec(
            id,
            TimelinePayload::Log(LogPayload {
                level: LogLevel::Info,
                message: id.to_string(),
                metadata: None,
            }),
        )
    }

    fn call(id: usize, from: &str, to: &str) -> TimelineEvent {
        rec(
            id,
            TimelinePayload::ToolCall(ToolCallPayload {
                tool_name: "move_file".into(),
                args_summary: None,
                result_summary: None,
                success: true,
                duration: None,
                from_path: Some(from.into()),
                to_path: Some(to.into()),
                mcp_server: None,
            }),
        )
    }

    fn update(id: usize, from: &str, to: &str) -> TimelineEvent {
        rec(
            id,
            TimelinePayload::FileUpdate(FileUpdatePayload {
                path: to.into(),
                op: FileOp::Move,
                summary: None,
                from_path: Some(from.into()),
                to_path: Some(to.into()),
                file_size: None,
                mime_type: None,
            }),
        )
    }

    fn ids(window: &TimelineWindow) -> Vec<String> {
        window.iter().map(|r| r.id.clone()).collect()
    }

    #[test]
    fn keeps_newest_and_drops_pairs_whole() {
        let mut w = TimelineWindow::with_capacity(4);
        w.push(update(0, "a", "b"));
        w.push(log(1));
        w.push(call(2, "a", "b"));
        w.push(log(3));
        w.push(update(4, "c", "d"));
        w.push(call(5, "c", "d"));
        // 0 and 2 are a pair; the newest pair (4, 5) is protected.
        assert_eq!(ids(&w), ["3", "4", "5"]);
        let (a, b) = w.latest_move().unwrap();
        assert_eq!((a.id.as_str(), b.id.as_str()), ("4", "5"));
    }

    #[test]
    fn half_in_progress_waits_for_its_partner() {
        let mut w = TimelineWindow::with_capacity(3);
        w.push(call(0, "a", "b"));
        for i in 1..10 {
            w.push(log(i));
        }
        w.push(update(10, "a", "b"));
        assert_eq!(ids(&w), ["0", "9", "10"]);
        assert!(w.latest_move().is_some());
    }

    #[test]
    fn latest_move_survives_a_flood() {
        let mut w = TimelineWindow::with_capacity(5);
        w.push(call(0, "a", "b"));
        w.push(update(1, "a", "b"));
        for i in 2..50 {
            w.push(log(i));
        }
        assert_eq!(ids(&w), ["0", "1", "47", "48", "49"]);
    }

    #[test]
    fn pairs_with_nearest_unpaired_half() {
        let mut w = TimelineWindow::with_capacity(10);
        w.push(update(0, "a", "b"));
        w.push(call(1, "a", "b"));
        w.push(update(2, "a", "b"));
        w.push(call(3, "a", "b"));
        assert!((0..4).all(|i| w.is_paired(i)));
        let (a, b) = w.latest_move().unwrap();
        assert_eq!((a.id.as_str(), b.id.as_str()), ("2", "3"));
    }
}
