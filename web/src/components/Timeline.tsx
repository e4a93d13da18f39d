import { hasDiagnostics } from "../diagnostics";
import { DiagnosticsList } from "./DiagnosticsList";
import { useEffect, useRef } from "react";
import type { AgentPhase, TimelineEvent } from "../contract";
import { useI18n } from "../i18n";
import type { TimelineItem } from "../sessionModel";
import { nestItems } from "../nesting";
import { timelineText } from "../timelineText";

const PHASE_ICON: Record<AgentPhase, string> = {
  planner: "☰",
  coder: "⚙",
  reviewer: "✔",
  debugger: "⚕",
};

const TOOL_ICON: Record<string, string> = {
  move_file: "⇄",
  read_file: "≡",
  write_file: "✎",
  replace_in_file: "✎",
  delete_file: "✖",
  list_files: "☷",
  search_files: "⌕",
  get_project_structure: "⊞",
  list_code_definitions: "⊞",
  execute_command: "▶",
  create_plan: "☰",
  attempt_completion: "⚑",
  ask_followup_question: "?",
  generate_image: "▣",
  task: "⤷",
};

const FILE_OP_ICON: Record<string, string> = {
  create: "+",
  update: "✎",
  delete: "✖",
  move: "⇄",
};

function Move(props: { from: string; to: string }) {
  const { t } = useI18n();
  return (
    <span className="move" data-testid="move-summary">
      <code>{props.from}</code> <span aria-label={t("timeline-move-to")}>→</span> <code>{props.to}</code>
    </span>
  );
}

