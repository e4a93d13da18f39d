//! Scripts for the scripted model provider, built as the JSON it reads (the format is
//! documented in `keel_engine::scripted`); a test loads them with `Script::from_json` or
//! passes the file to `--provider scripted:PATH`.

use std::fmt;
use std::io;
use std::path::Path;

use serde_json::{Map, Value, json};

/// A script under construction: its streaming settings and its turns, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScriptBuilder {
    chunk_chars: Option<usize>,
    delay_ms: Option<u64>,
    distill_memory: bool,
    side_calls: bool,
    turns: Vec<Value>,
}

impl ScriptBuilder {
    /// An empty script with the provider's default streaming.
    pub fn new() -> Self {
        Self::default()
    }

    /// Streams texts and arguments in pieces of at most `chars` characters.
    pub fn chunk_chars(mut self, chars: usize) -> Self {
        self.chunk_chars = Some(chars);
        self
    }

    /// Pauses `ms` milliseconds before each streamed piece.
    pub fn delay_ms(mut self, ms: u64) -> Self {
        self.delay_ms = Some(ms);
        self
    }

    /// Makes the session's end-of-session memory distillation call, which takes the next turn
    /// (off by default, so a script lists only the turns of its task).
    pub fn distill_memory(mut self) -> Self {
        self.distill_memory = true;
        self
    }

    /// Makes side calls (a turn's commit message, a pull request's text), each taking the next
    /// turn (off by default: that text is then written without the model).
    pub fn side_calls(mut self) -> Self {
        self.side_calls = true;
        self
    }

    /// A turn that answers `text` and stops.
    pub fn text(self, text: impl Into<String>) -> Self {
        self.turn(json!({"text": text.into(), "finish_reason": "stop"}))
    }

    /// A turn that calls tool `name` with `arguments`.
    pub fn tool_call(self, name: &str, arguments: Value) -> Self {
        self.turn(json!({"tool_calls": [{"name": name, "arguments": arguments}]}))
    }

    /// A turn that fails the request with HTTP `status` and `message`.
    pub fn error(self, status: u16, message: &str) -> Self {
        self.turn(json!({"error": {"status": status, "message": message}}))
    }

    /// Any turn, given as its JSON object.
    pub fn turn(mut self, turn: Value) -> Self {
        self.turns.push(turn);
        self
    }

    /// Several turns, given as JSON objects.
    pub fn turns(mut self, turns: impl IntoIterator<Item = Value>) -> Self {
        self.turns.extend(turns);
        self
    }

    /// The script as JSON.
    pub fn to_json(&self) -> Value {
        let mut script = Map::new();
        if let Some(chars) = self.chunk_chars {
            script.insert("chunk_chars".to_owned(), chars.into());
        }
        if let Some(ms) = self.delay_ms {
            script.insert("delay_ms".to_owned(), ms.into());
        }
        if self.distill_memory {
            script.insert("distill_memory".to_owned(), true.into());
        }
        if self.side_calls {
            script.insert("side_calls".to_owned(), true.into());
        }
        script.insert("turns".to_owned(), Value::Array(self.turns.clone()));
        Value::Object(script)
    }

    /// Writes the script to `path`.
    pub fn write(&self, path: &Path) -> io::Result<()> {
        std::fs::write(path, self.to_string())
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
    }
}

/// The script's JSON text.
impl fmt::Display for ScriptBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_json())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_settings_appear_only_when_set() {
        assert_eq!(ScriptBuilder::new().to_json(), json!({"turns": []}));
        assert_eq!(
            ScriptBuilder::new()
                .chunk_chars(4)
                .delay_ms(3)
                .distill_memory()
                .to_json(),
            json!({"chunk_chars": 4, "delay_ms": 3, "distill_memory": true, "turns": []})
        );
    }

    #[test]
    fn turns_keep_their_order() {
        let script = ScriptBuilder::new()
            .tool_call("read_file", json!({"path": "src/main.rs"}))
            .error(503, "overloaded")
            .turn(json!({"thinking": "hm"}))
            .turns([json!({"text": "a"}), json!({"text": "b"})])
            .text("Done.");
        assert_eq!(
            script.to_json(),
            json!({"turns": [
                {"tool_calls": [{"name": "read_file", "arguments": {"path": "src/main.rs"}}]},
                {"error": {"status": 503, "message": "overloaded"}},
                {"thinking": "hm"},
                {"text": "a"},
                {"text": "b"},
                {"text": "Done.", "finish_reason": "stop"},
            ]})
        );
    }

    #[test]
    fn a_written_script_reads_back_as_its_json() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("script.json");
        let script = ScriptBuilder::new().chunk_chars(2).text("hello");
        script.write(&path).unwrap();
        let read: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(read, script.to_json());
        assert_eq!(script.to_string(), script.to_json().to_string());
    }
}
