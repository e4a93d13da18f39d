import { useCallback, useEffect, useRef, useState } from "react";
import type { Api } from "../api";
import { useI18n } from "../i18n";
import { MEMORY_KINDS, kindCounts, shownEntries, type MemoryEntry, type MemoryList } from "../memory";

/** The project's memory (what the model remembers across sessions): each entry's kind, text,
 * tags and date, narrowed by kind and words, with a Forget button that asks first. */
export function MemoryPanel(props: {
  api: Api;
  sessionId: string;
  /** Changes when the session's events say memory was written: the list reloads. */
  version: number;
  /** True when the error was an authentication failure the page handles. */
  onAuthFailure(err: unknown): boolean;
}) {
  const { api, sessionId, version } = props;
  // The parent passes a fresh callback each render; loading must not restart for that.
  const onAuthFailure = useRef(props.onAuthFailure);
  onAuthFailure.current = props.onAuthFailure;
  const { t, word, dateTime } = useI18n();
  const [memory, setMemory] = useState<MemoryList | undefined>();
  const [failure, setFailure] = useState<string | undefined>();
  const [kind, setKind] = useState("");
  const [words, setWords] = useState("");
  const [confirming, setConfirming] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [forgotten, setForgotten] = useState<MemoryEntry | undefined>();
  const load = useCallback(async () => {
    try {
      setMemory(await api.listMemory(sessionId));
      setFailure(undefined);
    } catch (err) {
      // A bad memory file is this panel's news (the server names the file), not the page's.
      if (!onAuthFailure.current(err)) setFailure(err instanceof Error ? err.message : String(err));
    }
  }, [api, sessionId]);
  useEffect(() => {
    void load();
  }, [load, version]);
  const forget = async (entry: MemoryEntry) => {
    setBusy(true);
    setFailure(undefined);
    try {
      setForgotten(await api.forgetMemory(sessionId, entry.id));
      await load();
    } catch (err) {
      if (!onAuthFailure.current(err)) setFailure(err instanceof Error ? err.message : String(err));
    } finally {
      setConfirming(undefined);
      setBusy(false);
    }
  };
  const entries = memory?.entries ?? [];
  const shown = shownEntries(entries, { kind, words });
  const counts = kindCounts(entries);
  return (
    <section className="card memory" data-testid="memory" aria-labelledby="memory-heading">
      <h3 id="memory-heading">
        {t("memory-heading")}{" "}
        <button type="button" className="link" data-testid="memory-refresh" onClick={() => void load()}>
          {t("panel-refresh")}
        </button>
      </h3>
      {forgotten && (
        <p className="muted" role="status" data-testid="memory-forgotten">
          {t("memory-forgotten", { text: forgotten.text })}
        </p>
      )}
      {failure && (
        <p className="notice notice-error" role="alert" data-testid="memory-error">
          {failure}
        </p>
      )}
      {memory === undefined ? (
        !failure && <p className="muted">{t("loading")}</p>
      ) : entries.length === 0 ? (
        <p className="muted" data-testid="memory-empty" title={memory.file}>
          {t("memory-empty")}
        </p>
      ) : (
        <>
          <div className="memory-filter">
            <label htmlFor="memory-kind" className="visually-hidden">
              {t("memory-kind-label")}
            </label>
            <select id="memory-kind" data-testid="memory-kind" value={kind} onChange={(e) => setKind(e.target.value)}>
              <option value="">{t("memory-kind-all", { count: entries.length })}</option>
              {MEMORY_KINDS.map((k) => (
                <option key={k} value={k}>
                  {t("memory-kind-count", { kind: word("memory-kind-", k), count: counts[k] ?? 0 })}
                </option>
              ))}
            </select>
            <label htmlFor="memory-words" className="visually-hidden">
              {t("memory-filter-label")}
            </label>
            <input
              id="memory-words"
              type="search"
              data-testid="memory-filter"
              placeholder={t("memory-filter-placeholder")}
              value={words}
              onChange={(e) => setWords(e.target.value)}
            />
          </div>
          {shown.length === 0 && (
            <p className="muted" data-testid="memory-none-match">
              {t("memory-none-match")}
            </p>
          )}
          <ul className="memory-list">
            {shown.map((entry) => (
              <li key={entry.id} data-testid="memory-entry" data-id={entry.id} data-kind={entry.kind}>
                <div>
                  <span className={`memory-kind memory-kind-${entry.kind}`}>{word("memory-kind-", entry.kind)}</span>{" "}
                  <span className="memory-text">{entry.text}</span>
                </div>
                <div className="muted memory-meta">
                  {(entry.tags ?? []).map((tag) => (
                    <span key={tag} className="tag">
                      #{tag}
                    </span>
                  ))}
                  {entry.created_at && <time dateTime={entry.created_at}>{dateTime(entry.created_at)}</time>}
                  {confirming === entry.id ? (
                    <span className="confirm" role="group" aria-label={t("memory-forget-confirm")}>
                      {t("memory-forget-confirm")}{" "}
                      <button
                        type="button"
                        className="danger"
                        data-testid="memory-forget-yes"
                        disabled={busy}
                        onClick={() => void forget(entry)}
                      >
                        {t("memory-forget-yes")}
                      </button>{" "}
                      <button type="button" data-testid="memory-forget-no" disabled={busy} onClick={() => setConfirming(undefined)}>
                        {t("memory-keep")}
                      </button>
                    </span>
                  ) : (
                    <button
                      type="button"
                      className="danger"
                      data-testid="memory-forget"
                      disabled={busy}
                      aria-label={t("memory-forget-label", { text: entry.text })}
                      onClick={() => setConfirming(entry.id)}
                    >
                      {t("memory-forget")}
                    </button>
                  )}
                </div>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
