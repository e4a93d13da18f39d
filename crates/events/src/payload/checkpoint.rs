//! `run.checkpoint.*`: a session taken back to one of its checkpoints.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What a rewind took back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum RewindScope {
    /// Only the files the rewound turns changed.
    Files,
    /// Only the conversation history.
    Conversation,
    /// Files and history.
    Both,
}

impl RewindScope {
    /// The scope's name (`files`, `conversation`, `both`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Files => "files",
            Self::Conversation => "conversation",
            Self::Both => "both",
        }
    }

    /// True when the files are restored.
    pub fn files(self) -> bool {
        matches!(self, Self::Files | Self::Both)
    }

    /// True when the history is cut back.
    pub fn conversation(self) -> bool {
        matches!(self, Self::Conversation | Self::Both)
    }
}

impl std::fmt::Display for RewindScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A scope name that is not `files`, `conversation` or `both`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown rewind scope `{0}` (expected files, conversation or both)")]
pub struct UnknownRewindScope(pub String);

impl std::str::FromStr for RewindScope {
    type Err = UnknownRewindScope;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "files" => Ok(Self::Files),
            "conversation" => Ok(Self::Conversation),
            "both" => Ok(Self::Both),
            _ => Err(UnknownRewindScope(s.to_owned())),
        }
    }
}

/// `run.checkpoint.rewind`: the session was taken back to before a checkpoint's turn. The
/// events of the rewound turns stay in the log; this event marks them as undone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RunCheckpointRewind {
    /// The checkpoint rewound to (its turn and every later one are undone).
    pub checkpoint_id: String,
    /// What was taken back.
    pub scope: RewindScope,
    /// The turns rewound, oldest first.
    pub turn_ids: Vec<String>,
    /// The first seq of the rewound events (the checkpoint turn's first event).
    pub from_seq: u64,
    /// The last seq of the rewound events (the session's newest before this event).
    pub to_seq: u64,
    /// Messages in the history afterwards (absent when the history was not rewound).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub messages: Option<u64>,
    /// Files given back their earlier content.
    #[serde(default)]
    pub files_restored: Vec<String>,
    /// Files removed because they did not exist before.
    #[serde(default)]
    pub files_removed: Vec<String>,
}
