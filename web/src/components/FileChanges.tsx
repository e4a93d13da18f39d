import { useI18n } from "../i18n";
import type { FileChange } from "../sessionModel";

/** The class of one line of a unified diff. */
export function diffLineKind(line: string): "add" | "del" | "hunk" | "meta" | "ctx" {
  if (line.startsWith("+++") || line.startsWith("---")) return "meta";
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  return "ctx";
}

/** A unified diff, its lines coloured by kind; focusable so it scrolls with the keyboard. */
export function Diff(props: { diff: string; label: string }) {
  return (
    <pre className="diff" data-testid="diff" tabIndex={0} aria-label={props.label}>
      {props.diff.split("\n").map((line, i) => (
        <span key={i} className={`diff-${diffLineKind(line)}`}>
          {line}
          {"\n"}
        </span>
      ))}
    </pre>
  );
}

/** One diff view per `run.file.change`. */
export function FileChanges(props: { changes: readonly FileChange[] }) {
  const { t } = useI18n();
  if (props.changes.length === 0) return null;
  return (
    <section className="card changes" data-testid="file-changes" aria-labelledby="changes-heading">
      <h3 id="changes-heading">{t("changes-heading")}</h3>
      {props.changes.map(({ key, change }) => (
        <details key={key} open data-testid="file-change" data-path={change.path} data-op={change.op}>
          <summary>
            <code>{change.op === "move" && change.from_path ? `${change.from_path} → ${change.to_path ?? change.path}` : change.path}</code>{" "}
            <span className="muted">{t(`file-op-${change.op}`)}</span>{" "}
            <span className="added">+{change.lines_added}</span> <span className="removed">−{change.lines_removed}</span>
          </summary>
          {change.diff ? (
            <Diff diff={change.diff} label={t("changes-diff-label", { path: change.path })} />
          ) : (
            <p className="muted">{change.summary || t("changes-no-diff")}</p>
          )}
        </details>
      ))}
    </section>
  );
}
