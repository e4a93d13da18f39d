import { useCallback, useEffect, useRef, useState } from "react";
import type { Api } from "../api";
import { useI18n } from "../i18n";
import {
  appliedMessage,
  batchTotals,
  changeTitle,
  chosenPaths,
  discardedMessage,
  type Said,
  type ShadowBatch,
} from "../shadow";
import { Diff } from "./FileChanges";

/** A shadow session's staged changes: each changed file with its diff (review), a box per file
 * to leave it out, and Apply / Discard (confirmed) for the chosen files. */
export function ShadowPanel(props: {
  api: Api;
  sessionId: string;
  running: boolean;
  /** True when the error was an authentication failure the page handles. */
  onAuthFailure(err: unknown): boolean;
}) {
  const { api, sessionId, running } = props;
  const onAuthFailure = useRef(props.onAuthFailure);
  onAuthFailure.current = props.onAuthFailure;
  const { t, word } = useI18n();
  // `null`: nothing staged.
  const [batch, setBatch] = useState<ShadowBatch | null | undefined>();
  const [leftOut, setLeftOut] = useState<Set<string>>(new Set());
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [outcome, setOutcome] = useState<Said | undefined>();
  const [error, setError] = useState<string | undefined>();
  // Stable: it reads the latest callback through the ref.
  const fail = useCallback((err: unknown) => {
    if (!onAuthFailure.current(err)) setError(err instanceof Error ? err.message : String(err));
  }, []);
  const load = useCallback(async () => {
    try {
      setBatch(await api.getShadow(sessionId));
    } catch (err) {
      fail(err);
    }
  }, [api, sessionId, fail]);
  // A turn stages changes: reload when one starts or ends.
  useEffect(() => {
    void load();
  }, [load, running]);
  const act = async (work: () => Promise<Said>) => {
    setBusy(true);
    setError(undefined);
    setOutcome(undefined);
    try {
      setOutcome(await work());
      setLeftOut(new Set());
    } catch (err) {
      fail(err);
    } finally {
      setConfirming(false);
      setBusy(false);
      await load();
    }
  };
  const toggle = (path: string) => {
    const next = new Set(leftOut);
    if (next.has(path)) next.delete(path);
    else next.add(path);
    setLeftOut(next);
  };
  const staged = batch ?? undefined;
  const paths = staged ? chosenPaths(staged, leftOut) : undefined;
  const none = paths !== undefined && paths.length === 0;
  const totals = staged ? batchTotals(staged) : undefined;
  return (
    <section className="card shadow" data-testid="shadow" aria-labelledby="shadow-heading">
      <h3 id="shadow-heading">
        {t("shadow-heading")}{" "}
        <button type="button" className="link" data-testid="shadow-refresh" disabled={busy} onClick={() => void load()}>
          {t("panel-refresh")}
        </button>
      </h3>
      {outcome && (
        <p className="muted" role="status" data-testid="shadow-outcome">
          {t(outcome.id, outcome.args)}
        </p>
      )}
      {error && (
        <p className="notice notice-error" role="alert" data-testid="shadow-error">
          {error}
        </p>
      )}
      {batch === undefined ? (
        <p className="muted">{t("loading")}</p>
      ) : batch === null || batch.changes.length === 0 ? (
        <p className="muted" data-testid="shadow-empty">
          {t("shadow-empty")}
        </p>
      ) : (
        <>
          <p className="muted" data-testid="shadow-summary">
            {t("shadow-summary", { files: totals?.files ?? 0 })}{" "}
            <span className="added">+{totals?.added ?? 0}</span> <span className="removed">−{totals?.removed ?? 0}</span>
          </p>
          <ul className="shadow-list">
            {batch.changes.map((change) => {
              return (
                <li key={change.path} data-testid="shadow-change" data-path={change.path} data-kind={change.kind}>
                  <input
                    type="checkbox"
                    data-testid="shadow-include"
                    checked={!leftOut.has(change.path)}
                    disabled={busy}
                    aria-label={t("shadow-include", { path: change.path })}
                    onChange={() => toggle(change.path)}
                  />
                  <details>
                    <summary>
                      <code>{changeTitle(change)}</code> <span className="muted">{word("shadow-kind-", change.kind)}</span>{" "}
                      <span className="added">+{change.lines_added}</span> <span className="removed">−{change.lines_removed}</span>
                      {change.conflict && (
                        <span className="removed" data-testid="shadow-conflict" title={change.conflict}>
                          {" "}
                          {t("shadow-conflict")}
                        </span>
                      )}
                    </summary>
                    {change.conflict && <p className="removed">{change.conflict}</p>}
                    {change.diff ? (
                      <Diff diff={change.diff} label={t("changes-diff-label", { path: change.path })} />
                    ) : (
                      <p className="muted">{t("shadow-no-diff")}</p>
                    )}
                  </details>
                </li>
              );
            })}
          </ul>
          {running && <p className="muted">{t("shadow-wait")}</p>}
          {confirming ? (
            <div className="buttons confirm" role="group" aria-label={t("shadow-discard-confirm")}>
              <span>{paths ? t("shadow-discard-confirm-some", { count: paths.length }) : t("shadow-discard-confirm")}</span>
              <button
                type="button"
                className="danger"
                data-testid="shadow-discard-yes"
                disabled={busy}
                onClick={() => void act(async () => discardedMessage(await api.discardShadow(sessionId, paths)))}
              >
                {t("shadow-discard-yes")}
              </button>
              <button type="button" data-testid="shadow-discard-no" disabled={busy} onClick={() => setConfirming(false)}>
                {t("shadow-keep")}
              </button>
            </div>
          ) : (
            <div className="buttons">
              <button
                type="button"
                className="primary"
                data-testid="shadow-apply"
                disabled={busy || running || none}
                onClick={() => void act(async () => appliedMessage(await api.applyShadow(sessionId, paths)))}
              >
                {paths ? t("shadow-apply-some", { count: paths.length }) : t("shadow-apply")}
              </button>
              <button
                type="button"
                className="danger"
                data-testid="shadow-discard"
                disabled={busy || running || none}
                onClick={() => setConfirming(true)}
              >
                {paths ? t("shadow-discard-some", { count: paths.length }) : t("shadow-discard")}
              </button>
            </div>
          )}
        </>
      )}
    </section>
  );
}
