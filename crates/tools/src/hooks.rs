//! Running hooks (keel-extensions' [`Hook`]s): every hook an event matches is started at once,
//! each a shell command in the session's root and OS sandbox — the confinement commands run
//! in — with the event as JSON on standard input, its time-out, and the environment commands
//! get plus `CLAUDE_PROJECT_DIR` and `KEEL_PROJECT_DIR`. Each run is a `run.hook.start` /
//! `run.hook.end` pair; a hook that times out, cannot start, exits with another code than 0 or
//! 2, or prints invalid JSON is also a `system.log` warning naming it, and decides nothing:
//! the session goes on. The answers are merged ([`HookOutcome::merge`]: any block wins).

use std::ffi::OsString;
use std::path::Path;
use std::time::Instant;

use keel_events::{Emitter, HookDecision, LogLevel, RunHookEnd, RunHookStart, SystemLog};
use keel_extensions::{Decision, Hook, HookEvent, HookOutcome, HookRun, Hooks};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::process::{self, CommandSandbox, ProcessSpec};

/// Most bytes kept of a hook's standard output and of its standard error.
const HOOK_OUTPUT_CAP: usize = 32 * 1024;

/// What an event's hooks run with: the session's hooks, root, sandbox, events and
/// cancellation.
#[derive(Debug, Clone, Copy)]
pub struct HookRunner<'a> {
    /// The session's hooks.
    pub hooks: &'a Hooks,
    /// The project root: the hooks' working directory and `CLAUDE_PROJECT_DIR`.
    pub root: &'a Path,
    /// The OS sandbox the session's commands run in.
    pub sandbox: &'a CommandSandbox,
    /// Where `run.hook.*` and the logs go.
    pub emitter: &'a Emitter,
    /// The turn's cancellation: a cancelled turn kills its hooks.
    pub cancel: &'a CancellationToken,
    /// The approval policy's name (`permission_mode` in the input).
    pub permission_mode: &'a str,
}

/// One firing of an event.
#[derive(Debug, Clone, Default)]
pub struct HookCall {
    /// What a matcher is matched against: a tool's Keel name, a session's source, a
    /// compaction's trigger.
    pub subject: Option<String>,
    /// The tool call it is for.
    pub call_id: Option<String>,
    /// The event's own fields of the input (`tool_name`, `tool_input`, `prompt`, …).
    pub fields: Map<String, Value>,
}

impl HookRunner<'_> {
    /// Whether any hook runs at `event`.
    pub fn has(&self, event: HookEvent) -> bool {
        self.hooks.has(event)
    }

    /// Runs the hooks `event` matches for `call`, all at once, and merges their answers
    /// (nothing to merge when none matches).
    pub async fn run(&self, event: HookEvent, call: HookCall) -> HookOutcome {
        let matching = self.hooks.matching(event, call.subject.as_deref());
        if matching.is_empty() {
            return HookOutcome::default();
        }
        let mut input = Map::new();
        input.insert(
            "session_id".into(),
            self.emitter.sequencer().session_id().to_string().into(),
        );
        input.insert("cwd".into(), self.root.display().to_string().into());
        input.insert("hook_event_name".into(), event.as_str().into());
        input.insert("permission_mode".into(), self.permission_mode.into());
        input.extend(call.fields);
        let input: std::sync::Arc<[u8]> = Value::Object(input).to_string().into_bytes().into();
        let runs = matching
            .into_iter()
            .map(|hook| self.run_one(event, hook, call.call_id.as_deref(), input.clone()));
        HookOutcome::merge(futures::future::join_all(runs).await)
    }

    /// One hook: started, waited for, read, reported.
    async fn run_one(
        &self,
        event: HookEvent,
        hook: &Hook,
        call_id: Option<&str>,
        input: std::sync::Arc<[u8]>,
    ) -> HookOutcome {
        self.emitter.emit(RunHookStart {
            hook_event: event.as_str().to_owned(),
            command: hook.command.clone(),
            matcher: hook.matcher.clone(),
            call_id: call_id.map(str::to_owned),
            source: hook.origin.to_string(),
        });
        let started = Instant::now();
        let run = self.spawn(hook, input).await;
        let outcome = HookOutcome::read(event, &run);
        self.emitter.emit(RunHookEnd {
            hook_event: event.as_str().to_owned(),
            command: hook.command.clone(),
            matcher: hook.matcher.clone(),
            call_id: call_id.map(str::to_owned),
            decision: decision(outcome.decision),
            reason: outcome.reason.clone(),
            updated_input: outcome.updated_input.is_some(),
            exit_code: run.exit_code,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            error: outcome.error.clone(),
        });
        if let Some(error) = &outcome.error {
            let message = format!(
                "hook {event} ({}) `{}` failed: {error}; it is ignored and the session goes on",
                hook.origin, hook.command
            );
            tracing::warn!(%message, "hook failed");
            let mut metadata = Map::new();
            metadata.insert("hook_event".into(), event.as_str().into());
            metadata.insert("path".into(), hook.origin.path.display().to_string().into());
            metadata.insert("line".into(), hook.origin.line.into());
            self.emitter.emit(SystemLog {
                level: LogLevel::Warn,
                message,
                metadata: Some(metadata),
            });
        }
        if let Some(text) = &outcome.system_message {
            self.emitter.emit(SystemLog {
                level: LogLevel::Info,
                message: format!("hook {event}: {text}"),
                metadata: None,
            });
        }
        outcome
    }

    /// Runs the command and says how it ended.
    async fn spawn(&self, hook: &Hook, input: std::sync::Arc<[u8]>) -> HookRun {
        if let CommandSandbox::Refused(why) = self.sandbox {
            return HookRun {
                failure: Some(format!(
                    "not run: the sandbox refuses commands here ({why})"
                )),
                ..HookRun::default()
            };
        }
        let mut env: Vec<(OsString, OsString)> = std::env::vars_os().collect();
        for name in ["CLAUDE_PROJECT_DIR", "KEEL_PROJECT_DIR"] {
            env.push((name.into(), self.root.as_os_str().to_owned()));
        }
        let spec = ProcessSpec::shell(&hook.command, self.root)
            .with_timeout(hook.timeout)
            .with_output_cap(HOOK_OUTPUT_CAP)
            .with_env(env)
            .with_stdin(input)
            .with_sandbox(self.sandbox.sandbox());
        match process::run(&spec, self.cancel, &mut |_, _| {}).await {
            Ok(outcome) => HookRun {
                exit_code: outcome.exit_code.filter(|_| !outcome.timed_out),
                failure: (outcome.timed_out || outcome.cancelled || outcome.exit_code.is_none())
                    .then(|| outcome.describe(hook.timeout)),
                stdout: outcome.stdout,
                stderr: outcome.stderr,
            },
            Err(e) => HookRun {
                failure: Some(e.to_string()),
                ..HookRun::default()
            },
        }
    }
}

/// The event's word for a decision.
fn decision(decision: Decision) -> HookDecision {
    match decision {
        Decision::Continue => HookDecision::Continue,
        Decision::Allow => HookDecision::Allow,
        Decision::Ask => HookDecision::Ask,
        Decision::Block => HookDecision::Block,
    }
}
