// Everything the page shows about one session, folded from its raw events in seq order:
// the windowed timeline, the FileTree, pending approvals and questions (planning replies
// included), the plan's progress, whether a turn runs and what it waits for. Consumers subscribe and re-render on change.
import type { Event, Plan, Progress, RunApprovalRequest, RunQuestionAsk, StatusKind, TimelineEvent } from "./contract";
import { applyFileUpdate, initFileTree, selectFile, type FileTreeState } from "./fileTree";
import { toTimelineAll } from "./timeline";
import { TimelineWindow, WINDOW_CAPACITY } from "./window";

type PayloadOf<T extends Event["type"]> = Extract<Event, { type: T }>["payload"];

/** Longest text kept per thinking block, command output or file run (the tail is kept). */
const TEXT_CAP = 20_000;
/** How many thinking blocks, command outputs, file changes and file runs are kept. */
const DETAIL_CAP = 50;

/** The model's reasoning during one call. */
export interface ThinkingBlock {
  key: string;
  agent: string;
  text: string;
  done: boolean;
}

/** A tool call's streamed output (`run.tool.output`), e.g. a command's. */
export interface CommandOutput {
  callId: string;
  tool: string;
  arguments: unknown;
  text: string;
  /** Set when the call ended: its status. */
  status: string | undefined;
}

/** A `run.file.change`, with its diff when the engine sent one. */
export interface FileChange {
  key: string;
  change: PayloadOf<"run.file.change">;
}

/** A file run (`exec.file.*`) and its output so far. */
export interface FileRunState {
  runId: string;
  file: string;
  command: string[];
  output: { stream: "stdout" | "stderr"; text: string }[];
  exit: PayloadOf<"exec.file.exit"> | undefined;
}

function keepLast<T>(list: T[]): T[] {
  return list.length > DETAIL_CAP ? list.slice(list.length - DETAIL_CAP) : list;
}

function capText(text: string): string {
  return text.length > TEXT_CAP ? text.slice(text.length - TEXT_CAP) : text;
}

/** One timeline row: the record plus what the page adds to it. */
export interface TimelineItem {
  /** Unique key: the record id (a repair's phase records carry their own v8 id). */
  key: string;
  /** Seq of the event it came from. */
  seq: number;
  record: TimelineEvent;
  /** The event the record came from (the page words the record from its fields). */
  source: Event;
  /** Plan position, for step phase nodes. */
  progress?: Progress;
  /** For a tool call whose start was seen: its name and arguments (for the action text). */
  call?: { name: string; arguments: unknown };
}

/** A plan step's state. */
export interface StepState {
  index: number;
  title: string;
  status: "pending" | "running" | "done" | "failed";
}

/** The plan being run, if any. */
export interface PlanState {
  goal: string;
  steps: StepState[];
  progress?: Progress;
  status: "proposed" | "running" | "done" | "failed" | "cancelled";
}

/** A notice shown above the timeline (stream reload, errors). */
export interface Notice {
  kind: "info" | "warn" | "error";
  text: string;
}

function planState(plan: Plan, status: PlanState["status"]): PlanState {
  return {
    goal: plan.goal,
    steps: plan.steps.map((s) => ({ index: s.index, title: s.title, status: "pending" })),
    status,
  };
}

/** The folded state of one session. */
export class SessionModel {
  lastSeq = 0;
  running = false;
  plan: PlanState | undefined;
  approvals = new Map<string, RunApprovalRequest>();
  questions = new Map<string, RunQuestionAsk>();
  tree: FileTreeState = initFileTree([]);
  treeLoaded = false;
  /** The model's current streamed answer text (last model call). */
  liveText = "";
  /** What the running turn waits for (a `system.status` with a kind), until the next event. */
  waiting: { kind: StatusKind; message: string } | undefined;
  lastResult: string | undefined;
  notice: Notice | undefined;
  /** The plan as proposed (or last modified), with step descriptions: what the editor edits. */
  proposedPlan: Plan | undefined;
  /** The model's reasoning, one block per model call that reasoned. */
  thinking: ThinkingBlock[] = [];
  /** Keys of the thinking blocks the current model attempt started: a retried attempt's
   * reasoning is void, like its text. */
  private attemptThinking = new Set<string>();
  /** Streamed tool output, by call id, in call order. */
  outputs = new Map<string, CommandOutput>();
  /** File changes in order. */
  changes: FileChange[] = [];
  /** File runs by run id, in start order. */
  fileRuns = new Map<string, FileRunState>();
  /** The top agent's latest `run.usage.report` (its `cumulative` is the session's total so far,
   * its subagents' calls included). */
  usage: PayloadOf<"run.usage.report"> | undefined;
  /** Tokens and cost of the session's own calls, made between turns (the memory
   * distillation, a turn's commit message, a pull request's text: `purpose: "memory_distill"`,
   * `"commit_message"`, `"pull_request"`), summed; shown apart from the turns' calls. */
  sessionCalls: { calls: number; prompt: number; completion: number; cost: number | undefined } | undefined;
  /** The latest context window fill. */
  contextWindow: PayloadOf<"run.context.window"> | undefined;
  /** The latest repo map build. */
  repomap: PayloadOf<"prepare.repomap.build"> | undefined;
  /** How many `run.memory.update` events were seen: the memory panel reloads when it changes. */
  memoryUpdates = 0;
  readonly window: TimelineWindow<TimelineItem>;
  private version = 0;
  /** Arguments of tool calls that started and have not ended, by call id. */
  private toolArgs = new Map<string, unknown>();
  private notifyScheduled = false;
  private listeners = new Set<() => void>();

