// Client-side Activity Timeline projection (seed 003): catalogue events → timeline records.
// Mirrors crates/events/src/projection/timeline.rs (`to_timeline` / `to_timeline_all`) exactly,
// so the live page shows what `GET /v1/projects/{id}/timeline` would.
import type {
  AgentPhase,
  Event,
  JsonValue,
  LogLevel,
  Progress,
  TimelineEvent,
  TimelinePayload,
} from "./contract.js";

type PhaseAction = "enter" | "exit";
type Metadata = Record<string, JsonValue>;

/** The tool whose calls carry `fromPath`/`toPath`. */
export const MOVE_FILE_TOOL = "move_file";

function phase(phase: AgentPhase, action: PhaseAction, summary?: string): TimelinePayload {
  return {
    type: "agent_phase",
    payload: summary === undefined ? { phase, action } : { phase, action, summary },
  };
}

function log(level: LogLevel, message: string, metadata?: Metadata): TimelinePayload {
  return {
    type: "log",
    payload: metadata === undefined ? { level, message } : { level, message, metadata },
  };
}

/** A metadata object without its null/undefined entries (optional fields stay absent). */
function meta(value: Record<string, unknown>): Metadata {
  const out: Metadata = {};
  for (const [key, v] of Object.entries(value)) {
    if (v !== null && v !== undefined) out[key] = v as Metadata[string];
  }
  return out;
}

function stepSummary(progress: Progress, title: string, suffix: string): string {
  return `Step ${progress.current}/${progress.total}${suffix}: ${title}`;
}

function nonEmpty(text: string): string | undefined {
  return text === "" ? undefined : text;
}

/** Drops keys whose value is undefined, so absent optional fields stay absent. */
function compact<T extends object>(value: T): T {
  const out = {} as Record<string, unknown>;
  for (const [key, v] of Object.entries(value)) if (v !== undefined) out[key] = v;
  return out as T;
}

/** The timeline payload of one event, or `undefined` when the timeline does not show it. */
/** What a hook's decision reads as on a timeline row (the Rust projection's words). */
const HOOK_WORDS: Record<string, string> = {
  continue: "ran",
  allow: "allowed the call",
  ask: "asks for approval",
  block: "blocked",
};

