//! The console renderer: its state, its output primitives, and the dispatch over every
//! catalogue type (one `print_…` method per type, as seed 001 §4 asks; the methods live in the
//! sibling files, grouped by phase and domain).

use std::collections::HashSet;
use std::io::Write;

use keel_events::{Event, EventHandler, EventKind, RunToolStart, StatusKind, SystemStatus};

use super::spinner::{NoSpinner, Spinner};
use super::style::{Painter, Tone};
use crate::i18n::{Arg, Messages};
use keel_events::Lang;

/// How the renderer shows events.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RenderOptions {
    /// Emit ANSI colour escapes.
    pub color: bool,
    /// Show detail: thinking text, tool output, model-call lines, debug logs, whole diffs,
    /// error stacks, log metadata.
    pub verbose: bool,
    /// The language of the renderer's words and of the tool action text.
    pub lang: Lang,
}

/// A stream of text that can stop mid-line and continue with the next event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum StreamKind {
    /// `run.llm.delta` text.
    Answer,
    /// `run.thinking.delta` text (verbose only).
    Thinking,
    /// `run.tool.output` of one call (verbose only).
    ToolOutput(String),
    /// `run.step.output` text.
    StepOutput,
    /// `exec.file.stdout`.
    ExecStdout,
    /// `exec.file.stderr`.
    ExecStderr,
}

/// Renders events for a person reading a terminal (or a log of what a terminal showed).
///
/// It keeps what it needs to lay the stream out well: whether the cursor is mid-line after
/// streamed text, which tool calls have started but not ended (a call is shown as one line when
/// it ends), whether a plan step is open (its lines are indented), and whether the model is
/// being waited for (the [`Spinner`] shows then). Write errors never panic: the first is kept
/// ([`ConsoleRenderer::error`]) and later output is dropped.
pub struct ConsoleRenderer<W: Write> {
    out: W,
    painter: Painter,
    pub(super) verbose: bool,
    spinner: Box<dyn Spinner>,
    error: Option<std::io::Error>,
    /// The stream whose last line is still open (no newline written yet).
    open: Option<StreamKind>,
    /// A plan step has started and not yet ended: lines are indented under it.
    pub(super) in_step: bool,
    /// How deep the event being rendered is nested under `task` calls (0: the top agent's).
    pub(super) nesting: usize,
    /// Each subagent's depth, by the `task` call that started it.
    pub(super) subagent_depths: std::collections::HashMap<String, usize>,
    /// Between `run.llm.start` and the first delta (or the end).
    pub(super) waiting_for_model: bool,
    /// Answer text of the current model call was streamed as deltas.
    pub(super) answer_streamed: bool,
    /// Between `run.thinking.start` and its end or failure.
    pub(super) thinking: bool,
    /// Reasoning of the current block was streamed as deltas.
    pub(super) thought_streamed: bool,
    /// Tool calls started and not yet ended, in start order.
    pub(super) pending_tools: Vec<RunToolStart>,
    /// The wait a `system.status` with a kind announced; the next other event ends it.
    pub(super) status: Option<SystemStatus>,
    /// An approval or an answer is being asked of the person at the terminal (no spinner then:
    /// the prompt is theirs).
    pub(super) awaiting_person: bool,
    /// The latest model response's text was shown (so its `run.step.output` is not repeated).
    pub(super) answer_shown: bool,
    /// A hash of the last system prompt shown (verbose), to show it again only when it changes.
    pub(super) last_system_prompt: Option<u64>,
    /// Calls whose header line was printed because their output is being shown.
    pub(super) tool_headers: HashSet<String>,
    /// The renderer's words in the chosen language.
    messages: Messages,
    /// The terminal's width now, when the output is a terminal the renderer may rewrite
    /// (move the cursor up and erase); `None` for pipes, files and tests of plain output.
    terminal_width: Option<TerminalWidth>,
    /// What the current model attempt has written so far (while the output can be rewritten):
    /// erased when the attempt is discarded and retried (`run.llm.retry`).
    pub(super) attempt_output: Option<String>,
}