  constructor(capacity = WINDOW_CAPACITY) {
    this.window = new TimelineWindow<TimelineItem>(capacity, (item) => item.record);
  }

  /** Subscribes to changes; returns the unsubscribe function. */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Changes on every update (for `useSyncExternalStore`). */
  getVersion = (): number => this.version;

  /** Notifies subscribers, at most once per animation frame: a replayed backlog of thousands of
   * events renders a few times, not once per event. */
  changed(): void {
    this.version++;
    if (this.notifyScheduled) return;
    this.notifyScheduled = true;
    const notify = () => {
      this.notifyScheduled = false;
      for (const listener of this.listeners) listener();
    };
    if (typeof requestAnimationFrame === "function" && typeof document !== "undefined" && !document.hidden) {
      requestAnimationFrame(notify);
    } else {
      setTimeout(notify, 0);
    }
  }

  /** Sets the file listing (from `GET …/files`), keeping the selection when it still exists. */
  setFiles(files: readonly string[]): void {
    this.tree = initFileTree(files, this.tree.selected);
    this.treeLoaded = true;
    this.changed();
  }

  /** Selects a file in the tree. */
  select(path: string | null): void {
    this.tree = selectFile(this.tree, path);
    this.changed();
  }

  /** Forgets all events (the stream said `reload`: history before `oldestSeq` is gone). */
  reset(notice?: Notice): void {
    this.lastSeq = 0;
    this.window.clear();
    this.approvals.clear();
    this.questions.clear();
    this.plan = undefined;
    this.liveText = "";
    this.waiting = undefined;
    this.lastResult = undefined;
    this.notice = notice;
    this.proposedPlan = undefined;
    this.thinking = [];
    this.attemptThinking.clear();
    this.outputs.clear();
    this.toolArgs.clear();
    this.changes = [];
    this.fileRuns.clear();
    this.usage = undefined;
    this.sessionCalls = undefined;
    this.contextWindow = undefined;
    this.repomap = undefined;
    this.memoryUpdates++;
    this.changed();
  }

  /** Shows or clears a notice. */
  setNotice(notice: Notice | undefined): void {
    this.notice = notice;
    this.changed();
  }

  /** Folds events in; ones at or below the last seq seen are duplicates and ignored. */
  applyAll(events: readonly Event[]): void {
    let any = false;
    for (const event of events) any = this.fold(event) || any;
    if (any) this.changed();
  }

  /** Folds one event in (see [`applyAll`]). */
  apply(event: Event): void {
    if (this.fold(event)) this.changed();
  }

  private fold(event: Event): boolean {
    if (event.type === "system.cli_display") return false;
    if (event.seq <= this.lastSeq) return false;
    this.lastSeq = event.seq;
    this.track(event);
    this.trackDetails(event);
    for (const record of toTimelineAll(event)) {
      const progress =
        event.type === "run.step.start" || event.type === "run.step.end" ? event.payload.progress : undefined;
      const key = record.id;
      const item: TimelineItem = progress
        ? { key, seq: event.seq, record, source: event, progress }
        : { key, seq: event.seq, record, source: event };
      if (event.type === "run.tool.end") {
        const args = this.toolArgs.get(event.payload.call_id);
        this.toolArgs.delete(event.payload.call_id);
        if (args !== undefined) item.call = { name: event.payload.tool_name, arguments: args };
      }
      this.window.push(item);
      if (record.type === "file_update") this.tree = applyFileUpdate(this.tree, record.payload);
    }
    return true;
  }

