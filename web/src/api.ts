// Client for the keel-server HTTP contract (docs/server-api.md): bearer-token JSON calls.

/** A session as the server reports it. */
export interface Session {
  id: string;
  project_id: string;
  root: string;
  title: string;
  status: string;
  model?: string;
  mode?: string;
  created_at: string;
  updated_at: string;
  last_seq: number;
}

/** A turn (one user request) as the server reports it. */
export interface Turn {
  id: string;
  session_id: string;
  request_id?: string;
  input: string;
  status: string;
  error?: string;
  started_at: string;
  ended_at?: string;
}

/** Body of `POST /v1/sessions`. */
export interface NewSession {
  project_id: string;
  root: string;
  mode?: "auto" | "direct" | "plan";
  title?: string;
  model?: string;
}

/** An error answer from the server (`{"error": {"code", "message"}}`) or the network. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

type Fetch = typeof fetch;

/** Calls the server with the bearer token; every method throws [`ApiError`] on failure. */
export class Api {
  constructor(
    private readonly token: string,
    private readonly base = "",
    private readonly fetchFn: Fetch = (...args) => fetch(...args),
  ) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await this.fetchFn(this.base + path, {
        method,
        headers: {
          Authorization: `Bearer ${this.token}`,
          Accept: "application/json",
          ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new ApiError(0, "network", `Cannot reach the server: ${String(err)}`);
    }
    const text = await response.text();
    let data: unknown = undefined;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch {
        data = undefined;
      }
    }
    if (!response.ok) {
      const error = (data as { error?: { code?: string; message?: string } } | undefined)?.error;
      throw new ApiError(
        response.status,
        error?.code ?? `http_${response.status}`,
        error?.message ?? (text || response.statusText),
      );
    }
    return data as T;
  }

  /** Sessions visible to the token, newest first. */
  async listSessions(limit = 50): Promise<Session[]> {
    const data = await this.call<{ sessions: Session[] }>("GET", `/v1/sessions?limit=${limit}`);
    return data.sessions;
  }

  /** One session. */
  getSession(id: string): Promise<Session> {
    return this.call("GET", `/v1/sessions/${encodeURIComponent(id)}`);
  }

  /** Creates a session. */
  createSession(body: NewSession): Promise<Session> {
    return this.call("POST", "/v1/sessions", body);
  }

  /** Starts a turn; the same `requestId` again returns the same turn (idempotent). */
  startTurn(sessionId: string, requestId: string, input: string): Promise<{ turn: Turn; created: boolean }> {
    return this.call("POST", `/v1/sessions/${encodeURIComponent(sessionId)}/turns`, {
      request_id: requestId,
      input,
    });
  }

  /** Cancels the running turn, if any. */
  cancel(sessionId: string): Promise<{ cancelled: boolean }> {
    return this.call("POST", `/v1/sessions/${encodeURIComponent(sessionId)}/cancel`, {});
  }

  /** Decides an approval request. */
  decide(
    sessionId: string,
    approvalId: string,
    decision: "approve" | "reject",
    reason?: string,
  ): Promise<{ approval_id: string; decision: string; applied: boolean }> {
    return this.call(
      "POST",
      `/v1/sessions/${encodeURIComponent(sessionId)}/approvals/${encodeURIComponent(approvalId)}`,
      reason ? { decision, reason } : { decision },
    );
  }

  /** Answers a question the agent asked. */
  answer(sessionId: string, questionId: string, answer: string): Promise<unknown> {
    return this.call(
      "POST",
      `/v1/sessions/${encodeURIComponent(sessionId)}/questions/${encodeURIComponent(questionId)}`,
      { answer },
    );
  }

  /** The files of the session's root, for the FileTree. */
  files(sessionId: string): Promise<{ files: string[]; truncated: boolean }> {
    return this.call("GET", `/v1/sessions/${encodeURIComponent(sessionId)}/files`);
  }

  /** A short-lived token for the session's event stream (`?token=`). */
  streamToken(sessionId: string): Promise<{ token: string; expires_at: string }> {
    return this.call("POST", "/v1/stream-tokens", { session_id: sessionId });
  }

  /** Approves a plan with changes (`decision: "modify"`); the engine emits `run.plan.modify`. */
  decideModified(
    sessionId: string,
    approvalId: string,
    modified: PlanDraft,
    reason?: string,
  ): Promise<{ approval_id: string; decision: string; applied: boolean }> {
    return this.call(
      "POST",
      `/v1/sessions/${encodeURIComponent(sessionId)}/approvals/${encodeURIComponent(approvalId)}`,
      reason ? { decision: "modify", modified, reason } : { decision: "modify", modified },
    );
  }

  /** Runs a file of the session's root; its `exec.file.*` events arrive on the session's stream. */
  startFileRun(sessionId: string, path: string, args: string[] = []): Promise<{ run_id: string }> {
    return this.call("POST", `/v1/sessions/${encodeURIComponent(sessionId)}/file-runs`, { path, args });
  }

  /** The permission rules that apply to the session (the project's, then the user's). */
  listRules(sessionId: string): Promise<{ rules: Rule[]; files: string[] }> {
    return this.call("GET", `/v1/sessions/${encodeURIComponent(sessionId)}/rules`);
  }

  /** Revokes rule `index` of the `project` or `user` rules file. */
  revokeRule(sessionId: string, scope: string, index: number): Promise<Rule> {
    return this.call(
      "DELETE",
      `/v1/sessions/${encodeURIComponent(sessionId)}/rules/${encodeURIComponent(scope)}/${index}`,
    );
  }
}

/** A fresh request id: `crypto.randomUUID()`, or a v4 UUID from `getRandomValues` where the
 * page is not a secure context (plain http on a non-local host). */
export function newRequestId(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A plan as `create_plan` takes it: what `decideModified` sends as the changed plan. */
export interface PlanDraft {
  goal: string;
  estimated_complexity: "low" | "medium" | "high";
  steps: { title: string; description: string; expected_tools?: string[] }[];
}

/** A permission rule as `GET /v1/sessions/{id}/rules` lists it. */
export interface Rule {
  scope: string;
  file: string;
  index: number;
  line: number;
  decision: string;
  match?: string[];
  tool?: string;
  paths?: string[];
  override_safety: boolean;
  summary: string;
}

