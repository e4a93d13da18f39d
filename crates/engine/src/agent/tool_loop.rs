//! The tool loop: ask the model, run the tools it calls, feed the results back, repeat —
//! within the turn's and the plan step's limits. [`TurnRun`] lends the loop the parts of the
//! session a turn works with.

use std::collections::HashSet;

use keel_context::{ConversationError, TokenCounter, ToolCallRequest};
use keel_events::{Emitter, ResponseMode, SystemError, ToolStatus};

use super::answer_review::Review;
use super::auto_test::TestState;
use super::config::{AgentConfig, ToolFormat};
use super::control_tools::{ATTEMPT_COMPLETION, CREATE_PLAN};
use super::instructions::Style;
use super::model_call::{ModelCall, ModelCaller};
use super::model_context::ModelContext;
use super::tap::ChangeLog;
use super::tool_call::{CallScope, FinishedCall, Offer, Ran, ToolEnv, Toolbox};
use super::turn_state::{LoopEnd, TurnState};
use crate::assemble::{AssembledResponse, AssembledToolCall};
use crate::error::ProviderError;
use keel_protocol::Mode;

/// The parts of a session one turn works with, and the turn's own state.
#[derive(Debug)]
pub(crate) struct TurnRun<'s> {
    /// The settings (the model chain moves on when a model falls back).
    pub(crate) config: &'s mut AgentConfig,
    pub(crate) emitter: &'s Emitter,
    pub(crate) model: &'s mut ModelCaller,
    pub(crate) tools: &'s mut Toolbox,
    pub(crate) context: &'s mut ModelContext,
    /// The turn's file changes.
    pub(crate) changes: &'s ChangeLog,
    pub(crate) state: TurnState,
}