  private setStep(index: number, status: StepState["status"], progress?: Progress): void {
    if (!this.plan) return;
    this.plan = {
      ...this.plan,
      progress: progress ?? this.plan.progress,
      steps: this.plan.steps.map((s) => (s.index === index ? { ...s, status } : s)),
    };
  }

  private trimOutputs(): void {
    while (this.outputs.size > DETAIL_CAP) {
      const first = this.outputs.keys().next();
      if (first.done) break;
      this.outputs.delete(first.value);
    }
    while (this.fileRuns.size > DETAIL_CAP) {
      const first = this.fileRuns.keys().next();
      if (first.done) break;
      this.fileRuns.delete(first.value);
    }
  }

  /** Thinking, command output, file changes, file runs, usage, context and repo map. */
  private trackDetails(event: Event): void {
    switch (event.type) {
      case "run.llm.start":
      case "run.llm.end":
        // A new attempt starts, or the attempt finished: its reasoning stays.
        this.attemptThinking.clear();
        break;
      case "run.llm.retry":
        // The attempt broke and is discarded whole: its reasoning goes with its text.
        if (this.attemptThinking.size > 0) {
          this.thinking = this.thinking.filter((block) => !this.attemptThinking.has(block.key));
          this.attemptThinking.clear();
        }
        break;
      case "run.thinking.start":
        this.attemptThinking.add(`${event.seq}`);
        this.thinking = keepLast([
          ...this.thinking,
          { key: `${event.seq}`, agent: event.payload.agent_name, text: "", done: false },
        ]);
        break;
      case "run.thinking.delta":
      case "run.thinking.end":
      case "run.thinking.fail": {
        const last = this.thinking[this.thinking.length - 1];
        const open = last && !last.done ? last : undefined;
        const block: ThinkingBlock = open ?? {
          key: `${event.seq}`,
          agent: event.payload.agent_name,
          text: "",
          done: false,
        };
        if (!open) this.attemptThinking.add(block.key);
        const next: ThinkingBlock =
          event.type === "run.thinking.delta"
            ? { ...block, text: capText(block.text + event.payload.text) }
            : event.type === "run.thinking.end"
              ? { ...block, text: capText(event.payload.result || block.text), done: true }
              : { ...block, text: capText(`${block.text}\n${event.payload.error_message}`), done: true };
        this.thinking = keepLast(open ? [...this.thinking.slice(0, -1), next] : [...this.thinking, next]);
        break;
      }
      case "run.tool.start":
        this.toolArgs.set(event.payload.call_id, event.payload.arguments);
        if (this.toolArgs.size > DETAIL_CAP) {
          const first = this.toolArgs.keys().next();
          if (!first.done) this.toolArgs.delete(first.value);
        }
        if (event.payload.tool_name === "execute_command") {
          this.outputs.set(event.payload.call_id, {
            callId: event.payload.call_id,
            tool: event.payload.tool_name,
            arguments: event.payload.arguments,
            text: "",
            status: undefined,
          });
          this.trimOutputs();
        }
        break;
      case "run.tool.output": {
        const found = this.outputs.get(event.payload.call_id) ?? {
          callId: event.payload.call_id,
          tool: "",
          arguments: undefined,
          text: "",
          status: undefined,
        };
        this.outputs.set(event.payload.call_id, { ...found, text: capText(found.text + event.payload.content) });
        this.trimOutputs();
        break;
      }
      case "run.tool.end": {
        const found = this.outputs.get(event.payload.call_id);
        if (found) this.outputs.set(event.payload.call_id, { ...found, status: event.payload.status });
        break;
      }
      case "run.file.change":
        this.changes = keepLast([...this.changes, { key: `${event.seq}`, change: event.payload }]);
        break;
      case "exec.file.start":
        this.fileRuns.set(event.payload.run_id, {
          runId: event.payload.run_id,
          file: event.payload.file,
          command: event.payload.command,
          output: [],
          exit: undefined,
        });
        this.trimOutputs();
        break;
      case "exec.file.stdout":
      case "exec.file.stderr": {
        const run = this.fileRuns.get(event.payload.run_id);
        if (!run) break;
        const stream: "stdout" | "stderr" = event.type === "exec.file.stdout" ? "stdout" : "stderr";
        const last = run.output[run.output.length - 1];
        const output =
          last && last.stream === stream
            ? [...run.output.slice(0, -1), { stream, text: capText(last.text + event.payload.content) }]
            : keepLast([...run.output, { stream, text: event.payload.content }]);
        this.fileRuns.set(run.runId, { ...run, output });
        break;
      }
      case "exec.file.exit": {
        const run = this.fileRuns.get(event.payload.run_id);
        if (run) this.fileRuns.set(run.runId, { ...run, exit: event.payload });
        break;
      }
      case "run.usage.report": {
        // A subagent's report counts its own calls: the parent's next one includes them.
        if (event.parent_call_id === undefined) this.usage = event.payload;
        const purpose = event.payload.purpose;
        if (purpose === "memory_distill" || purpose === "commit_message" || purpose === "pull_request") {
          const before = this.sessionCalls ?? { calls: 0, prompt: 0, completion: 0, cost: undefined };
          const cost = event.payload.cost_usd;
          this.sessionCalls = {
            calls: before.calls + 1,
            prompt: before.prompt + event.payload.prompt_tokens,
            completion: before.completion + event.payload.completion_tokens,
            cost: cost === undefined ? before.cost : (before.cost ?? 0) + cost,
          };
        }
        break;
      }
      case "run.context.window":
        this.contextWindow = event.payload;
        break;
      case "prepare.repomap.build":
        this.repomap = event.payload;
        break;
      case "run.memory.update":
        this.memoryUpdates++;
        break;
      default:
        break;
    }
  }

