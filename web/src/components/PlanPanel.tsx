import type { PlanState } from "../sessionModel";

const STEP_ICON = { pending: "○", running: "◐", done: "●", failed: "✕" } as const;

/** The plan's goal, steps and progress `{current,total}`. */
export function PlanPanel(props: { plan: PlanState }) {
  const { plan } = props;
  const total = plan.progress?.total ?? plan.steps.length;
  const done = plan.steps.filter((s) => s.status === "done").length;
  const current = plan.progress?.current ?? 0;
  return (
    <section className="card plan" data-testid="plan-progress" aria-labelledby="plan-heading">
      <h3 id="plan-heading">
        <span aria-hidden="true">☰</span> Plan: {plan.goal} <span className={`status status-${plan.status}`}>{plan.status}</span>
      </h3>
      <div className="progress-line">
        <progress max={total || 1} value={done} aria-label={`${done} of ${total} steps done`} />
        <span data-testid="plan-progress-text">
          {current > 0 ? `step ${current}/${total}` : `${total} steps`} · {done} done
        </span>
      </div>
      <ol className="steps">
        {plan.steps.map((step) => (
          <li key={step.index} className={`step step-${step.status}`} data-testid="plan-step" data-status={step.status}>
            <span aria-hidden="true">{STEP_ICON[step.status]}</span> {step.title}
            <span className="visually-hidden"> ({step.status})</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
