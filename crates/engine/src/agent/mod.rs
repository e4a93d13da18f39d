//! The agent loop: an [`AgentSession`] drives turns of a model bound to tools, in direct or
//! plan mode, reporting everything as events.
//!
//! # A turn's events, in order
//!
//! ```text
//! agent.start{agent_name, task_input, mode_hint}
//! prepare.conversation.open{conversation_id, action}          first turn of the session only
//!   prepare.history.load{start_turn, …}                        … when resuming a non-empty one
//! prepare.model.select{requested_model, final_model, …}       every turn
//! system.status{kind: indexing}                                while the repo map builds
//! prepare.repomap.build{files, symbols, tokens, duration_ms, cached}   every turn, unless the
//!                                                              map is off or was given fixed
//!   system.log{level: warn}                                    … when it could not be built
//!                                                              or its cache not written
//! prepare.instructions.load{files, total_tokens, max_tokens}   when the set of instruction
//!                                                              files differs from the last one
//!   system.log{level: warn}                                    … per file that cannot be used
//!                                                              (once per session)
//! run.response.start{mode}                                    here in direct and plan mode;
//!                                                              in auto mode (the default) see
//!                                                              below: with the first answer
//! per iteration (model call):
//!   run.context.window{tokens_used, limit}
//!   run.context.compress{…, summarizer, fallback_reason?, usage?}   when older turns were
//!                                                              summarised (the model's summary
//!                                                              call shows only here)
//!   run.usage.report{…}                                        the summary call's tokens
//!   system.log{level: info}                                    the window the server reports,
//!                                                              before the model's first call
//!   run.llm.start{model, iteration, message_count, system_prompt?}   the prompt only with
//!                                                              include_system_prompt
//!   system.status{kind: waiting_for_model}                     until the answer starts
//!   prepare.model.select{is_fallback: true}                    when the model is unavailable
//!   per attempt:
//!     run.thinking.start{is_initial, is_forced}, run.thinking.delta…, run.thinking.end
//!                                                              when the model reasons
//!     run.response.start{mode}                                 auto mode, the turn's first
//!                                                              answer: before its first text
//!                                                              (direct) or its first tool call
//!                                                              (create_plan: plan; any other:
//!                                                              direct) — seed 002 §7.3; a turn
//!                                                              that ends with no answer sends
//!                                                              it just before run.response.end
//!     run.llm.delta{text}…                                     as the answer streams
//!     run.thinking.fail?, system.log{level: warn}              when the attempt broke after
//!                                                              streaming: its deltas are void
//!     run.llm.retry{…}                                         before the next attempt
//!   run.llm.end{llm_output, tool_calls, finish_reason, usage}
//!   run.usage.report{…, cumulative, model, cost_usd?}          when usage was reported
//!   system.log{level: warn} + the call again, continuing       when a text answer was cut
//!                                                              at the output limit (length)
//!   per tool call, in order:
//!     run.tool.start{call_id, tool_name, arguments, step_id?}
//!     run.tool.output… / run.file.change… / run.approval.request + .resolve   (the tool's own;
//!       system.status{kind: waiting_for_approval} between request and resolve)
//!     run.question.ask + run.question.answer                   ask_followup_question
//!     run.plan.respond{question_id} + run.question.answer      plan_mode_respond (answered
//!                                                              like a question)
//!       system.status{kind: waiting_for_answer} between each ask and its answer
//!     run.completion.attempt{result, command?}                 attempt_completion
//!     run.memory.update{source: remember, entries, …}           remember
//!     run.tool.end{status, result, duration_ms, args_summary, result_summary, from/to_path?}
//!     prepare.instructions.load{…}                             when the call's file brought a
//!                                                              nested AGENTS.md into view
//!     run.anomaly.detect{…} (+ run.plan.replan while a plan runs)   when the loop looks stuck
//! … until the model answers without tools or calls attempt_completion
//! plan mode (the model called create_plan):
//!   run.response.end{direct} + run.response.start{plan}         when direct mode had started
//!                                                               (the model wrote text, then
//!                                                               called create_plan)
//!   run.plan.create{plan}                                       steps indexed 1..n
//!   run.approval.request{kind: plan} + system.status{kind: waiting_for_approval}
//!     + run.approval.resolve                                     when approve_plans is set
//!   run.plan.modify{plan}                                       when the approver modified it
//!   run.tool.end{create_plan}
//!   run.execution.start{plan, message}
//!   per step: run.step.start{step_id, title, description, progress}, the step's iterations
//!     (as above, tool events carry step_id; after each run.llm.end with text,
//!     run.step.output{step_id, content}), then on failure up to 3 ×
//!     run.repair.attempt{result: pending} … run.repair.attempt{result: success|failed},
//!     then run.step.end{files_changed, progress} or run.step.fail
//!   run.plan.complete{success, summary, files_changed} + run.execution.end   (success)
//!   run.execution.fail + run.plan.complete{success: false}                   (failure)
//!   run.execution.cancel{message, step_id}                                   (cancelled)
//! system.error{error_type: provider}                            when the model call failed (no
//!                                                              attempt finished, or the output
//!                                                              limit could not be overcome)
//! run.response.end{mode}
//! agent.end{status, result, files_changed, usage}
//!
//! between turns, when the front end asks (AgentSession::distill_memory) and a turn since the
//! last time changed files (no turn id):
//!   run.llm.retry{…}                                           before each retry
//!   run.usage.report{…, model, cost_usd?}                      when usage was reported
//!   run.memory.update{source: distill, entries, dropped, total}   or system.log{level: warn}
//! ```
//!
//! # Rules
//!
//! - **Tools run only from a complete response.** Deltas are shown as they stream, but tools
//!   run from the assembled response of the attempt that succeeded, so a retry never runs a
//!   tool twice. An attempt that breaks (dropped connection, an undecodable chunk, no finish
//!   reason) is discarded whole and retried; when no attempt finishes the turn fails — nothing
//!   of a broken attempt reaches the conversation (see [`crate::retry`]). A call whose
//!   arguments were cut off (or are not JSON) is not run: its result tells the model so.
//! - **The output limit** (`finish_reason: length`) is not a success: a text answer is
//!   continued, a cut tool call never runs (see `output_limit.rs`).
//! - **The conversation stays well formed.** Every assistant tool call gets exactly one result,
//!   whatever happens: calls after `attempt_completion`, after `create_plan`, after a stop or a
//!   cancellation get a "not run" result, and anything still pending at the end of a turn is
//!   closed. So the next turn can always be sent.
//! - **De-duplication.** A tool result is given back complete the first time; later requests
//!   repeat it as keel-context decides. Whole reads focus the file; writes and edits focus
//!   its new content and pin it until the turn ends; deletes and moves follow the file.
//! - **Direct mode** ends `completed` when the model answers without tools (the answer is the
//!   result) or calls `attempt_completion` (its `result`), `max_iterations` after
//!   [`AgentConfig::max_iterations`] model calls, `failed` on a provider error or an anomaly
//!   stop, `cancelled` when cancelled. In [`Mode::Direct`](keel_protocol::Mode::Direct)
//!   `create_plan` is not offered; in [`Mode::Plan`](keel_protocol::Mode::Plan) the model is
//!   told to plan first and reminded once if it does not.
//! - **Plan approval**: when [`AgentConfig::approve_plans`] is set the approver decides.
//!   Approve runs the plan; modify runs the modified plan (a plan object or its JSON text in
//!   `modified`; one that does not parse counts as a rejection); reject gives `create_plan`
//!   the result `plan rejected: REASON` and ends the turn `cancelled` with that result — the
//!   user stopped the work, nothing failed.
//! - **A step fails** when its loop reaches [`AgentConfig::step_iterations`] model calls, or
//!   when the model ends the step (answers without tools) while the step's most recent tool
//!   call failed and its answer does not contain the word `RESOLVED` (the model is told to
//!   write it when the failure was expected or harmless). A failed step gets up to
//!   [`AgentConfig::max_repairs`] repair attempts, each a fresh bounded loop after a message
//!   naming the error; if none succeeds the plan fails. `attempt_completion` inside a step
//!   ends that step and the whole plan successfully (remaining steps are skipped).
//! - **Anomalies** (see [`anomaly`]): the first detection warns (`run.anomaly.detect`, a hint
//!   for the model, `run.plan.replan` while a plan runs); any detection after that stops the
//!   turn (`failed`).
//! - **Repo map** ([`AgentConfig::repo_map`], on by default): at the start of each turn the
//!   map is built or refreshed off the async threads (cached under `.keel/cache`), ranked
//!   toward the focused files and the files and identifiers the input mentions, rendered to
//!   its token budget and shown in the system prompt. A map that cannot be built is a warning;
//!   the turn goes on with the previous map, if any. A map given with
//!   [`AgentSession::with_repo_map`] is used as it is.
//! - **XML tool calls** ([`ToolFormat::Xml`], for models without native tool calling): the
//!   request carries no `tools`; the system prompt describes every tool and the convention of
//!   seed 004 §2.2. The streamed text is parsed as it arrives: text outside tags is answer
//!   text, `<thinking>` is reasoning, each complete tool block is a call (ids `xml_1`,
//!   `xml_2`, … in the session) run exactly like a native one with the same events. History
//!   goes back in the same convention: calls as XML blocks after the assistant's text, results
//!   as a user message of `<tool_result tool_name="…">` blocks. A block left open at the end
//!   of the response is a `system.log` warning and a failed call whose result tells the model.
//! - **Tool calls written as text** ([`ToolFormat::Native`]): when a server returns the
//!   model's call as content in its chat template's format (Hermes/Qwen `<tool_call>`, Llama
//!   `<|python_tag|>` or bare JSON, Mistral `[TOOL_CALLS]`, DeepSeek, a fenced JSON block) and
//!   the text is nothing but calls to offered tools, they are read as native calls
//!   ([`crate::text_tool_calls`]): the same `run.tool.start`, the same history (sent back as
//!   native `tool_calls`). Text that may become such a call is held back from `run.llm.delta`
//!   until it is decided. A leading `<think>…</think>` block is reasoning
//!   (`run.thinking.*`), with either format.
//! - **Context window**: [`AgentConfig::context_window`] when set, else the window the server
//!   reports for the model (asked once per model and session before its first call; a
//!   `system.log` says what it reported), else keel-context's table.
//! - **The system prompt** is the agent's instructions, then the turn's environment (OS, shell,
//!   date, root, git branch) and project instructions (see [`keel_context::project_instructions`]:
//!   user-wide, root and `instructions_files` at the start of the turn, nested `AGENTS.md` files
//!   as the turn reads, writes or edits files below them), gathered once per turn so model calls
//!   in between send the same text; then memory, the summary, the repo map, focused files.
//! - **Compaction** (see `compaction.rs`): the budget is checked before every model call, mid-turn
//!   included. When older turns must be summarised the model writes the summary
//!   ([`AgentConfig::model_summaries`], on by default) in a call of its own — no tools, one
//!   attempt, its request bounded to fit the window with room for the answer, cancelled with
//!   the turn — and the session's summariser (extractive unless replaced) stands in when it
//!   fails. A turn cancelled during the summary call sends no request and keeps its history.
//! - **Memory.** The model writes project memory with `remember` (a fact, a convention or a
//!   decision; see [`remember`]); the next request shows it. [`AgentSession::distill_memory`]
//!   makes one tool-less call over the turns that changed files (task, changed files, final
//!   answer, the memory so far) and records what it answers; a failure is a warning. Off with
//!   [`AgentConfig::distill_memory`], and for scripted providers unless the script asks.
//! - **Cost.** Each `run.usage.report` names the model that answered and, when
//!   [`AgentConfig::pricing`] knows its price, what the call cost (`cost_usd`, cached prompt
//!   tokens at the cached rate).
//! - **Cancellation** ([`AgentSession::cancel_handle`]) works at every await: the model call is
//!   abandoned, a running tool sees the same token (commands are killed) and is abandoned if
//!   it does not stop within 5 s, a pending question or approval stops waiting.

