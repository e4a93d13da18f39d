//! The shapes an event stream is sent in: Keel's own events (the default), seed 000's legacy v1
//! flat dicts ([`to_legacy`](super::to_legacy)) or seed 004's event paths
//! ([`event_path`](super::event_path)). One choice for every front end: the HTTP page, SSE and
//! WebSocket streams (`?format=`) and `keel run --json --format`.
//!
//! | format | JSON of one event | SSE `event:` name | events left out |
//! |---|---|---|---|
//! | `keel` | the catalogue event | its type (`run.llm.delta`) | none |
//! | `v1` | the v1 flat dict (`{"type": "token", "content": …}`) | the v1 type (`token`) | those v1 has no name for |
//! | `paths` | `{"path": "/agent/edit/output", "event": <catalogue event>, "payload": <seed 004 shape>}` ([`seed_payload`](super::seed_payload)) | the path | those without a path |

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::{event_path, seed_payload, to_legacy};
use crate::envelope::Event;

/// A wire format of the event stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum WireFormat {
    /// Keel's catalogue events, as stored.
    #[default]
    Keel,
    /// Seed 000's legacy v1 flat dicts.
    V1,
    /// Seed 004's `/agent/edit/*` event paths.
    Paths,
}

/// An event in a [`WireFormat`].
#[derive(Debug, Clone, PartialEq)]
pub struct WireEvent {
    /// What the format calls the event (catalogue type, v1 type or path): the SSE `event:` name.
    pub name: String,
    /// The event's JSON, one line.
    pub json: String,
}

/// A format name that is none of [`WireFormat::NAMES`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown format `{0}`: expected one of keel, v1, paths")]
pub struct UnknownFormat(pub String);

impl WireFormat {
    /// Every format, the default first.
    pub const ALL: [Self; 3] = [Self::Keel, Self::V1, Self::Paths];
    /// Their names, as written in `?format=` and `--format`.
    pub const NAMES: [&'static str; 3] = ["keel", "v1", "paths"];

    /// The format's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Keel => "keel",
            Self::V1 => "v1",
            Self::Paths => "paths",
        }
    }

    /// The event in this format, or `None` when the format has no such event.
    pub fn encode(self, event: &Event) -> Option<WireEvent> {
        let (name, json) = match self {
            Self::Keel => (event.type_name().to_owned(), event.to_json()),
            Self::V1 => {
                let value = to_legacy(event)?;
                let name = value.get("type")?.as_str()?.to_owned();
                (name, value.to_string())
            }
            Self::Paths => (
                event_path(event)?.to_owned(),
                self.to_value(event)?.to_string(),
            ),
        };
        Some(WireEvent { name, json })
    }

    /// [`WireFormat::encode`]'s JSON as a value.
    pub fn to_value(self, event: &Event) -> Option<Value> {
        match self {
            Self::Keel => serde_json::to_value(event).ok(),
            Self::V1 => to_legacy(event),
            Self::Paths => {
                let path = event_path(event)?;
                let mut object = Map::new();
                object.insert("path".into(), Value::String(path.to_owned()));
                object.insert("event".into(), serde_json::to_value(event).ok()?);
                object.insert("payload".into(), seed_payload(&event.kind)?);
                Some(Value::Object(object))
            }
        }
    }
}

impl fmt::Display for WireFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for WireFormat {
    type Err = UnknownFormat;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|format| format.name() == text)
            .ok_or_else(|| UnknownFormat(text.to_owned()))
    }
}

impl Serialize for WireFormat {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for WireFormat {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::*;
    use crate::sequencer::Sequencer;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn names_round_trip_and_unknown_names_list_the_allowed_ones() {
        for format in WireFormat::ALL {
            assert_eq!(format.name().parse::<WireFormat>(), Ok(format));
        }
        assert_eq!(WireFormat::NAMES, WireFormat::ALL.map(WireFormat::name));
        let error = "V1".parse::<WireFormat>().unwrap_err();
        assert_eq!(
            error.to_string(),
            "unknown format `V1`: expected one of keel, v1, paths"
        );
        let from_json: Result<WireFormat, _> = serde_json::from_value(json!("xml"));
        assert!(
            from_json
                .unwrap_err()
                .to_string()
                .contains("expected one of keel, v1, paths")
        );
    }

    #[test]
    fn each_format_encodes_or_leaves_out() {
        let sequencer = Sequencer::new("s", "p");
        let delta = sequencer.stamp(None, RunLlmDelta { text: "hi".into() });
        let keel = WireFormat::Keel.encode(&delta).unwrap();
        assert_eq!(keel.name, "run.llm.delta");
        assert_eq!(keel.json, delta.to_json());
        let v1 = WireFormat::V1.encode(&delta).unwrap();
        assert_eq!(v1.name, "token");
        assert_eq!(
            serde_json::from_str::<Value>(&v1.json).unwrap(),
            json!({"type": "token", "content": "hi"})
        );
        let paths = WireFormat::Paths.to_value(&delta).unwrap();
        assert_eq!(paths["path"], "/agent/edit/output");
        assert_eq!(paths["event"], serde_json::to_value(&delta).unwrap());
        assert_eq!(paths["payload"], json!({"text": "hi"}));

        let window = sequencer.stamp(
            None,
            RunContextWindow {
                tokens_used: 1,
                limit: 2,
            },
        );
        assert_eq!(WireFormat::V1.encode(&window), None);
        assert_eq!(
            WireFormat::Paths.encode(&window).unwrap().name,
            "/agent/edit/window_length_change"
        );
        let status = sequencer.stamp(None, SystemStatus::line("x"));
        assert_eq!(WireFormat::Paths.encode(&status), None);
        assert_eq!(WireFormat::V1.encode(&status).unwrap().name, "status");
    }
}
