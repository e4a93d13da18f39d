import { useI18n } from "../i18n";
import type { PlanState } from "../sessionModel";

const STEP_ICON = { pending: "○", running: "◐", done: "●", failed: "✕" } as const;

/** The plan's goal, steps and progress `{current,total}`. */
export function PlanPanel(props: { plan: PlanState }) {
  const { plan } = props;
  const { t } = useI18n();
  const total = plan.progress?.total ?? plan.steps.length;
  const done = plan.steps.filter((s) => s.status === "done").length;
  const current = plan.progress?.current ?? 0;
  return (
    <section className="card plan" data-testid="plan-progress" aria-labelledby="plan-heading">
      <h3 id="plan-heading">
        <span aria-hidden="true">☰</span> {t("plan-heading", { goal: plan.goal })} <span className={`status status-${plan.status}`}>{t(`plan-status-${plan.status}`)}</span>
      </h3>
      <div className="progress-line">
        <progress max={total || 1} value={done} aria-label={t("plan-progress-label", { done, total })} />
        <span data-testid="plan-progress-text">
          {current > 0 ? t("plan-progress-step", { current, total }) : t("plan-progress-steps", { total })} ·{" "}
          {t("plan-progress-done", { done })}
        </span>
      </div>
      <ol className="steps">
        {plan.steps.map((step) => (
          <li key={step.index} className={`step step-${step.status}`} data-testid="plan-step" data-status={step.status}>
            <span aria-hidden="true">{STEP_ICON[step.status]}</span> {step.title}
            <span className="visually-hidden"> ({t(`step-status-${step.status}`)})</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
