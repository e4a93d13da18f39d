import { useState } from "react";
import type { RunApprovalRequest } from "../contract";

/** A pending `run.approval.request` with approve / reject buttons. */
export function ApprovalPanel(props: {
  request: RunApprovalRequest;
  onDecide(decision: "approve" | "reject", reason?: string): Promise<void>;
}) {
  const { request } = props;
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const decide = async (decision: "approve" | "reject") => {
    setBusy(true);
    try {
      await props.onDecide(decision, reason.trim() || undefined);
    } finally {
      setBusy(false);
    }
  };
  const reasonId = `approval-reason-${request.approval_id}`;
  return (
    <section
      className="card approval"
      data-testid="approval-request"
      data-approval-id={request.approval_id}
      aria-labelledby={`approval-h-${request.approval_id}`}
    >
      <h3 id={`approval-h-${request.approval_id}`}>
        <span aria-hidden="true">⚑</span> Approval needed: {request.kind}
      </h3>
      <p className="muted">{request.reason}</p>
      <pre className="subject">{request.subject}</pre>
      <label htmlFor={reasonId}>Reason (optional)</label>
      <input id={reasonId} value={reason} onChange={(e) => setReason(e.target.value)} />
      <div className="buttons">
        <button
          type="button"
          className="primary"
          data-testid="approve-button"
          disabled={busy}
          onClick={() => void decide("approve")}
        >
          Approve
        </button>
        <button
          type="button"
          className="danger"
          data-testid="reject-button"
          disabled={busy}
          onClick={() => void decide("reject")}
        >
          Reject
        </button>
      </div>
    </section>
  );
}