/// The current width of the terminal, in columns.
pub type TerminalWidth = Box<dyn Fn() -> Option<usize> + Send>;

/// The width of the terminal standard output is, asked each time (it can be resized).
pub fn stdout_width() -> TerminalWidth {
    Box::new(|| {
        console::Term::stdout()
            .size_checked()
            .map(|(_, columns)| usize::from(columns))
    })
}

impl<W: Write> std::fmt::Debug for ConsoleRenderer<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConsoleRenderer")
            .field("verbose", &self.verbose)
            .field("open", &self.open)
            .field("pending_tools", &self.pending_tools.len())
            .finish_non_exhaustive()
    }
}

impl<W: Write> ConsoleRenderer<W> {
    /// A renderer writing to `out`, with no spinner.
    pub fn new(out: W, options: RenderOptions) -> Self {
        Self {
            out,
            painter: Painter::new(options.color),
            verbose: options.verbose,
            spinner: Box::new(NoSpinner),
            error: None,
            open: None,
            in_step: false,
            nesting: 0,
            subagent_depths: std::collections::HashMap::new(),
            waiting_for_model: false,
            answer_streamed: false,
            thinking: false,
            thought_streamed: false,
            pending_tools: Vec::new(),
            tool_headers: HashSet::new(),
            status: None,
            awaiting_person: false,
            answer_shown: false,
            last_system_prompt: None,
            messages: Messages::new(options.lang),
            terminal_width: None,
            attempt_output: None,
        }
    }

    /// Lets the renderer rewrite what it wrote (it writes to a terminal whose width `width`
    /// tells): a model attempt that is discarded and retried is erased from the screen.
    pub fn with_rewrite(mut self, width: TerminalWidth) -> Self {
        self.terminal_width = Some(width);
        self
    }

    /// Starts recording what a model attempt writes, when the output can be rewritten.
    pub(super) fn begin_attempt(&mut self) {
        self.attempt_output = self.terminal_width.as_ref().map(|_| String::new());
    }

    /// Erases from the screen everything the current attempt wrote (a no-op when the output
    /// cannot be rewritten or the attempt wrote nothing); true when something was erased.
    pub(super) fn erase_attempt(&mut self) -> bool {
        let Some(written) = self.attempt_output.take() else {
            return false;
        };
        let Some(width) = self.terminal_width.as_ref().and_then(|w| w()) else {
            return false;
        };
        if written.is_empty() {
            return false;
        }
        let up = rows_above(&written, width);
        let mut erase = String::from("\r");
        if up > 0 {
            erase.push_str(&format!("\x1b[{up}A"));
        }
        erase.push_str("\x1b[J");
        self.open = None;
        self.write_raw(&erase);
        true
    }

    /// Uses `spinner` to show that the model or a tool is being waited for.
    pub fn with_spinner(mut self, spinner: Box<dyn Spinner>) -> Self {
        self.spinner = spinner;
        self
    }

    /// The first write error, if any (output stops at the first one).
    pub fn error(&self) -> Option<&std::io::Error> {
        self.error.as_ref()
    }

