import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from "react";
import type { ImageUpload } from "../images";
import { addImages, ImageAttach } from "./ImageAttach";
import { newRequestId, type Api, type CustomCommand, type Session } from "../api";
import { rulesByFile, type RuleView } from "../approval";
import { SessionModel } from "../sessionModel";
import { EventStream } from "../stream";
import { useI18n } from "../i18n";
import { ApprovalPanel } from "./ApprovalPanel";
import { CommandHints } from "./CommandHints";
import { CommandOutputs } from "./CommandOutputs";
import { FileChanges } from "./FileChanges";
import { FileRuns } from "./FileRuns";
import { FileTree } from "./FileTree";
import { PlanPanel } from "./PlanPanel";
import { QuestionPanel } from "./QuestionPanel";
import { RulesPanel } from "./RulesPanel";
import { CheckpointsPanel } from "./CheckpointsPanel";
import { McpPanel } from "./McpPanel";
import { MemoryPanel } from "./MemoryPanel";
import { ShadowPanel } from "./ShadowPanel";
import { Thinking } from "./Thinking";
import { Timeline } from "./Timeline";
import { UsageBar } from "./UsageBar";

type Connection = "connecting" | "live" | "reconnecting" | "error";

function selectionKey(sessionId: string): string {
  return `keel.selected.${sessionId}`;
}

