//! What the tests share: finding the real servers (a clear failure naming how to install one
//! that is missing) and a manager over a folder.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use keel_events::{Bus, Emitter, Event, EventHandler, EventKind, Sequencer};
use keel_lsp::{LspManager, LspSettings, ServerConfig};
use keel_tools::process::CommandSandbox;

/// Fails the test with how to install `program` when it is not on PATH.
pub fn require(program: &str, install: &str) {
    let found = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()));
    assert!(
        found,
        "`{program}` is not installed: this test needs the real server. Install it with `{install}` (.ci/run does)."
    );
}

/// Requires pyright.
pub fn require_pyright() {
    require("pyright-langserver", "npm install -g pyright");
}

/// Requires rust-analyzer.
pub fn require_rust_analyzer() {
    require("rust-analyzer", "rustup component add rust-analyzer");
}

/// A manager over `root` with `tables` (`[lsp.NAME]`), its `system.log`s collected. Without
/// tables, Python's and Rust's servers get generous waits: the tests check what the servers
/// say, not how fast (the `edit_latency` bench does), and a busy test machine is slow to start
/// them.
pub fn manager(
    root: &Path,
    tables: &[(&str, ServerConfig)],
) -> (LspManager, Arc<Mutex<Vec<String>>>) {
    let mut tables: BTreeMap<String, ServerConfig> = tables
        .iter()
        .map(|(name, config)| ((*name).to_owned(), config.clone()))
        .collect();
    if tables.is_empty() {
        for language in ["python", "rust"] {
            tables.insert(
                language.to_owned(),
                ServerConfig {
                    wait_ms: Some(30_000),
                    start_wait_ms: Some(60_000),
                    ..ServerConfig::default()
                },
            );
        }
    }
    let settings = LspSettings::new(&tables).unwrap();
    let manager = LspManager::new(root, settings, CommandSandbox::Off);
    let logs = Arc::new(Mutex::new(Vec::new()));
    let emitter = Emitter::new(Sequencer::new("s", "p"), Bus::default());
    emitter.bus().add_handler(Logs(logs.clone()));
    manager.report_to(emitter);
    (manager, logs)
}

/// Collects `system.log` messages.
struct Logs(Arc<Mutex<Vec<String>>>);

impl EventHandler for Logs {
    fn handle(&mut self, event: &Event) {
        if let EventKind::SystemLog(log) = &event.kind {
            self.0.lock().unwrap().push(log.message.clone());
        }
    }
}
