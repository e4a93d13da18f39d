import { useI18n } from "../i18n";
import type { CommandOutput } from "../sessionModel";

/** Streamed output of commands the agent ran, one collapsible block per call. */
export function CommandOutputs(props: { outputs: readonly CommandOutput[] }) {
  const { t, tool } = useI18n();
  if (props.outputs.length === 0) return null;
  return (
    <section className="card outputs" data-testid="command-outputs" aria-labelledby="outputs-heading">
      <h3 id="outputs-heading">{t("outputs-heading")}</h3>
      {props.outputs.map((output) => (
        <details key={output.callId} open data-testid="command-output" data-call-id={output.callId} data-status={output.status ?? "running"}>
          <summary>
            {tool(output.tool || "execute_command", output.arguments)}{" "}
            <span className={`status status-${output.status ?? "running"}`}>
              {t(`tool-status-${output.status ?? "running"}`)}
            </span>
          </summary>
          <pre className="output-text" aria-live="off" tabIndex={0}>
            {output.text || t("outputs-none")}
          </pre>
        </details>
      ))}
    </section>
  );
}
