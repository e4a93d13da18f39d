import { useState } from "react";
import type { PlanDraft } from "../api";
import type { Plan } from "../contract";
import { useI18n } from "../i18n";

interface DraftStep {
  /** Stable key for React while steps move. */
  key: number;
  title: string;
  description: string;
  expected_tools: string[];
}

/** Why the draft cannot be sent (a message id), or undefined when it can. */
export function draftProblem(goal: string, steps: readonly { title: string }[]): string | undefined {
  if (!goal.trim()) return "plan-edit-error-goal";
  if (steps.length === 0) return "plan-edit-error-no-steps";
  if (steps.some((s) => !s.title.trim())) return "plan-edit-error-title";
  return undefined;
}

/** Edits a proposed plan before it is approved: goal, step titles and descriptions, order,
 * deleting and adding steps; sends the result as a `modify` decision. */
export function PlanEditor(props: {
  plan: Plan;
  busy: boolean;
  onSubmit(draft: PlanDraft): Promise<void>;
  onClose(): void;
}) {
  const { t } = useI18n();
  const [goal, setGoal] = useState(props.plan.goal);
  const [nextKey, setNextKey] = useState(props.plan.steps.length + 1);
  const [steps, setSteps] = useState<DraftStep[]>(() =>
    props.plan.steps.map((s, i) => ({
      key: i + 1,
      title: s.title,
      description: s.description,
      expected_tools: s.expected_tools,
    })),
  );
  const problem = draftProblem(goal, steps);
  const update = (key: number, change: Partial<DraftStep>) =>
    setSteps((list) => list.map((s) => (s.key === key ? { ...s, ...change } : s)));
  const move = (index: number, by: -1 | 1) =>
    setSteps((list) => {
      const to = index + by;
      if (to < 0 || to >= list.length) return list;
      const next = [...list];
      const [item] = next.splice(index, 1);
      if (item) next.splice(to, 0, item);
      return next;
    });
  const add = () => {
    setSteps((list) => [...list, { key: nextKey, title: "", description: "", expected_tools: [] }]);
    setNextKey((k) => k + 1);
  };
  return (
    <form
      className="plan-editor"
      data-testid="plan-editor"
      aria-label={t("plan-edit-heading")}
      onSubmit={(e) => {
        e.preventDefault();
        if (problem) return;
        void props.onSubmit({
          goal: goal.trim(),
          estimated_complexity: props.plan.estimated_complexity,
          steps: steps.map((s) => ({
            title: s.title.trim(),
            description: s.description.trim(),
            expected_tools: s.expected_tools,
          })),
        });
      }}
    >
      <label htmlFor="plan-edit-goal">{t("plan-edit-goal")}</label>
      <input id="plan-edit-goal" data-testid="plan-edit-goal" value={goal} onChange={(e) => setGoal(e.target.value)} />
      <ol className="plan-edit-steps">
        {steps.map((step, i) => (
          <li key={step.key} data-testid="plan-edit-step">
            <label htmlFor={`plan-step-title-${step.key}`}>{t("plan-edit-step-title", { n: i + 1 })}</label>
            <input
              id={`plan-step-title-${step.key}`}
              data-testid="plan-edit-title"
              value={step.title}
              onChange={(e) => update(step.key, { title: e.target.value })}
            />
            <label htmlFor={`plan-step-desc-${step.key}`}>{t("plan-edit-step-description", { n: i + 1 })}</label>
            <textarea
              id={`plan-step-desc-${step.key}`}
              data-testid="plan-edit-description"
              rows={2}
              value={step.description}
              onChange={(e) => update(step.key, { description: e.target.value })}
            />
            <div className="buttons">
              <button
                type="button"
                data-testid="plan-edit-up"
                disabled={i === 0}
                aria-label={t("plan-edit-up", { n: i + 1 })}
                onClick={() => move(i, -1)}
              >
                ↑
              </button>
              <button
                type="button"
                data-testid="plan-edit-down"
                disabled={i === steps.length - 1}
                aria-label={t("plan-edit-down", { n: i + 1 })}
                onClick={() => move(i, 1)}
              >
                ↓
              </button>
              <button
                type="button"
                className="danger"
                data-testid="plan-edit-delete"
                aria-label={t("plan-edit-delete", { n: i + 1 })}
                onClick={() => setSteps((list) => list.filter((s) => s.key !== step.key))}
              >
                {t("plan-edit-delete-short")}
              </button>
            </div>
          </li>
        ))}
      </ol>
      <div className="buttons">
        <button type="button" data-testid="plan-edit-add" onClick={add}>
          {t("plan-edit-add")}
        </button>
      </div>
      {problem && (
        <p className="notice notice-warn" role="status" data-testid="plan-edit-problem">
          {t(problem)}
        </p>
      )}
      <div className="buttons">
        <button type="submit" className="primary" data-testid="plan-edit-submit" disabled={props.busy || problem !== undefined}>
          {t("plan-edit-submit")}
        </button>
        <button type="button" data-testid="plan-edit-cancel" onClick={props.onClose}>
          {t("plan-edit-cancel")}
        </button>
      </div>
    </form>
  );
}
