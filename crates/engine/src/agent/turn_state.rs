//! The running turn's own state, and the vocabulary its parts answer in: why a loop stopped
//! ([`LoopEnd`]), a plan waiting to run ([`PendingPlan`]), how the turn ended ([`Ending`]).

use std::time::Instant;

use keel_events::{
    AgentStatus, Emitter, Plan, ResponseMode, RunAnomalyDetect, RunPlanReplan, RunResponseStart,
    Usage,
};
use tokio_util::sync::CancellationToken;

use super::anomaly::{Anomaly, AnomalyDetector, AnomalyLimits};
use super::auto_test::TestState;
use super::stamps::Stamps;
use crate::error::ProviderError;

/// State of the running turn.
#[derive(Debug)]
pub(crate) struct TurnState {
    pub(crate) cancel: CancellationToken,
    /// The turn's response as the front end hears of it.
    pub(crate) response: ResponseGate,
    pub(crate) usage: Usage,
    pub(crate) iterations: u32,
    pub(crate) detector: AnomalyDetector,
    /// The plan being executed.
    pub(crate) plan: Option<Plan>,
    /// Messages for the model to add once the current round of tool results is complete.
    pub(crate) hints: Vec<String>,
    /// The latest tool call of the current step, when it failed: (tool, result).
    pub(crate) last_failure: Option<(String, String)>,
    /// Plan mode: the model was reminded to call `create_plan`.
    pub(crate) nudged: bool,
    /// Times `Stop` hooks sent the model back to work this turn.
    pub(crate) stop_continuations: u32,
    /// The hook event of the answer that would end the loop: `Stop` for a turn,
    /// `SubagentStop` for a subagent.
    pub(crate) stop_event: keel_extensions::HookEvent,
    /// The task asks for the project's files to change ([`super::task_intent`]).
    pub(crate) asks_for_change: bool,
    /// The task is plainly a question ([`super::task_intent::only_asks`]).
    pub(crate) only_asks: bool,
    /// The task says its tests are right ([`super::task_intent::keeps_tests`]): code blocks
    /// for test files are not written.
    pub(crate) keeps_tests: bool,
    /// `keeps_tests` because the tests passed when the turn began and the task does not
    /// speak of them ([`super::task_intent::mentions_tests`]).
    pub(crate) tests_passed_at_start: bool,
    /// Test files an answer gave whole and the turn left alone (see `keeps_tests`).
    pub(crate) tests_left_alone: Vec<String>,
    /// The workspace as the turn found it, when the task asks for changes: whether anything
    /// changed, commands included.
    pub(crate) stamps: Option<Stamps>,
    /// The compact tool profile was offered at the latest model call.
    pub(crate) compact: bool,
    /// The model edits by writing files whole, without tools ([`super::tool_call::Offer::blocks`]).
    pub(crate) blocks: bool,
    /// The latest answer held a tool result the model wrote itself.
    pub(crate) made_up_result: bool,
    /// The corrections of answers made so far in the turn (each is made once).
    pub(crate) corrected: Corrections,
    /// Rounds of the project's tests run after the model's answer ([`super::auto_test`]).
    pub(crate) test_rounds: u32,
    /// How the latest of those runs went.
    pub(crate) tests: TestState,
    /// Whether what failed in it were the examples in the changed code's docstrings
    /// ([`super::doc_examples`]).
    pub(crate) examples_failed: bool,
    /// The workspace as the latest failing run of the tests left it: an answer that changes
    /// nothing gets that run's verdict again instead of another run ([`super::auto_test`]).
    pub(crate) failed_on: Option<super::stamps::Stamps>,
    /// The task as the person wrote it, and where the turn starts in the conversation (for
    /// starting over, [`super::attempts`]).
    pub(crate) task: String,
    pub(crate) turn_start: usize,
    /// The attempt being made (1 for the first).
    pub(crate) attempt: u32,
    /// How answers are sampled in this attempt, when not as configured.
    pub(crate) sampling: Option<crate::provider::Sampling>,
    /// Times the task's parts were checked ([`super::parts_review`]), and the check under way.
    pub(crate) parts_rounds: u32,
    pub(crate) parts_review: Option<super::parts_review::PartsReview>,
    /// Times the model was told the old name of a rename is still used
    /// ([`super::rename_check`]).
    pub(crate) rename_rounds: u32,
    /// The code was checked again for names the documents never use
    /// ([`super::undocumented_names`]).
    pub(crate) undocumented_checked: bool,
    /// The errors the language servers report in the files the turn's edits changed, by
    /// file (as of each file's latest edit).
    pub(crate) edit_errors: std::collections::BTreeMap<String, Vec<String>>,
    /// The files the turn's edit calls touched, as they were before the first of them
    /// (`None`: the file did not exist), for starting over ([`super::attempts`]).
    pub(crate) originals: std::collections::BTreeMap<String, Option<String>>,
    /// The files Keel's own work for the task wrote (`TurnRun::write_baseline`) as they were
    /// before it (`None`: the file did not exist): what the turn changed is measured from them.
    pub(crate) before_keel: std::collections::BTreeMap<String, Option<String>>,
    /// What Keel did itself for the task (a rename carried out first), in sentences for the
    /// turn's answer.
    pub(crate) done_by_keel: Vec<String>,
}

