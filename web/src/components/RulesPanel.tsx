import { useCallback, useEffect, useRef, useState } from "react";
import type { Api, Rule } from "../api";
import { useI18n } from "../i18n";

/** The permission rules that apply to the session, each with a button to revoke it. */
export function RulesPanel(props: {
  api: Api;
  sessionId: string;
  /** Changes when rules were written elsewhere (an "always" answer): the list reloads. */
  version?: number;
  onError(err: unknown): void;
}) {
  const { api, sessionId, version } = props;
  // The parent passes a fresh callback each render; loading must not restart for that.
  const onError = useRef(props.onError);
  onError.current = props.onError;
  const { t } = useI18n();
  const [rules, setRules] = useState<Rule[] | undefined>();
  const [busy, setBusy] = useState(false);
  const load = useCallback(async () => {
    try {
      setRules((await api.listRules(sessionId)).rules);
    } catch (err) {
      onError.current(err);
    }
  }, [api, sessionId]);
  useEffect(() => {
    void load();
  }, [load, version]);
  const revoke = async (rule: Rule) => {
    setBusy(true);
    try {
      await api.revokeRule(sessionId, rule.scope, rule.index);
      await load();
    } catch (err) {
      onError.current(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card rules" data-testid="rules" aria-labelledby="rules-heading">
      <h3 id="rules-heading">
        {t("rules-heading")}{" "}
        <button type="button" className="link" data-testid="rules-refresh" onClick={() => void load()}>
          {t("rules-refresh")}
        </button>
      </h3>
      {rules === undefined ? (
        <p className="muted">{t("loading")}</p>
      ) : rules.length === 0 ? (
        <p className="muted" data-testid="rules-empty">
          {t("rules-empty")}
        </p>
      ) : (
        <ul className="rule-list">
          {rules.map((rule) => (
            <li key={`${rule.scope}:${rule.index}`} data-testid="rule" data-decision={rule.decision}>
              <code>{rule.summary}</code> <span className="muted">{t(`rules-scope-${rule.scope === "user" ? "user" : "project"}`)}</span>{" "}
              <button
                type="button"
                className="danger"
                data-testid="rule-revoke"
                disabled={busy}
                aria-label={t("rules-revoke-label", { rule: rule.summary })}
                onClick={() => void revoke(rule)}
              >
                {t("rules-revoke")}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