  private track(event: Event): void {
    this.waiting =
      event.type === "system.status" && event.payload.kind !== undefined
        ? { kind: event.payload.kind, message: event.payload.message }
        : undefined;
    switch (event.type) {
      case "agent.start":
        this.running = true;
        this.lastResult = undefined;
        this.liveText = "";
        break;
      case "agent.end":
        this.running = false;
        this.waiting = undefined;
        this.lastResult = event.payload.result;
        this.approvals.clear();
        this.questions.clear();
        if (this.plan && (this.plan.status === "running" || this.plan.status === "proposed")) {
          this.plan = {
            ...this.plan,
            status: event.payload.status === "completed" ? "done" : event.payload.status === "cancelled" ? "cancelled" : "failed",
          };
        }
        break;
      case "run.llm.start":
      case "run.llm.retry":
        // A retry follows an attempt that broke: what it streamed is void.
        this.liveText = "";
        break;
      case "run.llm.delta":
        this.liveText = (this.liveText + event.payload.text).slice(-2000);
        break;
      case "run.approval.request":
        this.approvals.set(event.payload.approval_id, event.payload);
        break;
      case "run.approval.resolve":
        this.approvals.delete(event.payload.approval_id);
        break;
      case "run.question.ask":
        this.questions.set(event.payload.question_id, event.payload);
        break;
      case "run.plan.respond":
        // A planning reply waits for an answer like a question (streams recorded before it
        // carried a question id cannot be answered).
        if (event.payload.question_id) {
          this.questions.set(event.payload.question_id, {
            question_id: event.payload.question_id,
            question: event.payload.response,
            options: event.payload.options,
          });
        }
        break;
      case "run.question.answer":
        this.questions.delete(event.payload.question_id);
        break;
      case "run.plan.create":
        this.proposedPlan = event.payload.plan;
        this.plan = planState(event.payload.plan, "proposed");
        break;
      case "run.plan.modify":
        this.proposedPlan = event.payload.plan;
        this.plan = planState(event.payload.plan, this.plan?.status ?? "proposed");
        break;
      case "run.execution.start":
        this.plan = { ...(this.plan ?? planState(event.payload.plan, "running")), status: "running" };
        break;
      case "run.step.start":
        this.setStep(event.payload.step_id, "running", event.payload.progress);
        break;
      case "run.step.end":
        this.setStep(event.payload.step_id, "done", event.payload.progress);
        break;
      case "run.step.fail":
        this.setStep(event.payload.step_id, "failed", event.payload.progress);
        break;
      case "run.execution.end":
        if (this.plan) this.plan = { ...this.plan, status: "done" };
        break;
      case "run.execution.fail":
        if (this.plan) this.plan = { ...this.plan, status: "failed" };
        break;
      case "run.execution.cancel":
        if (this.plan) this.plan = { ...this.plan, status: "cancelled" };
        break;
      default:
        break;
    }
  }
}
