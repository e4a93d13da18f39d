import { useState } from "react";
import type { PlanDraft } from "../api";
import { offersAlways, type Choice } from "../approval";
import type { Plan, RunApprovalRequest } from "../contract";
import { useI18n } from "../i18n";
import { PlanEditor } from "./PlanEditor";

/** A pending `run.approval.request` with approve / reject buttons; a command or tool call can
 * also be allowed always (the server writes allow rules), a plan approved with changes. */
export function ApprovalPanel(props: {
  request: RunApprovalRequest;
  /** The proposed plan, when the request is a plan's: makes it editable. */
  plan?: Plan | undefined;
  onDecide(decision: Choice, reason?: string): Promise<void>;
  onModify?(draft: PlanDraft, reason?: string): Promise<void>;
}) {
  const { request } = props;
  const { t, word } = useI18n();
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [editing, setEditing] = useState(false);
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    try {
      await action();
    } finally {
      setBusy(false);
    }
  };
  const decide = (decision: Choice) => run(() => props.onDecide(decision, reason.trim() || undefined));
  const reasonId = `approval-reason-${request.approval_id}`;
  const editable = request.kind === "plan" && props.plan !== undefined && props.onModify !== undefined;
  return (
    <section
      className="card approval"
      data-testid="approval-request"
      data-approval-id={request.approval_id}
      aria-labelledby={`approval-h-${request.approval_id}`}
    >
      <h3 id={`approval-h-${request.approval_id}`}>
        <span aria-hidden="true">⚑</span> {t("approval-heading", { kind: word("approval-kind-", request.kind) })}
      </h3>
      <p className="muted">{request.reason}</p>
      <pre className="subject">{request.subject}</pre>
      <label htmlFor={reasonId}>{t("approval-reason")}</label>
      <input id={reasonId} value={reason} onChange={(e) => setReason(e.target.value)} />
      <div className="buttons">
        <button
          type="button"
          className="primary"
          data-testid="approve-button"
          disabled={busy}
          onClick={() => void decide("approve")}
        >
          {t("approval-approve")}
        </button>
        {offersAlways(request.kind) && (
          <button
            type="button"
            data-testid="always-button"
            disabled={busy}
            title={t("approval-always-hint")}
            onClick={() => void decide("always")}
          >
            {t("approval-always")}
          </button>
        )}
        <button
          type="button"
          className="danger"
          data-testid="reject-button"
          disabled={busy}
          onClick={() => void decide("reject")}
        >
          {t("approval-reject")}
        </button>
        {editable && !editing && (
          <button type="button" data-testid="plan-edit-button" disabled={busy} onClick={() => setEditing(true)}>
            {t("approval-edit-plan")}
          </button>
        )}
      </div>
      {editable && editing && props.plan && (
        <PlanEditor
          plan={props.plan}
          busy={busy}
          onClose={() => setEditing(false)}
          onSubmit={(draft) => run(() => props.onModify?.(draft, reason.trim() || undefined) ?? Promise.resolve())}
        />
      )}
    </section>
  );
}