pub mod anomaly;
mod answer_review;
mod asked_code;
mod attempts;
mod auto_focus;
mod auto_test;
mod compaction;
pub mod config;
pub mod control_tools;
mod definition_edit;
mod diagnostics;
mod distill;
mod doc_examples;
mod edits_as_text;
mod environment;
mod forgotten_imports;
mod history_limit;
mod hooks;
mod identifier_rename;
mod instructions;
mod left_out;
mod look_alike;
mod model_call;
mod model_context;
mod move_first;
mod observer;
mod output_limit;
mod parts_review;
mod plan;
mod python_move;
pub mod remember;
mod rename_check;
mod repo_map;
mod rust_move;
mod session;
mod shadow;
mod skills;
mod stamps;
mod stuck_answer;
mod subagent;
mod summary;
mod tap;
mod tap_output;
mod task_intent;
mod task_parts;
mod test_files;
mod tool_call;
mod tool_loop;
mod turn;
mod turn_mark;
mod turn_overrides;
mod turn_prompt;
mod turn_state;
mod undocumented_names;
mod undone_parts;
mod whole_file;
mod xml_format;

pub use anomaly::{Anomaly, AnomalyDetector, AnomalyLimits};
pub use config::{
    AgentConfig, COMPACT_WINDOW, DEFAULT_MAX_HISTORY_MESSAGES, RepoMapConfig, ToolFormat,
    ToolProfile, UnknownToolFormat, UnknownToolProfile,
};
pub use distill::Distillation;
pub use session::{
    AgentError, AgentSession, MAX_SIDE_TOKENS, ResumedTurn, SideCallError, TurnOutcome, new_turn_id,
};
pub use subagent::{EXPLORER_TOOLS, SubagentSettings, TASK, TaskArgs};
pub use turn_overrides::TurnOverrides;
