//! Append notices: who stored what, for front ends that serve live event streams from the store.
//!
//! Every committed append produces one [`AppendNotice`] per session it touched, carrying that
//! session's highest seq, never the events themselves: a watcher reads them from the store
//! (`read_events(session, EventRange::after(cursor))`). Token deltas appended in one batch make
//! one notice. [`WatchNotice::Resync`] tells a watcher that notices may have been lost (the
//! PostgreSQL listener reconnected, or the watcher fell behind): it should re-read every session
//! it follows from its cursor.
//!
//! The same watch carries [`ControlMessage`]s ([`Store::send_control`](crate::Store::send_control)):
//! small requests for whichever process runs a session's turn (decide an approval, answer a
//! question, cancel), delivered to every watcher of the database (SQLite: of this process).

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::sync::broadcast;
use tokio_stream::Stream;
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::wrappers::errors::BroadcastStreamRecvError;

/// Notices a watcher can hold before it falls behind (and is sent [`WatchNotice::Resync`]).
pub const WATCH_CAPACITY: usize = 1024;

/// The PostgreSQL `NOTIFY` channel appends are announced on.
pub const NOTIFY_CHANNEL: &str = "keel_events";

/// The PostgreSQL `NOTIFY` channel control messages are sent on.
pub const CONTROL_CHANNEL: &str = "keel_control";

/// Largest encoded [`ControlMessage`], in bytes: PostgreSQL refuses `NOTIFY` payloads of 8,000
/// bytes or more. Both backends enforce it, so behaviour does not depend on the backend.
pub const MAX_CONTROL_BYTES: usize = 7_900;

/// What a [`ControlMessage`] asks of the process running the session's turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ControlKind {
    /// Decide approval `id` with `decision` (and `reason`, `modified`).
    Approval,
    /// Answer question `id` with `answer`.
    Answer,
    /// Cancel the running turn and file runs.
    Cancel,
}

/// A request for the process that runs a session's work, relayed through the store.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ControlMessage {
    /// The session concerned.
    pub session_id: String,
    /// What is asked.
    pub kind: ControlKind,
    /// The approval or question id; for a cancel, the turn to cancel (`None`: only the
    /// session's file runs, which are not stored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// An approval's decision (`approve`, `reject`, `modify`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    /// An approval's reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A `modify` decision's replacement arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified: Option<serde_json::Value>,
    /// A question's answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
}

impl ControlMessage {
    /// A message of `kind` for `session_id` with nothing else set.
    pub fn new(session_id: impl Into<String>, kind: ControlKind) -> Self {
        Self {
            session_id: session_id.into(),
            kind,
            id: None,
            decision: None,
            reason: None,
            modified: None,
            answer: None,
        }
    }

    /// The message as sent (JSON), or [`StoreError::ControlTooLarge`](crate::StoreError::ControlTooLarge)
    /// when it exceeds [`MAX_CONTROL_BYTES`].
    pub fn encode(&self) -> crate::StoreResult<String> {
        let json = serde_json::to_string(self).map_err(|e| crate::StoreError::InvalidInput {
            field: "control message",
            reason: e.to_string(),
        })?;
        if json.len() > MAX_CONTROL_BYTES {
            return Err(crate::StoreError::ControlTooLarge {
                size: json.len(),
                max: MAX_CONTROL_BYTES,
            });
        }
        Ok(json)
    }
}

/// A session's events up to `seq` are stored.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AppendNotice {
    /// The session appended to.
    pub session_id: String,
    /// The session's highest stored seq when the append committed (SQLite: the highest seq of
    /// that append).
    pub seq: u64,
}

/// What an [`AppendWatch`] yields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchNotice {
    /// Events were stored.
    Appended(AppendNotice),
    /// Notices may have been missed: re-read every followed session from the store.
    Resync,
    /// A control message for the process running the session's work.
    Control(ControlMessage),
}

/// A stream of [`WatchNotice`]s from [`Store::watch`](crate::Store::watch). It ends (`None`)
/// once the store stops announcing appends (PostgreSQL: closed; SQLite: every clone dropped).
pub struct AppendWatch {
    inner: BroadcastStream<WatchNotice>,
}

impl std::fmt::Debug for AppendWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppendWatch").finish_non_exhaustive()
    }
}

impl AppendWatch {
    /// A watch fed by `receiver` (a backend's notice channel).
    pub(crate) fn new(receiver: broadcast::Receiver<WatchNotice>) -> Self {
        Self {
            inner: BroadcastStream::new(receiver),
        }
    }

    /// The next notice; `None` once the store stops announcing appends.
    pub async fn recv(&mut self) -> Option<WatchNotice> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }
}

impl Stream for AppendWatch {
    type Item = WatchNotice;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<WatchNotice>> {
        Pin::new(&mut self.inner).poll_next(cx).map(|item| {
            item.map(|result| match result {
                Ok(notice) => notice,
                Err(BroadcastStreamRecvError::Lagged(_)) => WatchNotice::Resync,
            })
        })
    }
}

/// The notices of one append: for each session touched, the highest seq among `seqs`.
pub(crate) fn notices<'a>(appended: impl IntoIterator<Item = (&'a str, u64)>) -> Vec<AppendNotice> {
    let mut out: Vec<AppendNotice> = Vec::new();
    for (session_id, seq) in appended {
        match out.iter_mut().find(|n| n.session_id == session_id) {
            Some(notice) => notice.seq = notice.seq.max(seq),
            None => out.push(AppendNotice {
                session_id: session_id.to_owned(),
                seq,
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_notice_per_session_with_its_highest_seq() {
        let got = notices([("a", 3), ("b", 1), ("a", 5), ("a", 4)]);
        assert_eq!(
            got,
            [
                AppendNotice {
                    session_id: "a".into(),
                    seq: 5
                },
                AppendNotice {
                    session_id: "b".into(),
                    seq: 1
                }
            ]
        );
    }

    #[tokio::test]
    async fn a_lagging_watch_is_told_to_resync_and_ends_with_the_sender() {
        let (tx, rx) = broadcast::channel(2);
        let mut watch = AppendWatch::new(rx);
        for seq in 1..=3 {
            let _ = tx.send(WatchNotice::Appended(AppendNotice {
                session_id: "s".into(),
                seq,
            }));
        }
        assert_eq!(watch.recv().await, Some(WatchNotice::Resync));
        assert!(matches!(
            watch.recv().await,
            Some(WatchNotice::Appended(AppendNotice { seq: 2, .. }))
        ));
        drop(tx);
        assert!(matches!(watch.recv().await, Some(WatchNotice::Appended(_))));
        assert_eq!(watch.recv().await, None);
    }

    #[test]
    fn control_messages_are_small_json_and_oversized_ones_are_refused() {
        let mut message = ControlMessage::new("s", ControlKind::Answer);
        message.id = Some("q1".into());
        message.answer = Some("yes".into());
        let json = message.encode().unwrap();
        assert_eq!(
            json,
            r#"{"session_id":"s","kind":"answer","id":"q1","answer":"yes"}"#
        );
        let back: ControlMessage = serde_json::from_str(&json).unwrap();
        assert_eq!(back, message);

        message.answer = Some("x".repeat(MAX_CONTROL_BYTES));
        assert!(matches!(
            message.encode(),
            Err(crate::StoreError::ControlTooLarge {
                max: MAX_CONTROL_BYTES,
                ..
            })
        ));
    }
}