function Row(props: { item: TimelineItem; depth: number }) {
  const { record, progress, source } = props.item;
  // A subagent's rows, indented under the task call that started it.
  const nest =
    props.depth > 0
      ? {
          "data-depth": props.depth,
          "data-parent-call-id": record.parentCallId,
          style: { marginLeft: `${props.depth * 1.5}rem` },
        }
      : {};
  const m = useI18n();
  const { t, tool, word, number } = m;
  const stamp = <time dateTime={record.timestamp}>{m.time(record.timestamp)}</time>;
  const localText = timelineText(m, source, record);
  switch (record.type) {
    case "agent_phase": {
      const p = record.payload;
      return (
        <li {...nest} className={`node phase phase-${p.phase} phase-${p.action}`} data-testid="timeline-phase" data-record-id={record.id} data-phase={p.phase} data-action={p.action}>
          <span className="icon" aria-hidden="true">
            {PHASE_ICON[p.phase]}
          </span>
          <div className="body">
            <div className="title">
              {word("phase-", p.phase)} <span className="muted">{t(`phase-${p.action}`)}</span> {stamp}
            </div>
            {p.summary && <div className="summary">{localText ?? p.summary}</div>}
            {progress && (
              <div className="progress-line">
                <progress max={progress.total} value={p.action === "exit" ? progress.current : progress.current - 1} />
                <span data-testid="step-progress">
                  {progress.current}/{progress.total}
                </span>
              </div>
            )}
          </div>
        </li>
      );
    }
    case "tool_call": {
      const p = record.payload;
      const isMove = p.toolName === "move_file" && p.fromPath !== undefined && p.toPath !== undefined;
      return (
        <li
          {...nest}
          className={`node child tool ${p.success ? "ok" : "failed"}`}
          data-testid="timeline-tool" data-record-id={record.id}
          data-call-id={source.type === "run.tool.end" ? source.payload.call_id : undefined}
          data-tool={p.toolName}
          data-success={String(p.success)}
        >
          <span className="icon" aria-hidden="true">
            {TOOL_ICON[p.toolName] ?? "⚒"}
          </span>
          <div className="body">
            <div className="title">
              <strong>{p.toolName}</strong>{" "}
              {p.mcpServer !== undefined && <span className="mcp-server" data-testid="timeline-mcp-server">{t("timeline-mcp", { server: p.mcpServer })}</span>}{" "}
              {isMove ? <Move from={p.fromPath ?? ""} to={p.toPath ?? ""} /> : p.argsSummary && <code>{p.argsSummary}</code>}{" "}
              <span className={p.success ? "ok-text" : "error-text"}>{p.success ? "✓" : t("timeline-tool-failed")}</span>
              {p.duration !== undefined && <span className="muted"> · {t("timeline-duration", { ms: p.duration })}</span>} {stamp}
            </div>
            {props.item.call && (
              <div className="muted" data-testid="tool-action">
                {tool(props.item.call.name, props.item.call.arguments)}
              </div>
            )}
            {p.resultSummary && <div className="summary">{p.resultSummary}</div>}
            {source.type === "run.tool.end" && hasDiagnostics(source.payload.diagnostics) && (
              <DiagnosticsList diagnostics={source.payload.diagnostics} />
            )}
          </div>
        </li>
      );
    }
    case "file_update": {
      const p = record.payload;
      const icon = FILE_OP_ICON[p.op] ?? "□";
      return (
        <li {...nest} className={`node child file file-${p.op}`} data-testid="timeline-file" data-record-id={record.id} data-op={p.op} data-path={p.path}>
          <span className="icon" aria-hidden="true">
            {icon}
          </span>
          <div className="body">
            <div className="title">
              {word("timeline-op-", p.op)}{" "}
              {p.op === "move" && p.fromPath !== undefined ? <Move from={p.fromPath} to={p.toPath ?? p.path} /> : <code>{p.path}</code>}
              {p.fileSize !== undefined && <span className="muted"> · {t("timeline-size", { size: number(p.fileSize) })}</span>} {stamp}
            </div>
            {p.summary && <div className="summary">{p.summary}</div>}
          </div>
        </li>
      );
    }
    case "self_repair": {
      const p = record.payload;
      return (
        <li {...nest} className={`node child repair repair-${p.result}`} data-testid="timeline-repair" data-record-id={record.id} data-result={p.result}>
          <span className="icon" aria-hidden="true">
            ⚠
          </span>
          <div className="body">
            <div className="title">
              {t("timeline-repair")}{" "}
              <strong data-testid="repair-attempt">
                {p.attemptNumber}/{p.maxAttempts}
              </strong>{" "}
              · {word("repair-result-", p.result)} {stamp}
            </div>
            <div className="summary">{p.trigger}</div>
            {p.errorMessage && <div className="summary error-text">{p.errorMessage}</div>}
            {p.suggestion && <div className="summary muted">{t("timeline-fix", { suggestion: p.suggestion })}</div>}
          </div>
        </li>
      );
    }
    case "log": {
      const p = record.payload;
      return (
        <li {...nest} className={`node child log log-${p.level}`} data-testid="timeline-log" data-record-id={record.id} data-level={p.level}>
          <span className="icon" aria-hidden="true">
            {p.level === "error" ? "✖" : p.level === "warn" ? "⚠" : "ℹ"}
          </span>
          <div className="body">
            <div className="title">
              {localText ?? p.message} {stamp}
            </div>
            {progress && (
              <div className="progress-line">
                <progress max={progress.total} value={source.type === "run.step.end" ? progress.current : progress.current - 1} />
                <span data-testid="step-progress">
                  {progress.current}/{progress.total}
                </span>
              </div>
            )}
          </div>
        </li>
      );
    }
    case "error": {
      const p = record.payload;
      return (
        <li {...nest} className="node child error" data-testid="timeline-error" data-record-id={record.id} role="alert">
          <span className="icon" aria-hidden="true">
            ✖
          </span>
          <div className="body">
            <div className="title">
              <strong>{t("timeline-error")}</strong>{" "}
              <span className="muted">
                {t(p.recoverable ? "timeline-error-type-recoverable" : "timeline-error-type", { type: p.errorType })}
              </span>{" "}
              {stamp}
            </div>
            <div className="summary">{p.message}</div>
            {p.stack && <pre className="stack">{p.stack}</pre>}
          </div>
        </li>
      );
    }
  }
}

/** The windowed Activity Timeline: phases as large nodes, everything else as child nodes. */
export function Timeline(props: { items: TimelineItem[] }) {
  const { t } = useI18n();
  const listRef = useRef<HTMLOListElement>(null);
  const stick = useRef(true);
  const last: TimelineEvent | undefined = props.items[props.items.length - 1]?.record;
  useEffect(() => {
    const list = listRef.current;
    if (list && stick.current) list.scrollTop = list.scrollHeight;
  }, [last?.id]);
  return (
    <section className="timeline card" role="log" aria-labelledby="timeline-heading">
      <h3 id="timeline-heading">
        {t("timeline-heading")} <span className="muted">{t("timeline-count", { count: props.items.length })}</span>
      </h3>
      {props.items.length === 0 ? (
        <p className="muted" data-testid="timeline-empty">
          {t("timeline-empty")}
        </p>
      ) : (
        <ol
          ref={listRef}
          aria-label={t("timeline-label")}
          tabIndex={0}
          data-testid="timeline"
          onScroll={(e) => {
            const el = e.currentTarget;
            stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
          }}
        >
          {nestItems(props.items).map(({ item, depth }) => (
            <Row key={item.key} item={item} depth={depth} />
          ))}
        </ol>
      )}
    </section>
  );
}