export function timelinePayload(event: Event): TimelinePayload | undefined {
  switch (event.type) {
    case "run.response.start":
      return event.payload.mode === "plan" ? phase("planner", "enter") : phase("coder", "enter");
    case "run.response.end":
      return event.payload.mode === "direct" ? phase("coder", "exit") : undefined;
    case "run.plan.create": {
      const n = event.payload.plan.steps.length;
      return phase("planner", "exit", `${event.payload.plan.goal} (${n} step${n === 1 ? "" : "s"})`);
    }
    case "run.execution.start":
      return phase("coder", "enter", event.payload.message);
    case "run.execution.end":
      return phase("coder", "exit", event.payload.summary);
    case "run.step.start":
      return log(
        "info",
        stepSummary(event.payload.progress, event.payload.title, ""),
        meta({ stepId: event.payload.step_id }),
      );
    case "run.step.end":
      return log(
        "info",
        stepSummary(event.payload.progress, event.payload.title, " done"),
        meta({ stepId: event.payload.step_id }),
      );
    case "run.completion.attempt":
      return log("info", event.payload.result, meta({ command: event.payload.command }));
    case "run.repair.attempt": {
      const p = event.payload;
      return {
        type: "self_repair",
        payload: compact({
          attemptNumber: p.attempt_number,
          maxAttempts: p.max_attempts,
          trigger: p.trigger,
          errorType: p.error_type,
          errorMessage: p.error_message,
          suggestion: p.suggestion,
          result: p.result,
        }),
      };
    }
    case "run.tool.end": {
      const p = event.payload;
      const argsSummary =
        p.from_path !== undefined && p.to_path !== undefined
          ? `${p.from_path} → ${p.to_path}`
          : nonEmpty(p.args_summary);
      return {
        type: "tool_call",
        payload: compact({
          toolName: p.tool_name,
          argsSummary,
          resultSummary: nonEmpty(p.result_summary),
          success: p.status === "success",
          duration: p.duration_ms > 0 ? p.duration_ms : undefined,
          fromPath: p.from_path,
          toPath: p.to_path,
          mcpServer: p.mcp_server,
        }),
      };
    }
    case "run.file.change": {
      const p = event.payload;
      const isMove = p.op === "move";
      return {
        type: "file_update",
        payload: compact({
          path: p.path,
          op: p.op,
          summary: nonEmpty(p.summary),
          fromPath: isMove ? p.from_path : undefined,
          toPath: isMove ? p.to_path : undefined,
          fileSize: p.size,
          mimeType: p.mime_type,
        }),
      };
    }
    case "system.error":
      return {
        type: "error",
        payload: compact({
          errorType: event.payload.error_type,
          message: event.payload.error,
          stack: event.payload.stack,
          recoverable: event.payload.recoverable,
        }),
      };
    case "run.execution.fail":
      return {
        type: "error",
        payload: { errorType: "execution_failed", message: event.payload.error, recoverable: false },
      };
    case "system.log":
      return log(event.payload.level, event.payload.message, event.payload.metadata);
    case "system.status":
      // A wait (with a kind) is transient: the next event ends it; it is not history.
      return event.payload.kind === undefined ? log("info", event.payload.message) : undefined;
    case "agent.start": {
      const images = event.payload.images ?? [];
      const shown = images.length === 0 ? "" : ` (images: ${images.map((i) => i.name).join(", ")})`;
      return log(
        "info",
        `Task started: ${event.payload.task_input}${shown}`,
        meta({ agentName: event.payload.agent_name, modeHint: event.payload.mode_hint }),
      );
    }
    case "agent.end": {
      const p = event.payload;
      const level: LogLevel =
        p.status === "completed" ? "info" : p.status === "failed" ? "error" : "warn";
      return log(
        level,
        `Task ${p.status}: ${p.result}`,
        meta({ status: p.status, filesChanged: p.files_changed, totalTokens: p.usage.total_tokens }),
      );
    }
    case "prepare.model.select": {
      const p = event.payload;
      if (!p.is_fallback) return undefined;
      const base = `Using fallback model ${p.final_model} instead of ${p.requested_model}`;
      return log(
        "warn",
        p.reason === undefined ? base : `${base}: ${p.reason}`,
        meta({ requestedModel: p.requested_model, finalModel: p.final_model }),
      );
    }
    case "run.plan.modify":
      return log("info", `Plan modified: ${event.payload.plan.goal}`);
    case "run.plan.replan":
      return log("warn", event.payload.message, meta({ reason: event.payload.reason }));
    case "run.plan.complete":
      return log(
        event.payload.success ? "info" : "warn",
        event.payload.summary,
        meta({ success: event.payload.success, filesChanged: event.payload.files_changed }),
      );
    case "run.plan.respond":
      return log(
        "info",
        event.payload.response,
        meta({ questionId: event.payload.question_id, options: event.payload.options }),
      );
    case "run.execution.cancel":
      return log("warn", event.payload.message);
    case "run.step.fail": {
      const p = event.payload;
      return log(
        "error",
        `${stepSummary(p.progress, p.title, " failed")}: ${p.error}`,
        meta({ stepId: p.step_id }),
      );
    }
    case "run.anomaly.detect":
      return log(
        "warn",
        event.payload.message,
        meta({ anomaly: event.payload.anomaly, stepId: event.payload.step_id }),
      );
    case "run.llm.retry": {
      const p = event.payload;
      return log(
        "warn",
        `Model call failed (attempt ${p.attempt}/${p.max_attempts}), retrying in ${p.delay_ms} ms: ${p.error}`,
      );
    }
    case "run.thinking.fail":
      return log("warn", `Reasoning failed: ${event.payload.error_message}`);
    case "run.approval.request":
      return log(
        "info",
        `Waiting for approval: ${event.payload.subject}`,
        meta({
          approvalId: event.payload.approval_id,
          kind: event.payload.kind,
          reason: event.payload.reason,
        }),
      );
    case "run.approval.resolve": {
      const p = event.payload;
      const text =
        p.decision === "approve" ? "Approved" : p.decision === "reject" ? "Rejected" : "Approved with changes";
      return log("info", text, meta({ approvalId: p.approval_id, decision: p.decision, reason: p.reason }));
    }
    case "run.question.ask":
      return log(
        "info",
        event.payload.question,
        meta({ questionId: event.payload.question_id, options: event.payload.options }),
      );
    case "run.question.answer":
      return log("info", event.payload.answer, meta({ questionId: event.payload.question_id }));
    case "run.context.compress":
      return log(
        "info",
        `Context compressed from ${event.payload.original_tokens} to ${event.payload.compressed_tokens} tokens`,
      );
    case "run.memory.update": {
      const p = event.payload;
      const n = p.entries.length;
      return log(
        "info",
        `Memory updated (${p.source}): ${n} ${n === 1 ? "entry" : "entries"}`,
        meta({ source: p.source, ids: p.entries.map((e) => e.id), dropped: p.dropped, total: p.total }),
      );
    }
    case "run.checkpoint.rewind": {
      const p = event.payload;
      const n = p.turn_ids.length;
      return log(
        "warn",
        `Rewound ${p.checkpoint_id} (${p.scope}): ${n} ${n === 1 ? "turn" : "turns"} undone`,
        meta({
          checkpointId: p.checkpoint_id,
          scope: p.scope,
          turnIds: p.turn_ids,
          fromSeq: p.from_seq,
          toSeq: p.to_seq,
          filesRestored: p.files_restored,
          filesRemoved: p.files_removed,
        }),
      );
    }
    case "run.hook.end": {
      const p = event.payload;
      return log(
        p.error === undefined ? "info" : "warn",
        p.error === undefined
          ? `Hook ${p.hook_event} ${HOOK_WORDS[p.decision]}: ${p.command}`
          : `Hook ${p.hook_event} failed: ${p.command} (${p.error})`,
        meta({
          hookEvent: p.hook_event,
          command: p.command,
          matcher: p.matcher,
          callId: p.call_id,
          decision: p.decision,
          reason: p.reason,
          durationMs: p.duration_ms,
          exitCode: p.exit_code,
          error: p.error,
        }),
      );
    }
    case "run.subagent.start": {
      const p = event.payload;
      return log(
        "info",
        `Subagent ${p.subagent_type} started: ${p.description}`,
        meta({ callId: p.call_id, subagentType: p.subagent_type, depth: p.depth, model: p.model }),
      );
    }
    case "run.subagent.end": {
      const p = event.payload;
      const level: LogLevel =
        p.status === "completed" ? "info" : p.status === "failed" ? "error" : "warn";
      return log(level, `Subagent ${p.subagent_type} ${p.status}: ${p.usage.total_tokens} tokens`, meta({
        callId: p.call_id,
        subagentType: p.subagent_type,
        status: p.status,
        reportChars: p.report_chars,
        totalTokens: p.usage.total_tokens,
        costUsd: p.cost_usd,
        durationMs: p.duration_ms,
      }));
    }
    case "run.hook.start":
    case "prepare.conversation.open":
    case "prepare.history.load":
    case "prepare.repomap.build":
    case "prepare.instructions.load":
    case "run.llm.start":
    case "run.llm.delta":
    case "run.llm.end":
    case "run.thinking.start":
    case "run.thinking.delta":
    case "run.thinking.end":
    case "run.tool.start":
    case "run.tool.output":
    case "run.step.output":
    case "run.context.window":
    case "run.usage.report":
    case "exec.file.start":
    case "exec.file.stdout":
    case "exec.file.stderr":
    case "exec.file.exit":
    case "system.cli_display":
      return undefined;
  }
}

