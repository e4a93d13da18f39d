//! A turn's events as MCP progress notifications: one short line per step a person would want
//! to follow (the model asked, a tool started or ended, a file changed, the turn ended).

use keel_events::{AgentStatus, Event, EventHandler, EventKind, FileOp, ToolStatus};
use rmcp::Peer;
use rmcp::RoleServer;
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// An event handler forwarding each step of a turn to the client as a progress notification.
#[derive(Debug, Clone)]
pub struct ProgressEvents {
    tx: mpsc::UnboundedSender<String>,
}

impl EventHandler for ProgressEvents {
    fn handle(&mut self, event: &Event) {
        if let Some(message) = progress_message(event) {
            // The sender outlives the call only if the runner keeps its handler: nothing to tell.
            let _ = self.tx.send(message);
        }
    }
}

/// The sending side of one call's progress: [`ProgressEvents`] for the runner, and the task
/// that sends the notifications in order.
pub(crate) struct ProgressStream {
    done: CancellationToken,
    task: JoinHandle<()>,
}

impl ProgressStream {
    /// Starts sending progress for `token` to `peer`; returns the stream and the handler.
    pub(crate) fn start(peer: Peer<RoleServer>, token: ProgressToken) -> (Self, ProgressEvents) {
        let (tx, mut rx) = mpsc::unbounded_channel::<String>();
        let done = CancellationToken::new();
        let finished = done.clone();
        let task = tokio::spawn(async move {
            let mut step = 0u32;
            loop {
                let message = tokio::select! {
                    biased;
                    message = rx.recv() => message,
                    () = finished.cancelled() => rx.try_recv().ok(),
                };
                let Some(message) = message else { break };
                step += 1;
                let mut param = ProgressNotificationParam::new(token.clone(), f64::from(step));
                param.message = Some(message);
                if peer.notify_progress(param).await.is_err() {
                    break;
                }
            }
        });
        (Self { done, task }, ProgressEvents { tx })
    }

    /// Sends what is queued, then stops (before the call's result goes out).
    pub(crate) async fn finish(self) {
        self.done.cancel();
        let _ = self.task.await;
    }
}

/// The progress line for `event`, or `None` for events not worth a notification.
pub fn progress_message(event: &Event) -> Option<String> {
    match &event.kind {
        EventKind::AgentStart(start) => Some(format!("started: {}", first_line(&start.task_input))),
        EventKind::RunLlmStart(llm) => Some(format!(
            "asking the model ({}, call {})",
            llm.model, llm.iteration
        )),
        EventKind::RunToolStart(tool) => Some(format!("running {}", tool.tool_name)),
        EventKind::RunToolEnd(tool) => Some(format!(
            "{} {}: {}",
            tool.tool_name,
            match tool.status {
                ToolStatus::Success => "done",
                ToolStatus::Error => "failed",
                ToolStatus::Denied => "denied",
                ToolStatus::Cancelled => "cancelled",
            },
            tool.result_summary
        )),
        EventKind::RunFileChange(change) => Some(format!(
            "{} {} (+{} -{})",
            match change.op {
                FileOp::Create => "created",
                FileOp::Update => "updated",
                FileOp::Delete => "deleted",
                FileOp::Move => "moved",
            },
            change.path,
            change.lines_added,
            change.lines_removed
        )),
        EventKind::AgentEnd(end) => Some(format!(
            "finished: {}",
            match end.status {
                AgentStatus::Completed => "completed",
                AgentStatus::Failed => "failed",
                AgentStatus::Cancelled => "cancelled",
                AgentStatus::MaxIterations => "out of iterations",
            }
        )),
        _ => None,
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("").trim()
}
