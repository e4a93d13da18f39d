import { useCallback, useEffect, useRef, useState } from "react";
import type { Api, Checkpoint, Session } from "../api";
import { useI18n } from "../i18n";

/** The session's checkpoints (one before each turn), each with Rewind and Fork buttons. */
export function CheckpointsPanel(props: {
  api: Api;
  sessionId: string;
  running: boolean;
  onError(err: unknown): void;
  onForked(session: Session): void;
}) {
  const { api, sessionId, running } = props;
  // The parent passes fresh callbacks each render; loading must not restart for that.
  const onError = useRef(props.onError);
  onError.current = props.onError;
  const { t, time } = useI18n();
  const [checkpoints, setCheckpoints] = useState<Checkpoint[] | undefined>();
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | undefined>();
  const load = useCallback(async () => {
    try {
      setCheckpoints((await api.listCheckpoints(sessionId)).checkpoints);
    } catch (err) {
      onError.current(err);
    }
  }, [api, sessionId]);
  // A turn makes a checkpoint: reload when one starts or ends.
  useEffect(() => {
    void load();
  }, [load, running]);
  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
      await load();
    } catch (err) {
      onError.current(err);
    } finally {
      setBusy(false);
    }
  };
  const rewind = (checkpoint: Checkpoint) =>
    act(async () => {
      const report = await api.rewind(sessionId, checkpoint.id);
      setDone(
        t("checkpoints-rewound", {
          turns: report.turn_ids.length,
          files: report.files_restored.length + report.files_removed.length,
        }),
      );
    });
  const fork = (checkpoint: Checkpoint) =>
    act(async () => {
      props.onForked(await api.fork(sessionId, checkpoint.id));
    });
  return (
    <section className="card checkpoints" data-testid="checkpoints" aria-labelledby="checkpoints-heading">
      <h3 id="checkpoints-heading">{t("checkpoints-heading")}</h3>
      {done && (
        <p className="muted" role="status" data-testid="checkpoints-done">
          {done}
        </p>
      )}
      {checkpoints === undefined ? (
        <p className="muted">{t("loading")}</p>
      ) : checkpoints.length === 0 ? (
        <p className="muted" data-testid="checkpoints-empty">
          {t("checkpoints-empty")}
        </p>
      ) : (
        <ol className="checkpoint-list">
          {checkpoints.map((checkpoint, index) => (
            <li key={checkpoint.id} data-testid="checkpoint">
              <span>
                {t("checkpoints-before-turn", { n: index + 1 })}{" "}
                <span className="muted">
                  {time(checkpoint.created_at)} ·{" "}
                  {t("checkpoints-files", { count: checkpoint.files })}
                </span>
              </span>{" "}
              <button
                type="button"
                data-testid="checkpoint-rewind"
                disabled={busy || running}
                aria-label={t("checkpoints-rewind-label", { n: index + 1 })}
                onClick={() => void rewind(checkpoint)}
              >
                {t("checkpoints-rewind")}
              </button>{" "}
              <button
                type="button"
                data-testid="checkpoint-fork"
                disabled={busy}
                aria-label={t("checkpoints-fork-label", { n: index + 1 })}
                onClick={() => void fork(checkpoint)}
              >
                {t("checkpoints-fork")}
              </button>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
