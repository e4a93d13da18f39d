//! Driving an agent session from Rust: a scripted model fixes the sample project's bug while
//! the events stream by.
//!
//! ```sh
//! cp -r examples/sample-project /tmp/demo
//! cargo run -p keel-engine --example library -- /tmp/demo examples/scripts/fix-bug.json
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::sync::Arc;

use futures::StreamExt;
use keel_engine::{AgentConfig, AgentSession, ModelChain, ScriptedProvider};
use keel_events::{Bus, Emitter, EventKind, Sequencer};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let root = args.next().unwrap_or_else(|| "/tmp/demo".to_owned());
    let script = args
        .next()
        .unwrap_or_else(|| "examples/scripts/fix-bug.json".to_owned());

    let provider = Arc::new(ScriptedProvider::from_file(&script)?);
    let config = AgentConfig::new(root, ModelChain::new(["scripted"])?);
    let emitter = Emitter::new(Sequencer::new("demo", "demo"), Bus::default());
    let mut session = AgentSession::new(config, provider, emitter)?;

    let mut events = session.run("Fix the failing test");
    while let Some(event) = events.next().await {
        match &event.kind {
            EventKind::RunLlmDelta(delta) => print!("{}", delta.text),
            EventKind::RunToolEnd(end) => println!("\n[{}] {}", end.tool_name, end.result_summary),
            EventKind::AgentEnd(end) => println!("\n{:?}: {}", end.status, end.result),
            _ => {}
        }
    }
    drop(events);
    if let Some(outcome) = session.last_outcome() {
        eprintln!("files changed: {:?}", outcome.files_changed);
    }
    Ok(())
}
