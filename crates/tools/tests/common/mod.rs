//! Shared test harness: a temporary workspace, a context recording checkpoints, and the
//! `run.file.change` events a call emitted.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use keel_events::{Bus, Delivery, Emitter, EventKind, RunFileChange, Sequencer, Subscription};
use keel_protocol::ToolResult;
use keel_tools::{CheckpointStore, ToolContext, ToolRegistry};
use serde_json::Value;

/// A temporary workspace with a tool context bound to it.
pub struct Harness {
    pub dir: tempfile::TempDir,
    pub ctx: ToolContext,
    pub store: Arc<CheckpointStore>,
    pub registry: ToolRegistry,
    events: Subscription,
}

impl Harness {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let emitter = Emitter::new(Sequencer::new("s", "p"), Bus::default());
        emitter.set_turn(Some("turn-1".to_owned()));
        let events = emitter.bus().subscribe();
        let store = Arc::new(CheckpointStore::open(&root).unwrap());
        let ctx = ToolContext::new(root, emitter).with_checkpoints(store.clone());
        Self {
            dir,
            ctx,
            store,
            registry: ToolRegistry::builtin(),
            events,
        }
    }

    pub fn root(&self) -> &Path {
        &self.ctx.root
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.path(rel).exists()
    }

    pub fn set_turn(&self, turn: &str) {
        self.ctx.emitter.set_turn(Some(turn.to_owned()));
    }

    pub async fn call(&self, tool: &str, args: Value) -> ToolResult {
        self.registry.call(&self.ctx, tool, args).await
    }

    /// The `run.file.change` events emitted since the last call to this.
    pub fn changes(&mut self) -> Vec<RunFileChange> {
        let mut out = Vec::new();
        while let Some(delivery) = self.events.try_recv() {
            if let Delivery::Event(event) = delivery
                && let EventKind::RunFileChange(change) = &event.kind
            {
                out.push(change.clone());
            }
        }
        out
    }
}