impl TurnRun<'_> {
    /// Whether the turn uses the compact tool profile, from the current model's context
    /// window (asked of the server once, then known); kept in the turn's state.
    pub(crate) async fn settle_profile(&mut self) -> bool {
        let model = self.config.models.current().to_owned();
        let window = self
            .model
            .window(
                &model,
                self.config.context_window,
                &self.state.cancel,
                self.emitter,
            )
            .await;
        self.state.compact = self.config.tool_profile.compact_for(window);
        self.state.compact
    }

    /// One bounded tool loop: the main loop (`step` = `None`) or a plan step's.
    pub(crate) async fn tool_loop(&mut self, step: Option<u32>) -> LoopEnd {
        let mut local = 0u32;
        loop {
            if let Some(end) = self.limit_reached(step, local) {
                return end;
            }
            self.state.iterations += 1;
            local += 1;
            let response = match self.ask_model().await {
                Ok(response) => response,
                Err(end) => return end,
            };
            let plans = response.tool_calls.iter().any(|c| c.name == CREATE_PLAN);
            let mode = if plans {
                ResponseMode::Plan
            } else {
                ResponseMode::Direct
            };
            // When nothing streamed showed it (an empty answer), the whole answer does.
            self.state.response.announce(self.emitter, mode);
            if let Some(step_id) = step {
                self.report_step_output(step_id, &response.text);
            }
            if response.tool_calls.is_empty() {
                if step.is_none()
                    && let Review::Correct(message) = self.review_answer(&response.text)
                {
                    self.context.conversation.push_note(message);
                    continue;
                }
                return LoopEnd::Answered(response.text);
            }
            let changes_before = self.changes.count();
            if let Some(end) = self.run_calls(&response.tool_calls, step).await {
                return end;
            }
            if self.state.cancel.is_cancelled() {
                return LoopEnd::Cancelled;
            }
            if step.is_some()
                && let Some(end) = self.close_step_round(changes_before, step)
            {
                return end;
            }
            // Files written whole from the answer are the answer: the tests, not another
            // call, say whether they did the work.
            if step.is_none() && self.state.blocks && self.changes.count() > changes_before {
                return LoopEnd::Answered(written_answer(&response));
            }
            // Files given exactly as they are: asked again, a small model at a low temperature
            // gives them again. A fresh attempt, sampled warmer, is worth more than the calls.
            // With the tests passing (a check of the task's parts), they are its answer that
            // nothing is left to do.
            if step.is_none()
                && self.state.blocks
                && self.changes.count() == changes_before
                && self.state.tests == TestState::Passed
            {
                return LoopEnd::Answered(written_answer(&response));
            }
            if step.is_none()
                && self.state.blocks
                && self.changes.count() == changes_before
                && self.attempts_left()
            {
                return LoopEnd::Stopped(
                    "the answer gave the files exactly as they are, so nothing changed".to_owned(),
                );
            }
        }
    }

    /// Reports a provider error that ended the turn; returns the turn's result text.
    pub(crate) fn provider_failed(&self, error: &ProviderError) -> String {
        self.emitter.emit(SystemError {
            error: error.to_string(),
            error_type: "provider".to_owned(),
            recoverable: true,
            stack: None,
            error_display: Some(format!("{error:?}")),
        });
        format!("the model call failed: {error}")
    }

    /// Where the turn's tools run.
    pub(crate) fn tool_env(&self) -> ToolEnv<'_> {
        ToolEnv::new(self.config, self.emitter, &self.state.cancel)
    }

    /// Why the loop may not call the model again (`local` calls made in this loop), if so.
    fn limit_reached(&self, step: Option<u32>, local: u32) -> Option<LoopEnd> {
        if self.state.cancel.is_cancelled() {
            Some(LoopEnd::Cancelled)
        } else if self.state.iterations >= self.config.max_iterations {
            Some(LoopEnd::TurnCap)
        } else if step.is_some() && local >= self.config.step_iterations.max(1) {
            Some(LoopEnd::StepCap)
        } else {
            None
        }
    }

    /// One model call with the tools the turn offers now (continued while its answer is cut
    /// off at the output limit); its response recorded in the conversation.
    async fn ask_model(&mut self) -> Result<AssembledResponse, LoopEnd> {
        let response = self.call_model(None).await?;
        let mut response = self.complete_cut_answer(response).await?;
        if self.config.tool_format == ToolFormat::Native {
            self.recover_text_calls(&mut response);
        }
        unique_call_ids(&mut response, self.state.iterations);
        self.record_response(&response).map_err(|error| {
            LoopEnd::Stopped(format!("the response could not be recorded: {error}"))
        })?;
        Ok(response)
    }

    /// One model call with the tools the turn offers now; with `continuation` (the answer so
    /// far), a call asking the model to continue that answer.
    pub(crate) async fn call_model(
        &mut self,
        continuation: Option<&str>,
    ) -> Result<AssembledResponse, LoopEnd> {
        let no_plan = self.state.plan.is_none();
        let compact = self.settle_profile().await;
        // With the task's files shown, a small model works without tools: it writes the files
        // to change whole, or answers the question from what it sees.
        let shown =
            compact && self.config.mode != Mode::Plan && !self.context.turn_focus.is_empty();
        let style = if !compact {
            Style::Full
        } else if shown && self.state.only_asks {
            Style::Answer
        } else if shown && self.state.asks_for_change {
            Style::Blocks
        } else {
            Style::Compact
        };
        self.state.blocks = style == Style::Blocks;
        // The compact profile plans only when told to (plan mode).
        let offer = Offer {
            planning: match self.config.mode {
                Mode::Auto => no_plan && !compact,
                Mode::Plan => no_plan,
                Mode::Direct => false,
            },
            respond: self.config.mode == Mode::Plan && no_plan,
            native: self.config.tool_format == ToolFormat::Native,
            compact,
            look_only: compact && self.state.only_asks,
            no_tools: matches!(style, Style::Blocks | Style::Answer),
        };
        let counter = TokenCounter::for_model(self.config.models.current());
        let hooks = self.tools.hooks.clone();
        let pre_compact = hooks.has(keel_extensions::HookEvent::PreCompact).then_some(
            keel_tools::hooks::HookRunner {
                hooks: &hooks,
                root: &self.config.root,
                sandbox: &self.config.sandbox,
                emitter: self.emitter,
                cancel: &self.state.cancel,
                permission_mode: self.config.approval.as_str(),
            },
        );
        let call = ModelCall {
            models: &mut self.config.models,
            retry: &self.config.retry,
            sampling: self.state.sampling.unwrap_or(self.config.sampling),
            mode: self.config.mode,
            style,
            tool_format: self.config.tool_format,
            context_window: self.config.context_window,
            model_summaries: self.config.model_summaries,
            agent_name: &self.config.agent_name,
            emitter: self.emitter,
            context: self.context,
            counter,
            functions: self.tools.functions(offer, counter),
            iteration: self.state.iterations,
            include_system_prompt: self.config.include_system_prompt,
            cancel: &self.state.cancel,
            turn_usage: &mut self.state.usage,
            response: &mut self.state.response,
            continuation,
            pricing: &self.config.pricing,
            pre_compact,
        };
        match self.model.call(call).await {
            Ok(response) => Ok(response),
            Err(ProviderError::Cancelled) => Err(LoopEnd::Cancelled),
            // A looping answer is the model stuck, not the provider failing: what it wrote
            // before the loop may still be the edit asked for; else an attempt left starts
            // the turn over.
            Err(ProviderError::Repetition { why, kept }) => {
                if self.state.compact
                    && self.state.asks_for_change
                    && let Some(answer) = super::stuck_answer::salvage(self.emitter, &why, &kept)
                {
                    return Ok(answer);
                }
                Err(LoopEnd::Stopped(why))
            }
            Err(error) => Err(LoopEnd::Failed(error)),
        }
    }

    /// Adds the response to the conversation as the assistant's message (without its tool
    /// calls when they cannot be recorded).
    fn record_response(&mut self, response: &AssembledResponse) -> Result<(), ConversationError> {
        let requests = response
            .tool_calls
            .iter()
            .map(|call| {
                // A cut-off argument text is not valid JSON: providers may refuse it in
                // history, and the result explains what happened.
                let arguments = if call.is_complete() {
                    call.arguments.clone()
                } else {
                    "{}".to_owned()
                };
                ToolCallRequest::new(call.id.clone(), call.name.clone(), arguments)
            })
            .collect();
        let conversation = &mut self.context.conversation;
        if let Err(error) = conversation.push_assistant(response.text.clone(), requests) {
            // Ids were made unique and non-empty, so this cannot happen; keep the conversation
            // valid anyway.
            tracing::warn!(%error, "response not recorded; its tool calls are dropped");
            conversation
                .push_assistant(response.text.clone(), Vec::new())
                .ok();
            return Err(error);
        }
        Ok(())
    }

    /// Runs the calls of a response in order until one ends the loop; the calls not run get
    /// a "not run" result. Returns why the loop ends, if it does.
    pub(crate) async fn run_calls(
        &mut self,
        calls: &[AssembledToolCall],
        step: Option<u32>,
    ) -> Option<LoopEnd> {
        let mut end = None;
        let mut index = 0;
        while index < calls.len() {
            if self.state.cancel.is_cancelled() {
                end = Some(LoopEnd::Cancelled);
                break;
            }
            // Consecutive `task` calls run together (their children in parallel).
            let tasks = calls[index..]
                .iter()
                .take_while(|call| call.name == super::subagent::TASK)
                .count();
            if tasks > 0 {
                end = self.run_tasks(&calls[index..index + tasks], step).await;
                index += tasks;
            } else {
                end = self.run_call(&calls[index], step).await;
                index += 1;
            }
            if end.is_some() {
                break;
            }
        }
        self.close_unrun(end.as_ref());
        for hint in std::mem::take(&mut self.state.hints) {
            if end.is_none() {
                self.context.conversation.push_note(hint);
            }
        }
        end
    }

    /// Runs one call and records how it went; returns why the loop ends, if it does.
    async fn run_call(&mut self, call: &AssembledToolCall, step: Option<u32>) -> Option<LoopEnd> {
        super::shadow::before_call(self.config, self.emitter);
        self.remember_originals(call);
        let scope = CallScope {
            env: ToolEnv::new(self.config, self.emitter, &self.state.cancel),
            mode: self.config.mode,
            tool_format: self.config.tool_format,
            step,
            plan_running: self.state.plan.is_some(),
            compact: self.state.compact,
        };
        match self.tools.run_call(scope, self.context, call).await {
            Ran::Plan(pending) => Some(LoopEnd::PlanRequested(pending)),
            Ran::Finished(done) => self.record_call(call, *done, step),
        }
    }

    /// Feeds a finished call to the step's failure tracking and the anomaly detector (control
    /// calls that end the loop excepted).
    pub(crate) fn record_call(
        &mut self,
        call: &AssembledToolCall,
        done: FinishedCall,
        step: Option<u32>,
    ) -> Option<LoopEnd> {
        let mut end = done.end;
        for (path, errors) in done.edit_errors {
            if errors.is_empty() {
                self.state.edit_errors.remove(&path);
            } else {
                self.state.edit_errors.insert(path, errors);
            }
        }
        if matches!(call.name.as_str(), ATTEMPT_COMPLETION | CREATE_PLAN) {
            return end;
        }
        self.state.last_failure = if done.result.success {
            None
        } else {
            Some((call.name.clone(), done.result.message))
        };
        let succeeded = done.status == ToolStatus::Success;
        if let Some(anomaly) =
            self.state
                .detector
                .record_call(&call.name, &done.arguments, succeeded)
            && let Some(stop) = self.state.report_anomaly(self.emitter, anomaly, step)
            && end.is_none()
        {
            end = Some(LoopEnd::Stopped(stop));
        }
        end
    }

    /// Gives every call of the latest response that did not run a "not run" result (a pending
    /// `create_plan` keeps waiting for its result).
    fn close_unrun(&mut self, end: Option<&LoopEnd>) {
        let reason = match end {
            None => return,
            Some(LoopEnd::Completed(_)) => "attempt_completion ended the turn before this call ran",
            Some(LoopEnd::PlanRequested(_)) => {
                "a plan was created; its steps run next, so this call was not run"
            }
            Some(LoopEnd::Cancelled) => "the turn was cancelled before this call ran",
            Some(_) => "the turn stopped before this call ran",
        };
        let plan_call = match end {
            Some(LoopEnd::PlanRequested(pending)) => Some(pending.call_id.as_str()),
            _ => None,
        };
        self.context.close_unrun(reason, plan_call);
    }

    /// After a round of a step's calls: checks that the step makes progress, then gives the
    /// model the round's hints.
    fn close_step_round(&mut self, changes_before: usize, step: Option<u32>) -> Option<LoopEnd> {
        let changed = self.changes.count() > changes_before;
        if let Some(anomaly) = self.state.detector.record_step_iteration(changed)
            && let Some(stop) = self.state.report_anomaly(self.emitter, anomaly, step)
        {
            return Some(LoopEnd::Stopped(stop));
        }
        for hint in std::mem::take(&mut self.state.hints) {
            self.context.conversation.push_note(hint);
        }
        None
    }
}

/// Gives calls without an id, or with an id used twice, a unique one.
fn unique_call_ids(response: &mut AssembledResponse, iteration: u32) {
    let mut seen = HashSet::new();
    for call in &mut response.tool_calls {
        if call.id.is_empty() || !seen.insert(call.id.clone()) {
            call.id = format!("call_{iteration}_{}", call.index);
            seen.insert(call.id.clone());
        }
    }
}

/// The answer of a response whose files were written whole: its prose, else what it wrote.
fn written_answer(response: &AssembledResponse) -> String {
    if !response.text.trim().is_empty() {
        return response.text.trim().to_owned();
    }
    let paths: Vec<String> = response
        .tool_calls
        .iter()
        .filter_map(|call| {
            serde_json::from_str::<serde_json::Value>(&call.arguments)
                .ok()
                .and_then(|a| a["path"].as_str().map(|p| format!("`{p}`")))
        })
        .collect();
    format!("Changed {}.", paths.join(", "))
}
