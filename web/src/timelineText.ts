// The words of a timeline row in the page's language. The projection (@keel/events) writes
// its records' summaries and messages in English, the same as the server's timeline; where a
// record's text is made from the event's fields, the page says it again from those fields
// through the catalogue. Text that is the event's own data (a log message, a command's
// summary, the model's answer) is shown as it is.
import type { Event, TimelineEvent } from "./contract";
import type { Messages } from "./i18n";

/** The record's message (a log) or summary (a phase) in `m`'s language, or `undefined` to
 * show the record's own text. */
export function timelineText(m: Messages, source: Event, record: TimelineEvent): string | undefined {
  const { t } = m;
  if (record.type === "agent_phase") {
    if (source.type === "run.plan.create") {
      const plan = source.payload.plan;
      return t("timeline-plan-summary", { goal: plan.goal, count: plan.steps.length });
    }
    if (source.type === "run.repair.attempt") {
      const p = source.payload;
      return t("timeline-repair-summary", { attempt: p.attempt_number, max: p.max_attempts, trigger: p.trigger });
    }
    return undefined;
  }
  if (record.type !== "log") return undefined;
  switch (source.type) {
    case "run.step.start":
    case "run.step.end": {
      const p = source.payload;
      const id = source.type === "run.step.start" ? "timeline-step-start" : "timeline-step-done";
      return t(id, { current: p.progress.current, total: p.progress.total, title: p.title });
    }
    case "run.step.fail": {
      const p = source.payload;
      return t("timeline-step-failed", {
        current: p.progress.current,
        total: p.progress.total,
        title: p.title,
        error: p.error,
      });
    }
    case "agent.start": {
      const images = (source.payload.images ?? []).map((i) => i.name);
      return images.length === 0
        ? t("timeline-task-started", { task: source.payload.task_input })
        : t("timeline-task-started-images", { task: source.payload.task_input, images: images.join(", ") });
    }
    case "agent.end":
      return t(`timeline-task-${source.payload.status}`, { result: source.payload.result });
    case "run.subagent.start":
      return t("timeline-subagent-started", { kind: source.payload.subagent_type, description: source.payload.description });
    case "run.subagent.end":
      return t(`timeline-subagent-${source.payload.status}`, {
        kind: source.payload.subagent_type,
        tokens: source.payload.usage.total_tokens,
      });
    case "prepare.model.select": {
      const p = source.payload;
      const args = { model: p.final_model, requested: p.requested_model };
      return p.reason === undefined ? t("timeline-fallback", args) : t("timeline-fallback-reason", { ...args, reason: p.reason });
    }
    case "run.plan.modify":
      return t("timeline-plan-modified", { goal: source.payload.plan.goal });
    case "run.llm.retry": {
      const p = source.payload;
      return t("timeline-llm-retry", { attempt: p.attempt, max: p.max_attempts, ms: p.delay_ms, error: p.error });
    }
    case "run.thinking.fail":
      return t("timeline-thinking-failed", { error: source.payload.error_message });
    case "run.approval.request":
      return t("timeline-approval-request", { subject: source.payload.subject });
    case "run.approval.resolve":
      return t(`timeline-approval-${source.payload.decision}`);
    case "run.context.compress":
      return t("timeline-context-compressed", {
        from: source.payload.original_tokens,
        to: source.payload.compressed_tokens,
      });
    case "run.memory.update":
      return t(`timeline-memory-${source.payload.source}`, { count: source.payload.entries.length });
    case "run.checkpoint.rewind": {
      const p = source.payload;
      return t("timeline-rewound", {
        checkpoint: p.checkpoint_id,
        scope: t(`rewind-scope-${p.scope}`),
        count: p.turn_ids.length,
      });
    }
    case "run.hook.end": {
      const p = source.payload;
      return p.error === undefined
        ? t(`timeline-hook-${p.decision}`, { event: p.hook_event, command: p.command })
        : t("timeline-hook-failed", { event: p.hook_event, command: p.command, error: p.error });
    }
    default:
      return undefined;
  }
}
