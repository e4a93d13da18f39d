import { useI18n } from "../i18n";
import type { SessionModel } from "../sessionModel";

/** Token use and cost, the context window's fill as a bar, and the repo map build. */
export function UsageBar(props: { model: SessionModel }) {
  const { t, number } = useI18n();
  const { usage, sessionCalls, contextWindow, repomap } = props.model;
  if (!usage && !contextWindow && !repomap) return null;
  const percent = contextWindow && contextWindow.limit > 0 ? Math.min(100, (contextWindow.tokens_used / contextWindow.limit) * 100) : 0;
  return (
    <section className="card usage" data-testid="usage" aria-label={t("usage-heading")}>
      {usage && (
        <p data-testid="usage-tokens">
          {t("usage-tokens", {
            total: number(usage.cumulative.total_tokens),
            prompt: number(usage.cumulative.prompt_tokens),
            completion: number(usage.cumulative.completion_tokens),
          })}
          {usage.cost_usd !== undefined && (
            <span data-testid="usage-cost"> · {t("usage-cost", { cost: usage.cost_usd.toFixed(4) })}</span>
          )}
        </p>
      )}
      {sessionCalls && (
        <p data-testid="usage-session-calls">
          {t("usage-session-calls", {
            calls: sessionCalls.calls,
            prompt: number(sessionCalls.prompt),
            completion: number(sessionCalls.completion),
          })}
          {sessionCalls.cost !== undefined && (
            <span> · {t("usage-cost", { cost: sessionCalls.cost.toFixed(4) })}</span>
          )}
        </p>
      )}
      {contextWindow && (
        <div className="context-window">
          <label htmlFor="context-bar">
            {t("context-window", { used: number(contextWindow.tokens_used), limit: number(contextWindow.limit) })}
          </label>
          <meter
            id="context-bar"
            data-testid="context-bar"
            min={0}
            max={contextWindow.limit || 1}
            low={(contextWindow.limit || 1) * 0.7}
            high={(contextWindow.limit || 1) * 0.9}
            optimum={0}
            value={contextWindow.tokens_used}
            data-percent={percent.toFixed(1)}
          />
        </div>
      )}
      {repomap && (
        <p data-testid="repomap">
          {t(repomap.cached ? "repomap-cached" : "repomap-built", {
            files: number(repomap.files),
            symbols: number(repomap.symbols),
            tokens: number(repomap.tokens),
            ms: repomap.duration_ms,
          })}
        </p>
      )}
    </section>
  );
}