    /// Ends the rendering: closes an open line, reports tool calls that never ended, flushes.
    /// Returns the first write error, if any.
    pub fn finish(&mut self) -> std::io::Result<()> {
        self.spinner.hide();
        self.close_line();
        self.drain_pending_tools();
        self.flush_out();
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Renders one event payload.
    pub fn render(&mut self, kind: &EventKind) {
        if !matches!(kind, EventKind::SystemStatus(_)) {
            // A wait holds until the next event.
            self.status = None;
        }
        match kind {
            EventKind::AgentStart(p) => self.print_agent_start(p),
            EventKind::AgentEnd(p) => self.print_agent_end(p),
            EventKind::PrepareModelSelect(p) => self.print_prepare_model_select(p),
            EventKind::PrepareConversationOpen(p) => self.print_prepare_conversation_open(p),
            EventKind::PrepareHistoryLoad(p) => self.print_prepare_history_load(p),
            EventKind::PrepareRepomapBuild(p) => self.print_prepare_repomap_build(p),
            EventKind::PrepareInstructionsLoad(p) => self.print_prepare_instructions_load(p),
            EventKind::RunResponseStart(p) => self.print_run_response_start(p),
            EventKind::RunResponseEnd(p) => self.print_run_response_end(p),
            EventKind::RunLlmStart(p) => self.print_run_llm_start(p),
            EventKind::RunLlmDelta(p) => self.print_run_llm_delta(p),
            EventKind::RunLlmEnd(p) => self.print_run_llm_end(p),
            EventKind::RunLlmRetry(p) => self.print_run_llm_retry(p),
            EventKind::RunThinkingStart(p) => self.print_run_thinking_start(p),
            EventKind::RunThinkingDelta(p) => self.print_run_thinking_delta(p),
            EventKind::RunThinkingEnd(p) => self.print_run_thinking_end(p),
            EventKind::RunThinkingFail(p) => self.print_run_thinking_fail(p),
            EventKind::RunToolStart(p) => self.print_run_tool_start(p),
            EventKind::RunToolOutput(p) => self.print_run_tool_output(p),
            EventKind::RunToolEnd(p) => self.print_run_tool_end(p),
            EventKind::RunApprovalRequest(p) => self.print_run_approval_request(p),
            EventKind::RunApprovalResolve(p) => self.print_run_approval_resolve(p),
            EventKind::RunPlanCreate(p) => self.print_run_plan_create(p),
            EventKind::RunPlanModify(p) => self.print_run_plan_modify(p),
            EventKind::RunPlanReplan(p) => self.print_run_plan_replan(p),
            EventKind::RunPlanComplete(p) => self.print_run_plan_complete(p),
            EventKind::RunPlanRespond(p) => self.print_run_plan_respond(p),
            EventKind::RunExecutionStart(p) => self.print_run_execution_start(p),
            EventKind::RunExecutionEnd(p) => self.print_run_execution_end(p),
            EventKind::RunExecutionFail(p) => self.print_run_execution_fail(p),
            EventKind::RunExecutionCancel(p) => self.print_run_execution_cancel(p),
            EventKind::RunStepStart(p) => self.print_run_step_start(p),
            EventKind::RunStepOutput(p) => self.print_run_step_output(p),
            EventKind::RunStepEnd(p) => self.print_run_step_end(p),
            EventKind::RunStepFail(p) => self.print_run_step_fail(p),
            EventKind::RunRepairAttempt(p) => self.print_run_repair_attempt(p),
            EventKind::RunAnomalyDetect(p) => self.print_run_anomaly_detect(p),
            EventKind::RunFileChange(p) => self.print_run_file_change(p),
            EventKind::RunContextCompress(p) => self.print_run_context_compress(p),
            EventKind::RunContextWindow(p) => self.print_run_context_window(p),
            EventKind::RunUsageReport(p) => self.print_run_usage_report(p),
            EventKind::RunMemoryUpdate(p) => self.print_run_memory_update(p),
            EventKind::RunQuestionAsk(p) => self.print_run_question_ask(p),
            EventKind::RunQuestionAnswer(p) => self.print_run_question_answer(p),
            EventKind::RunCompletionAttempt(p) => self.print_run_completion_attempt(p),
            EventKind::RunCheckpointRewind(p) => self.print_run_checkpoint_rewind(p),
            EventKind::RunHookStart(p) => self.print_run_hook_start(p),
            EventKind::RunHookEnd(p) => self.print_run_hook_end(p),
            EventKind::RunSubagentStart(p) => self.print_run_subagent_start(p),
            EventKind::RunSubagentEnd(p) => self.print_run_subagent_end(p),
            EventKind::ExecFileStart(p) => self.print_exec_file_start(p),
            EventKind::ExecFileStdout(p) => self.print_exec_file_stdout(p),
            EventKind::ExecFileStderr(p) => self.print_exec_file_stderr(p),
            EventKind::ExecFileExit(p) => self.print_exec_file_exit(p),
            EventKind::SystemStatus(p) => self.print_system_status(p),
            EventKind::SystemLog(p) => self.print_system_log(p),
            EventKind::SystemError(p) => self.print_system_error(p),
            EventKind::SystemCliDisplay(p) => self.print_system_cli_display(p),
        }
    }

    // ----- words ---------------------------------------------------------------------------

    /// Message `id` of the catalogue, in the renderer's language, with `args` put in.
    pub(super) fn t(&self, id: &str, args: &[(&str, Arg<'_>)]) -> String {
        self.messages.text(id, args)
    }

    /// `items` joined as a list in the renderer's language (`a, b` / `a、b`).
    pub(super) fn list(&self, items: &[String]) -> String {
        items.join(&self.t("list-separator", &[]))
    }

    /// What a call of `tool` with `arguments` does, in words (`tools.ftl`).
    pub(super) fn tool_action(&self, tool: &str, arguments: &serde_json::Value) -> String {
        self.messages.tool_action(tool, arguments)
    }

    // ----- output primitives -------------------------------------------------------------

    fn write_raw(&mut self, text: &str) {
        if self.error.is_some() || text.is_empty() {
            return;
        }
        if let Some(written) = self.attempt_output.as_mut() {
            written.push_str(text);
        }
        if let Err(e) = self.out.write_all(text.as_bytes()) {
            self.error = Some(e);
        }
    }

    fn flush_out(&mut self) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.out.flush() {
            self.error = Some(e);
        }
    }

    fn indent(&self) -> String {
        "  ".repeat(usize::from(self.in_step) + self.nesting)
    }

    /// `lead` (indent and prefix) painted dim when it holds more than spaces.
    fn paint_lead(&self, lead: &str) -> String {
        if lead.trim().is_empty() {
            lead.to_owned()
        } else {
            self.painter.paint(Tone::Dim, lead).into_owned()
        }
    }

    /// Ends a streamed line that is still open, so the next block starts on a new line.
    pub(super) fn close_line(&mut self) {
        if self.open.take().is_some() {
            self.write_raw("\n");
        }
    }

    /// Closes the open stream if it is `kind`.
    pub(super) fn close_stream(&mut self, kind: &StreamKind) {
        if self.open.as_ref() == Some(kind) {
            self.close_line();
        }
    }

    /// One whole line made of styled spans, at the current indent.
    pub(super) fn line(&mut self, spans: &[(Tone, &str)]) {
        self.close_line();
        let mut text = self.indent();
        for (tone, span) in spans {
            text.push_str(&self.painter.paint(*tone, span));
        }
        let trimmed_len = text.trim_end_matches(' ').len();
        text.truncate(trimmed_len);
        text.push('\n');
        self.write_raw(&text);
    }

    /// Every line of `text` as an output line, after the indent and `prefix` (painted dim).
    pub(super) fn block(&mut self, prefix: &str, tone: Tone, text: &str) {
        self.close_line();
        let mut buf = String::new();
        for line in text.lines() {
            let line = line.trim_end();
            let lead = format!("{}{prefix}", self.indent());
            if line.is_empty() {
                buf.push_str(&self.paint_lead(lead.trim_end()));
            } else {
                buf.push_str(&self.paint_lead(&lead));
                buf.push_str(&self.painter.paint(tone, line));
            }
            buf.push('\n');
        }
        self.write_raw(&buf);
    }

    /// Streamed text: continues the open line when it belongs to the same stream, starts a new
    /// line (indent and `prefix`) after every newline, and leaves the line open when the text
    /// does not end with one. Carriage returns pass through as they are, so the result does not
    /// depend on how the text was cut into events.
    pub(super) fn stream(&mut self, kind: StreamKind, prefix: &str, tone: Tone, text: &str) {
        if text.is_empty() {
            return;
        }
        let continuing = self.open.as_ref() == Some(&kind);
        if !continuing {
            self.close_line();
        }
        let mut at_start = !continuing;
        let mut buf = String::new();
        for piece in text.split_inclusive('\n') {
            let (body, newline) = match piece.strip_suffix('\n') {
                Some(body) => (body, true),
                None => (piece, false),
            };
            if at_start {
                let lead = format!("{}{prefix}", self.indent());
                if body.is_empty() {
                    buf.push_str(&self.paint_lead(lead.trim_end()));
                } else {
                    buf.push_str(&self.paint_lead(&lead));
                }
            }
            buf.push_str(&self.painter.paint(tone, body));
            if newline {
                buf.push('\n');
            }
            at_start = newline;
        }
        self.write_raw(&buf);
        self.open = if at_start { None } else { Some(kind) };
    }

    // ----- the spinner ---------------------------------------------------------------------

    /// Shows the spinner when something is being waited for and no line is open under it
    /// (none while the person at the terminal is being asked something).
    fn update_spinner(&mut self) {
        if self.open.is_some() || self.error.is_some() || self.awaiting_person {
            return;
        }
        let announced = self.status.as_ref().and_then(|status| match status.kind {
            Some(StatusKind::WaitingForModel | StatusKind::Indexing) => {
                Some(format!("{}…", status.message.trim().trim_end_matches('…')))
            }
            _ => None,
        });
        let message = if announced.is_some() {
            announced
        } else if self.waiting_for_model {
            Some(self.t("waiting-model", &[]))
        } else if self.thinking && !self.verbose {
            Some(self.t("waiting-thinking", &[]))
        } else {
            self.pending_tools
                .last()
                .map(|start| format!("{}…", self.tool_action(&start.tool_name, &start.arguments)))
        };
        if let Some(message) = message {
            self.spinner.show(&message);
        }
    }
}

/// How many rows above the cursor the text `written` (from the start of a line) reaches on a
/// terminal `width` columns wide: every line it ended, each as many rows as it wrapped onto,
/// and the wrapped rows of the line it left open. ANSI escapes take no room; tabs go to the
/// next multiple of eight; wide characters take two columns.
pub(super) fn rows_above(written: &str, width: usize) -> usize {
    let width = width.max(1);
    let plain = console::strip_ansi_codes(written);
    let rows = |columns: usize| columns.div_ceil(width).max(1);
    let mut up = 0;
    let mut column = 0usize;
    for c in plain.chars() {
        match c {
            '\n' => {
                up += rows(column);
                column = 0;
            }
            '\r' => column = 0,
            '\t' => column = (column / 8 + 1) * 8,
            c => column += console::measure_text_width(c.encode_utf8(&mut [0; 4])),
        }
    }
    up + rows(column) - 1
}

impl<W: Write + Send> EventHandler for ConsoleRenderer<W> {
    fn handle(&mut self, event: &Event) {
        if self.hides_child_event(event) {
            return;
        }
        self.spinner.hide();
        self.nesting = self.nesting_of(event);
        self.render(&event.kind);
        self.nesting = 0;
        self.flush_out();
        self.update_spinner();
    }

    fn lagged(&mut self, missed: u64, after_seq: u64) {
        self.spinner.hide();
        let text = self.t(
            "events-skipped",
            &[
                ("count", Arg::from(missed)),
                ("n", Arg::from(super::format::count(missed))),
                ("seq", Arg::from(after_seq.to_string())),
            ],
        );
        self.line(&[(Tone::Warning, &text)]);
        self.flush_out();
    }

    fn flush(&mut self) {
        self.flush_out();
    }
}
