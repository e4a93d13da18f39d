//! The built-in tools served to an outside client (`keel mcp serve`) through keel-protocol's
//! [`ToolService`], so the server itself does not link this crate.

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use keel_events::{Bus, Emitter, Sequencer};
use keel_protocol::{ApprovalPolicy, CallContext, ToolService, ToolSpec};

use crate::checkpoint::CheckpointStore;
use crate::registry::ToolRegistry;
use crate::tool::{ToolContext, ToolResult};

/// A registry's tools confined to one workspace and gated by one approval policy; each call
/// runs in a fresh [`ToolContext`].
#[derive(Debug, Clone)]
pub struct ServedTools {
    registry: ToolRegistry,
    root: PathBuf,
    approval: ApprovalPolicy,
    checkpoints: Option<Arc<CheckpointStore>>,
    emitter: Emitter,
}

impl ServedTools {
    /// The built-in tools confined to `root` (canonical), under `approval`; their events go to
    /// an emitter of their own (source `mcp`).
    pub fn builtin(root: PathBuf, approval: ApprovalPolicy) -> Self {
        let emitter = Emitter::new(
            Sequencer::new(format!("mcp-{}", std::process::id()), "mcp"),
            Bus::default(),
        );
        Self {
            registry: ToolRegistry::builtin(),
            root,
            approval,
            checkpoints: None,
            emitter,
        }
    }

    /// The same tools recording file changes in `checkpoints` (so `keel rollback` undoes them).
    pub fn with_checkpoints(mut self, checkpoints: Arc<CheckpointStore>) -> Self {
        self.checkpoints = Some(checkpoints);
        self
    }
}

#[async_trait]
impl ToolService for ServedTools {
    fn specs(&self) -> Vec<ToolSpec> {
        self.registry
            .tools()
            .map(|tool| ToolSpec {
                name: tool.name().to_owned(),
                description: tool.description().to_owned(),
                parameters: tool.parameters(),
            })
            .collect()
    }

    fn has(&self, name: &str) -> bool {
        self.registry.get(name).is_some()
    }

    async fn call(
        &self,
        name: &str,
        arguments: serde_json::Value,
        context: CallContext,
    ) -> ToolResult {
        let mut ctx = ToolContext::new(self.root.clone(), self.emitter.clone())
            .with_approval(self.approval, context.approver);
        if let Some(checkpoints) = &self.checkpoints {
            ctx = ctx.with_checkpoints(Arc::clone(checkpoints));
        }
        ctx.cancel = context.cancel;
        self.registry.call(&ctx, name, arguments).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_protocol::CannotAsk;
    use tokio_util::sync::CancellationToken;

    #[tokio::test]
    async fn offers_the_built_ins_and_calls_them_in_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let _ = std::fs::write(dir.path().join("a.txt"), "hello\n");
        let root = dir
            .path()
            .canonicalize()
            .unwrap_or(dir.path().to_path_buf());
        let tools = ServedTools::builtin(root, ApprovalPolicy::OnDangerous);
        assert!(tools.specs().iter().any(|spec| spec.name == "read_file"));
        assert!(tools.has("read_file"));
        assert!(!tools.has("no_such_tool"));
        let context = CallContext {
            approver: Arc::new(CannotAsk),
            cancel: CancellationToken::new(),
        };
        let result = tools
            .call("read_file", serde_json::json!({"path": "a.txt"}), context)
            .await;
        assert!(result.success, "{result:?}");
        assert!(result.content.unwrap_or_default().contains("hello"));
    }
}