/// Which answers the turn has corrected already.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Corrections {
    /// A made-up tool result.
    pub(crate) made_up: bool,
    /// An answer with no change where one was asked for.
    pub(crate) no_change: bool,
    /// An empty answer.
    pub(crate) empty: bool,
}

impl TurnState {
    /// A turn answering in `response` mode, cancelled by `cancel`.
    pub(crate) fn new(
        cancel: CancellationToken,
        response: ResponseMode,
        anomalies: AnomalyLimits,
    ) -> Self {
        Self {
            cancel,
            response: ResponseGate {
                mode: response,
                open: false,
            },
            usage: Usage::default(),
            iterations: 0,
            detector: AnomalyDetector::new(anomalies),
            plan: None,
            hints: Vec::new(),
            last_failure: None,
            nudged: false,
            stop_continuations: 0,
            stop_event: keel_extensions::HookEvent::Stop,
            asks_for_change: false,
            only_asks: false,
            keeps_tests: false,
            tests_passed_at_start: false,
            tests_left_alone: Vec::new(),
            stamps: None,
            compact: false,
            blocks: false,
            made_up_result: false,
            corrected: Corrections::default(),
            test_rounds: 0,
            tests: TestState::NotRun,
            examples_failed: false,
            failed_on: None,
            task: String::new(),
            turn_start: 0,
            attempt: 1,
            sampling: None,
            parts_rounds: 0,
            parts_review: None,
            rename_rounds: 0,
            undocumented_checked: false,
            edit_errors: std::collections::BTreeMap::new(),
            originals: std::collections::BTreeMap::new(),
            before_keel: std::collections::BTreeMap::new(),
            done_by_keel: Vec::new(),
        }
    }

    /// Reports an anomaly: `run.anomaly.detect`, then a stop message when it came after a
    /// warning, else a hint for the model (and `run.plan.replan` while a plan runs).
    pub(crate) fn report_anomaly(
        &mut self,
        emitter: &Emitter,
        anomaly: Anomaly,
        step: Option<u32>,
    ) -> Option<String> {
        tracing::warn!(kind = ?anomaly.kind, stop = anomaly.stop, "{}", anomaly.message);
        emitter.emit(RunAnomalyDetect {
            step_id: step,
            anomaly: anomaly.kind,
            message: anomaly.message.clone(),
        });
        if anomaly.stop {
            return Some(format!(
                "stopped: {} (after an earlier warning in this turn)",
                anomaly.message
            ));
        }
        if self.plan.is_some() {
            emitter.emit(RunPlanReplan {
                message: "The execution looks stuck; the model was told to change its approach for the rest of the plan.".to_owned(),
                reason: anomaly.message.clone(),
            });
        }
        self.hints.push(format!(
            "Warning: {}. You seem to be stuck. Do not repeat what did not work: change your approach (read the error, look at the files again, try another tool), or finish and explain what blocks you. If this happens again the turn will be stopped.",
            anomaly.message
        ));
        None
    }
}

/// The turn's response as the front end hears of it (seed 002 §7.3: the response's first event
/// tells the mode): `run.response.start` goes out at once in direct and plan mode, and in auto
/// mode with the first streamed piece of the model's answer that shows it — its text, or its
/// first tool call (`create_plan`: plan) — so it precedes the answer's text and calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ResponseGate {
    /// Direct or plan.
    pub(crate) mode: ResponseMode,
    /// Whether `run.response.start` went out.
    pub(crate) open: bool,
}

impl ResponseGate {
    /// Sends `run.response.start{mode}` unless it went out already.
    pub(crate) fn announce(&mut self, emitter: &Emitter, mode: ResponseMode) {
        if self.open {
            return;
        }
        self.mode = mode;
        self.open = true;
        emitter.emit(RunResponseStart { mode });
    }
}

/// How a turn ends (`agent.end`'s status, result and warning).
#[derive(Debug, Clone)]
pub(crate) struct Ending {
    pub(crate) status: AgentStatus,
    pub(crate) result: String,
    /// Why the result may not be what was asked, when Keel can tell.
    pub(crate) warning: Option<String>,
}

impl Ending {
    pub(crate) fn new(status: AgentStatus, result: impl Into<String>) -> Self {
        Self {
            status,
            result: result.into(),
            warning: None,
        }
    }

    /// The same ending with `warning`.
    pub(crate) fn warned(mut self, warning: impl Into<String>) -> Self {
        self.warning = Some(warning.into());
        self
    }
}

/// Why a tool loop stopped.
#[derive(Debug)]
pub(crate) enum LoopEnd {
    /// The model answered without calling tools.
    Answered(String),
    /// The model called `attempt_completion`.
    Completed(String),
    /// The model called `create_plan`; the call (whose result is still pending) and the plan.
    PlanRequested(PendingPlan),
    /// The step's iteration cap was reached.
    StepCap,
    /// The turn's iteration limit was reached.
    TurnCap,
    /// The anomaly detector stopped the turn.
    Stopped(String),
    /// The turn was cancelled.
    Cancelled,
    /// The model could not be reached (after retries and fallbacks).
    Failed(ProviderError),
}

/// A `create_plan` call waiting for its result.
#[derive(Debug)]
pub(crate) struct PendingPlan {
    pub(crate) call_id: String,
    pub(crate) arguments: serde_json::Value,
    pub(crate) started: Instant,
    pub(crate) plan: Plan,
}
