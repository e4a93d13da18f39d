import type { EditDiagnostics } from "../contract";
import { diagnosticLine } from "../diagnostics";
import { useI18n } from "../i18n";

/** The diagnostics an edit left, under its row on the timeline. */
export function DiagnosticsList(props: { diagnostics: EditDiagnostics }) {
  const { t } = useI18n();
  const d = props.diagnostics;
  return (
    <div className="diagnostics" data-testid="tool-diagnostics">
      <span className="muted">{t("diagnostics-heading", { servers: d.servers.join(", ") })}</span>
      {d.items.length > 0 && (
        <ul>
          {d.items.map((item, i) => (
            <li key={i} className={`diagnostic diagnostic-${item.severity}`} data-testid="diagnostic" data-severity={item.severity}>
              <code>{diagnosticLine(item)}</code>
            </li>
          ))}
        </ul>
      )}
      {d.omitted > 0 && <div className="muted">{t("diagnostics-more", { n: d.omitted })}</div>}
      {d.elsewhere && <div className="muted">{t("diagnostics-elsewhere", { after: d.elsewhere.after, before: d.elsewhere.before })}</div>}
      {d.timed_out && <div className="muted">{t("diagnostics-late")}</div>}
    </div>
  );
}
