// A front-end style consumer of @keel/events: `tsc --strict` fails if the union gains a type
// this switch does not handle, or if a payload field changes its name or type.
import { EVENT_TYPES, TIMELINE_TYPES } from "../ts/src/contract";
import type { Event, EventType, PayloadOf, TimelineEvent } from "../ts/src/contract";

export function payloadWeight(e: Event): number {
  switch (e.type) {
    case "agent.start":
      return e.payload.agent_name.length;
    case "agent.end":
      return e.payload.result.length;
    case "prepare.model.select":
      return e.payload.requested_model.length;
    case "prepare.conversation.open":
      return e.payload.conversation_id.length;
    case "prepare.history.load":
      return Object.keys(e.payload).length + (e.payload.start_turn === undefined ? 0 : 1);
    case "prepare.repomap.build":
      return Object.keys(e.payload).length + (e.payload.files === undefined ? 0 : 1);
    case "prepare.instructions.load":
      return e.payload.files.reduce((n, f) => n + f.path.length + f.tokens, e.payload.total_tokens);
    case "run.response.start":
      return Object.keys(e.payload).length + (e.payload.mode === undefined ? 0 : 1);
    case "run.response.end":
      return Object.keys(e.payload).length + (e.payload.mode === undefined ? 0 : 1);
    case "run.llm.start":
      return e.payload.model.length;
    case "run.llm.delta":
      return e.payload.text.length;
    case "run.llm.end":
      return e.payload.llm_output.length;
    case "run.llm.retry":
      return e.payload.error.length;
    case "run.thinking.start":
      return e.payload.agent_name.length;
    case "run.thinking.delta":
      return e.payload.agent_name.length;
    case "run.thinking.end":
      return e.payload.agent_name.length;
    case "run.thinking.fail":
      return e.payload.agent_name.length;
    case "run.tool.start":
      return e.payload.call_id.length;
    case "run.tool.output":
      return e.payload.call_id.length;
    case "run.tool.end":
      return e.payload.call_id.length;
    case "run.approval.request":
      return e.payload.approval_id.length;
    case "run.approval.resolve":
      return e.payload.approval_id.length;
    case "run.plan.create":
      return Object.keys(e.payload).length + (e.payload.plan === undefined ? 0 : 1);
    case "run.plan.modify":
      return Object.keys(e.payload).length + (e.payload.plan === undefined ? 0 : 1);
    case "run.plan.replan":
      return e.payload.message.length;
    case "run.plan.complete":
      return e.payload.summary.length;
    case "run.plan.respond":
      return e.payload.response.length;
    case "run.execution.start":
      return e.payload.message.length;
    case "run.execution.end":
      return e.payload.message.length;
    case "run.execution.fail":
      return e.payload.error.length;
    case "run.execution.cancel":
      return e.payload.message.length;
    case "run.step.start":
      return e.payload.title.length;
    case "run.step.output":
      return e.payload.content.length;
    case "run.step.end":
      return e.payload.title.length;
    case "run.step.fail":
      return e.payload.title.length;
    case "run.repair.attempt":
      return e.payload.trigger.length;
    case "run.anomaly.detect":
      return e.payload.message.length;
    case "run.file.change":
      return e.payload.path.length;
    case "run.context.compress":
      return e.payload.summary.length + (e.payload.summarizer === "model" ? 1 : 0) + (e.payload.usage?.total_tokens ?? 0);
    case "run.context.window":
      return Object.keys(e.payload).length + (e.payload.tokens_used === undefined ? 0 : 1);
    case "run.usage.report":
      return (
        Object.keys(e.payload).length +
        (e.payload.prompt_tokens === undefined ? 0 : 1) +
        (e.payload.cost_usd ?? 0) +
        (e.payload.model?.length ?? 0)
      );
    case "run.memory.update":
      return e.payload.entries.length + e.payload.total;
    case "run.question.ask":
      return e.payload.question_id.length;
    case "run.question.answer":
      return e.payload.question_id.length;
    case "run.completion.attempt":
      return e.payload.result.length;
    case "run.checkpoint.rewind":
      return e.payload.turn_ids.length + e.payload.files_restored.length + (e.payload.scope === "both" ? 1 : 0);
    case "run.hook.start":
      return e.payload.hook_event.length + e.payload.command.length + e.payload.source.length;
    case "run.hook.end":
      return e.payload.command.length + e.payload.duration_ms + (e.payload.decision === "block" ? 1 : 0);
    case "run.subagent.start":
      return e.payload.call_id.length + e.payload.subagent_type.length + e.payload.depth;
    case "run.subagent.end":
      return e.payload.report_chars + e.payload.usage.total_tokens + (e.payload.status === "completed" ? 1 : 0);
    case "exec.file.start":
      return e.payload.run_id.length;
    case "exec.file.stdout":
      return e.payload.run_id.length;
    case "exec.file.stderr":
      return e.payload.run_id.length;
    case "exec.file.exit":
      return e.payload.run_id.length;
    case "system.status":
      return e.payload.message.length;
    case "system.log":
      return e.payload.message.length;
    case "system.error":
      return e.payload.error.length;
    case "system.cli_display":
      return e.payload.message.length;
    default: {
      const unhandled: never = e;
      return unhandled;
    }
  }
}

export function timelineLabel(t: TimelineEvent): string {
  switch (t.type) {
    case "agent_phase":
      return `${t.payload.phase} ${t.payload.action}`;
    case "tool_call":
      return t.payload.toolName === "move_file"
        ? `move_file ${t.payload.fromPath ?? "?"} → ${t.payload.toPath ?? "?"}`
        : t.payload.toolName;
    case "file_update":
      return `${t.payload.op} ${t.payload.path}`;
    case "self_repair":
      return `attempt ${t.payload.attemptNumber}/${t.payload.maxAttempts}`;
    case "log":
      return `[${t.payload.level}] ${t.payload.message}`;
    case "error":
      return t.payload.recoverable ? t.payload.message : `fatal: ${t.payload.message}`;
    default: {
      const unhandled: never = t;
      return unhandled;
    }
  }
}

// The const list and the union agree.
const allTypes: readonly EventType[] = EVENT_TYPES;
const toolEnd: PayloadOf<"run.tool.end"> = {
  call_id: "c1",
  tool_name: "move_file",
  status: "success",
  result: "File moved",
  duration_ms: 3,
  args_summary: "a → b",
  result_summary: "moved",
  from_path: "a",
  to_path: "b",
};
export const checks = [allTypes.length, TIMELINE_TYPES.length, toolEnd.duration_ms];
