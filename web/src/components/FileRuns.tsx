import { useI18n } from "../i18n";
import type { FileRunState } from "../sessionModel";

/** File runs started from the FileTree and their live output. */
export function FileRuns(props: { runs: readonly FileRunState[] }) {
  const { t } = useI18n();
  if (props.runs.length === 0) return null;
  return (
    <section className="card file-runs" data-testid="file-runs" aria-labelledby="file-runs-heading">
      <h3 id="file-runs-heading">{t("file-runs-heading")}</h3>
      {props.runs.map((run) => {
        const state = run.exit
          ? run.exit.timed_out
            ? t("file-run-timed-out", { ms: run.exit.duration_ms })
            : t("file-run-exited", { code: run.exit.exit_code ?? "?", ms: run.exit.duration_ms })
          : t("file-run-running");
        return (
          <details key={run.runId} open data-testid="file-run" data-file={run.file} data-done={String(run.exit !== undefined)} data-exit-code={run.exit?.exit_code ?? ""}>
            <summary>
              <code>{run.command.join(" ")}</code> <span className="muted" data-testid="file-run-state">{state}</span>
            </summary>
            <pre className="output-text" aria-live="off" tabIndex={0}>
              {run.output.length === 0
                ? t("outputs-none")
                : run.output.map((part, i) => (
                    <span key={i} className={`stream-${part.stream}`} data-stream={part.stream}>
                      {part.text}
                    </span>
                  ))}
            </pre>
          </details>
        );
      })}
    </section>
  );
}