function record(event: Event, id: string, payload: TimelinePayload): TimelineEvent {
  return {
    id,
    timestamp: event.ts,
    taskId: event.turn_id ?? "",
    projectId: event.project_id,
    ...(event.parent_call_id === undefined ? {} : { parentCallId: event.parent_call_id }),
    ...payload,
  };
}

/** The event's timeline record, or `undefined` when the timeline does not show it. */
export function toTimeline(event: Event): TimelineEvent | undefined {
  const payload = timelinePayload(event);
  return payload === undefined ? undefined : record(event, event.id, payload);
}

/** The event's id re-marked as a UUID v8 (same bytes, version nibble 8), as the server does;
 * `second` also flips the lowest bit, for a second phase record of the same event. */
export function phaseId(eventId: string, second = false): string {
  const id = eventId.toLowerCase();
  if (id.length !== 36) return second ? `${id}-phase2` : `${id}-phase`;
  const marked = `${id.slice(0, 14)}8${id.slice(15)}`;
  if (!second) return marked;
  const last = (parseInt(marked.slice(35), 16) ^ 1).toString(16);
  return `${marked.slice(0, 35)}${last}`;
}

/**
 * Every timeline record an event stands for: `toTimeline`'s record, plus the phase records it
 * implies: the `debugger` around repair attempts (enter before the first pending attempt, exit
 * after a success or the last failed attempt), the `coder`'s exit after `run.execution.fail` /
 * `.cancel`, and the `reviewer` (enter and exit) before a completed `agent.end`.
 */
export function toTimelineAll(event: Event): TimelineEvent[] {
  const main = toTimeline(event);
  if (main === undefined) return [];
  const phaseRecord = (second: boolean, which: AgentPhase, action: PhaseAction, summary?: string) =>
    record(event, phaseId(event.id, second), phase(which, action, summary));
  switch (event.type) {
    case "run.repair.attempt": {
      const p = event.payload;
      const summary = `Repair attempt ${p.attempt_number}/${p.max_attempts}: ${p.trigger}`;
      const records: TimelineEvent[] = [];
      if (p.attempt_number <= 1 && p.result === "pending") {
        records.push(phaseRecord(false, "debugger", "enter", summary));
      }
      records.push(main);
      if (p.result === "success" || (p.result === "failed" && p.attempt_number >= p.max_attempts)) {
        records.push(phaseRecord(false, "debugger", "exit", summary));
      }
      return records;
    }
    case "run.execution.fail":
    case "run.execution.cancel":
      return [main, phaseRecord(false, "coder", "exit")];
    case "agent.end":
      return event.payload.status === "completed"
        ? [
            phaseRecord(false, "reviewer", "enter", event.payload.result),
            phaseRecord(true, "reviewer", "exit"),
            main,
          ]
        : [main];
    default:
      return [main];
  }
}
