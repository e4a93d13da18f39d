//! `keel mcp serve`: Keel as an MCP server on standard input and output. The tools and the
//! protocol are keel-mcp-serve's; this module supplies the settings and runs `keel_task` turns
//! through the CLI's session host (stored in the project's store like `keel run`'s).

use std::process::ExitCode;
use std::sync::Arc;

use async_trait::async_trait;
use keel_engine::TurnOutcome;
use keel_events::AgentStatus;
use keel_mcp_serve::{McpServer, TaskContext, TaskError, TaskReport, TaskRequest, TaskRunner};
use keel_tools::{CheckpointStore, ServedTools};

use crate::commands::agent_args::AgentArgs;
use crate::commands::run::{block_on, usage};
use crate::config::Settings;
use crate::host::{Host, TurnEnd};

/// Arguments of `keel mcp serve`.
///
/// Standard output carries the protocol; messages go to standard error. Exit status: 0 when
/// the client disconnects, 1 when the connection fails, 2 for usage errors.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The workspace (`--root`), the approval policy (`--approval`) and the agent settings
    /// `keel_task` runs with (`--provider`, `--model`, `--mode`, …), as for `keel run`.
    #[command(flatten)]
    pub agent: AgentArgs,
}

/// Runs `keel mcp serve`.
pub fn run(args: ServeArgs) -> ExitCode {
    block_on("mcp serve", async move {
        let settings = match Settings::load(&args.agent) {
            Ok(settings) => settings,
            Err(e) => return usage("mcp serve", e),
        };
        if !settings.root.is_dir() {
            return usage(
                "mcp serve",
                format!("--root `{}` is not a folder", settings.root.display()),
            );
        }
        let root = match settings.root.canonicalize() {
            Ok(root) => root,
            Err(e) => {
                return usage(
                    "mcp serve",
                    format!("--root `{}`: {e}", settings.root.display()),
                );
            }
        };
        let checkpoints = match CheckpointStore::open(&root) {
            Ok(checkpoints) => checkpoints,
            Err(e) => return usage("mcp serve", format!("--root: {e}")),
        };
        let tools = ServedTools::builtin(root.clone(), settings.config.approval)
            .with_checkpoints(Arc::new(checkpoints));
        let server = McpServer::new(root, settings.config.approval, Arc::new(tools))
            .with_task_runner(Arc::new(HostTaskRunner { settings }));
        match keel_mcp_serve::serve_stdio(server).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("keel mcp serve: {e}");
                ExitCode::FAILURE
            }
        }
    })
}

/// Runs each `keel_task` call as a new session of the CLI's host.
#[derive(Debug)]
struct HostTaskRunner {
    settings: Settings,
}

#[async_trait]
impl TaskRunner for HostTaskRunner {
    async fn run(
        &self,
        request: TaskRequest,
        context: TaskContext,
    ) -> Result<TaskReport, TaskError> {
        let mut settings = self.settings.clone();
        if let Some(mode) = request.mode {
            settings.config.mode = mode;
        }
        let mut host = Host::start_embedded(&settings, None, context.events, context.approver)
            .await
            .map_err(TaskError)?;
        let turn_cancel = host.cancel_handle();
        let client_cancel = context.cancel.clone();
        let watcher = tokio::spawn(async move {
            client_cancel.cancelled().await;
            turn_cancel.cancel();
        });
        let end = host.turn(&request.task).await;
        watcher.abort();
        let outcome: Option<TurnOutcome> = host.last_outcome().cloned();
        if end != TurnEnd::Interrupted {
            host.end_session().await;
        }
        let session_id = host.session_id().to_owned();
        host.close().await;
        Ok(match outcome {
            Some(outcome) => TaskReport {
                status: outcome.status,
                answer: outcome.result,
                files_changed: outcome.files_changed,
                session_id,
            },
            None => TaskReport {
                status: AgentStatus::Failed,
                answer: "the turn was abandoned before it ended".to_owned(),
                files_changed: Vec::new(),
                session_id,
            },
        })
    }
}
