import { useCallback, useEffect, useRef, useState } from "react";
import type { Api } from "../api";
import { useI18n } from "../i18n";
import { byAttention, toolCounts, type McpServer } from "../mcp";

/** The session's MCP servers: each one's state, how many tools the model is offered, why it
 * failed; its tools on demand. */
export function McpPanel(props: { api: Api; sessionId: string; running: boolean; onError(err: unknown): void }) {
  const { api, sessionId, running } = props;
  // The parent passes a fresh callback each render; loading must not restart for that.
  const onError = useRef(props.onError);
  onError.current = props.onError;
  const { t, word } = useI18n();
  const [servers, setServers] = useState<McpServer[] | undefined>();
  const load = useCallback(async () => {
    try {
      setServers(await api.listMcpServers(sessionId));
    } catch (err) {
      onError.current(err);
    }
  }, [api, sessionId]);
  // Servers start with the session's first turn: reload when one starts or ends.
  useEffect(() => {
    void load();
  }, [load, running]);
  return (
    <section className="card mcp" data-testid="mcp" aria-labelledby="mcp-heading">
      <h3 id="mcp-heading">
        {t("mcp-heading")}{" "}
        <button type="button" className="link" data-testid="mcp-refresh" onClick={() => void load()}>
          {t("panel-refresh")}
        </button>
      </h3>
      {servers === undefined ? (
        <p className="muted">{t("loading")}</p>
      ) : servers.length === 0 ? (
        <p className="muted" data-testid="mcp-empty">
          {t("mcp-empty")}
        </p>
      ) : (
        <ul className="mcp-list">
          {byAttention(servers).map((server) => {
            const tools = toolCounts(server);
            return (
              <li key={server.name} data-testid="mcp-server" data-name={server.name} data-state={server.state}>
                <div>
                  <strong>{server.name}</strong>{" "}
                  <span className={`mcp-state mcp-state-${server.state}`} data-testid="mcp-state">
                    {word("mcp-state-", server.state)}
                  </span>{" "}
                  {server.state === "running" && (
                    <span className="muted" data-testid="mcp-tools">
                      {tools.offered === tools.total
                        ? t("mcp-tools", { count: tools.total })
                        : t("mcp-tools-offered", { offered: tools.offered, count: tools.total })}
                    </span>
                  )}
                </div>
                {server.transport && <code className="muted mcp-transport">{server.transport}</code>}
                {server.reason && (
                  <p className="removed mcp-reason" data-testid="mcp-reason">
                    {server.reason}
                  </p>
                )}
                {server.tools.length > 0 && (
                  <details>
                    <summary>{t("mcp-tool-list")}</summary>
                    <ul className="mcp-tools">
                      {server.tools.map((tool) => (
                        <li key={tool.name} data-testid="mcp-tool" data-offered={tool.offered_as !== undefined}>
                          <code>{tool.offered_as ?? tool.name}</code>{" "}
                          {tool.offered_as === undefined && <span className="muted">{t("mcp-tool-not-offered")}</span>}{" "}
                          <span className="muted">{tool.description}</span>
                        </li>
                      ))}
                    </ul>
                  </details>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