/** One session: its live timeline, plan, pending decisions and FileTree. */
export function SessionView(props: {
  api: Api;
  sessionId: string;
  onAuthFailure(err: unknown): boolean;
  onChanged(): void;
  /** A fork of this session was made: show it. */
  onForked(session: Session): void;
}) {
  const { api, sessionId, onAuthFailure, onChanged } = props;
  const { t, word } = useI18n();
  const model = useMemo(() => {
    const fresh = new SessionModel();
    // The FileTree selection survives a reload of the page (per tab, per session).
    fresh.select(sessionStorage.getItem(selectionKey(sessionId)));
    return fresh;
  }, [sessionId]);
  useSyncExternalStore(model.subscribe, model.getVersion);
  const selected = model.tree.selected;
  useEffect(() => {
    if (selected === null) sessionStorage.removeItem(selectionKey(sessionId));
    else sessionStorage.setItem(selectionKey(sessionId), selected);
  }, [sessionId, selected]);
  const [session, setSession] = useState<Session | undefined>();
  const [connection, setConnection] = useState<{ status: Connection; detail?: string | undefined }>({
    status: "connecting",
  });
  const [actionError, setActionError] = useState<string | undefined>();
  const [followUp, setFollowUp] = useState("");
  const [followUpImages, setFollowUpImages] = useState<ImageUpload[]>([]);
  /** The allow rules the last "always" wrote (shown until the next decision). */
  const [rulesWritten, setRulesWritten] = useState<RuleView[] | undefined>();
  /** Bumped when rules change elsewhere on the page: the rules panel reloads. */
  const [rulesVersion, setRulesVersion] = useState(0);

  const reportError = (err: unknown) => {
    if (!onAuthFailure(err)) setActionError(err instanceof Error ? err.message : String(err));
  };

  /** The session's custom commands, offered while a follow-up `/NAME` is typed. */
  const [commands, setCommands] = useState<CustomCommand[]>([]);
  const followUpInput = useRef<HTMLInputElement>(null);
  /** A picked command fills the box; typing goes on after it. */
  const pickCommand = (text: string) => {
    setFollowUp(text);
    requestAnimationFrame(() => {
      const input = followUpInput.current;
      if (!input) return;
      input.focus();
      input.setSelectionRange(text.length, text.length);
    });
  };
  useEffect(() => {
    let stopped = false;
    api.listCommands(sessionId).then(
      (found) => {
        if (!stopped) setCommands(found);
      },
      (err: unknown) => {
        if (!stopped) reportError(err);
      },
    );
    return () => {
      stopped = true;
    };
  }, [api, sessionId]);

  useEffect(() => {
    let stopped = false;
    let stream: EventStream | undefined;
    const loadFiles = async () => {
      try {
        const { files, truncated } = await api.files(sessionId);
        if (stopped) return;
        model.setFiles(files);
        if (truncated) model.setNotice({ kind: "info", text: t("notice-files-truncated") });
      } catch (err) {
        if (!stopped) reportError(err);
      }
    };
    void (async () => {
      try {
        const found = await api.getSession(sessionId);
        if (stopped) return;
        setSession(found);
      } catch (err) {
        if (!stopped) reportError(err);
        return;
      }
      // Files first, so every file_update of the stream applies on top of the listing.
      await loadFiles();
      if (stopped) return;
      stream = new EventStream(api, sessionId, {
        onEvent: (event) => {
          const wasRunning = model.running;
          model.apply(event);
          if (wasRunning !== model.running) onChanged();
        },
        onReload: (oldestSeq, reason) => {
          model.reset({
            kind: "warn",
            text: t("notice-reload", { reason, seq: oldestSeq ?? "?" }),
          });
          void loadFiles();
        },
        onStatus: (status, detail) => setConnection({ status, detail }),
        lastSeq: () => model.lastSeq,
      });
      stream.start();
    })();
    return () => {
      stopped = true;
      stream?.close();
    };
  }, [api, sessionId, model]);

  const running = model.running;
  const approvals = [...model.approvals.values()];
  const questions = [...model.questions.values()];

  const cancel = async () => {
    setActionError(undefined);
    try {
      await api.cancel(sessionId);
    } catch (err) {
      reportError(err);
    }
  };

  const runFile = async (path: string) => {
    setActionError(undefined);
    try {
      await api.startFileRun(sessionId, path);
    } catch (err) {
      reportError(err);
    }
  };

  const sendFollowUp = async () => {
    const text = followUp.trim();
    if (!text) return;
    setActionError(undefined);
    try {
      await api.startTurn(sessionId, newRequestId(), text, followUpImages);
      setFollowUp("");
      setFollowUpImages([]);
      onChanged();
    } catch (err) {
      reportError(err);
    }
  };

  return (
    <div className="session-view" data-testid="session-view" data-session-id={sessionId}>
      <section className="session-header" aria-label={t("session-label")}>
        <div>
          <h2 data-testid="session-title">{session?.title || sessionId}</h2>
          <p className="muted">
            {session ? `${session.project_id} · ${session.root}` : t("loading")}
            {session?.mode ? ` · ${word("mode-", session.mode)}` : ""}
          </p>
        </div>
        <div className="session-actions">
          <span
            className={`connection connection-${connection.status}`}
            data-testid="connection-status"
            title={connection.detail}
          >
            {t(`connection-${connection.status}`)}
          </span>
          <span
            className={`status status-${running ? "running" : "idle"}`}
            data-testid="run-status"
            title={running ? model.waiting?.message : undefined}
          >
            {running
              ? model.waiting
                ? t("run-waiting", { status: word("waiting-", model.waiting.kind) })
                : t("run-running")
              : t("run-idle")}
          </span>
          <button
            type="button"
            className="danger"
            data-testid="cancel-button"
            disabled={!running}
            onClick={() => void cancel()}
          >
            {t("cancel")}
          </button>
        </div>
      </section>
      {model.notice && (
        <p className={`notice notice-${model.notice.kind}`} role="status" data-testid="notice">
          {model.notice.text}
        </p>
      )}
      {actionError && (
        <p className="notice notice-error" role="alert" data-testid="action-error">
          {actionError}
        </p>
      )}
      <div className="session-body">
        <div className="timeline-column">
          {approvals.map((request) => (
            <ApprovalPanel
              key={request.approval_id}
              request={request}
              plan={request.kind === "plan" ? model.proposedPlan : undefined}
              onDecide={async (decision, reason) => {
                setActionError(undefined);
                setRulesWritten(undefined);
                try {
                  const result = await api.decide(sessionId, request.approval_id, decision, reason);
                  if (decision === "always") {
                    setRulesWritten(result.rules_written ?? []);
                    setRulesVersion((v) => v + 1);
                  }
                } catch (err) {
                  reportError(err);
                }
              }}
              onModify={async (draft, reason) => {
                setActionError(undefined);
                try {
                  await api.decideModified(sessionId, request.approval_id, draft, reason);
                } catch (err) {
                  reportError(err);
                }
              }}
            />
          ))}
          {rulesWritten && (
            <section className="card rules-written" role="status" data-testid="rules-written" aria-label={t("always-heading")}>
              <p>
                {rulesWritten.length === 0
                  ? t("always-no-rules")
                  : t("always-rules", { count: rulesWritten.length })}
              </p>
              {rulesByFile(rulesWritten).map((group) => (
                <div key={group.file}>
                  <p className="muted">{t("always-file", { file: group.file })}</p>
                  <ul className="rule-list">
                    {group.rules.map((rule) => (
                      <li key={rule} data-testid="rule-written">
                        <code>{rule}</code>
                      </li>
                    ))}
                  </ul>
                </div>
              ))}
            </section>
          )}
          {session?.shadow && (
            <ShadowPanel api={api} sessionId={sessionId} running={running} onAuthFailure={onAuthFailure} />
          )}
          {questions.map((question) => (
            <QuestionPanel
              key={question.question_id}
              question={question}
              onAnswer={async (answer) => {
                setActionError(undefined);
                try {
                  await api.answer(sessionId, question.question_id, answer);
                } catch (err) {
                  reportError(err);
                }
              }}
            />
          ))}
          {model.plan && <PlanPanel plan={model.plan} />}
          <UsageBar model={model} />
          <Thinking blocks={model.thinking} />
          <Timeline items={model.window.items()} />
          <CommandOutputs outputs={[...model.outputs.values()]} />
          <FileChanges changes={model.changes} />
          <FileRuns runs={[...model.fileRuns.values()]} />
          {running && model.liveText && (
            <p className="live-text" data-testid="live-text" aria-live="off" tabIndex={0}>
              {model.liveText}
            </p>
          )}
          {!running && model.lastResult !== undefined && (
            <section className="card result" data-testid="result" aria-label={t("result-heading")}>
              <h3>{t("result-heading")}</h3>
              <p>{model.lastResult}</p>
            </section>
          )}
          <form
            className="followup"
            onSubmit={(e) => {
              e.preventDefault();
              void sendFollowUp();
            }}
          >
            <label htmlFor="followup-input" className="visually-hidden">
              {t("followup-label")}
            </label>
            <input
              id="followup-input"
              ref={followUpInput}
              data-testid="followup-input"
              placeholder={running ? t("followup-wait") : t("followup-placeholder")}
              value={followUp}
              disabled={running}
              onChange={(e) => setFollowUp(e.target.value)}
              onPaste={(e) => {
                const files = Array.from(e.clipboardData.files);
                if (files.length > 0) {
                  e.preventDefault();
                  void addImages(files, followUpImages, setFollowUpImages, reportError, t);
                }
              }}
            />
            <CommandHints commands={commands} input={followUp} onPick={pickCommand} />
            <ImageAttach
              images={followUpImages}
              onChange={setFollowUpImages}
              onError={reportError}
              disabled={running}
              testId="followup-images"
            />
            <button type="submit" data-testid="followup-submit" disabled={running || !followUp.trim()}>
              {t("followup-send")}
            </button>
          </form>
        </div>
        <div className="side-column">
          <FileTree
            state={model.tree}
            loaded={model.treeLoaded}
            onSelect={(path) => model.select(path)}
            onRun={(path) => void runFile(path)}
          />
          <RulesPanel api={api} sessionId={sessionId} version={rulesVersion} onError={reportError} />
          <MemoryPanel api={api} sessionId={sessionId} version={model.memoryUpdates} onAuthFailure={onAuthFailure} />
          <McpPanel api={api} sessionId={sessionId} running={running} onError={reportError} />
          <CheckpointsPanel
            api={api}
            sessionId={sessionId}
            running={running}
            onError={reportError}
            onForked={props.onForked}
          />
        </div>
      </div>
    </div>
  );
}
