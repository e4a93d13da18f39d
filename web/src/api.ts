// Client for the keel-server HTTP contract (docs/server-api.md), on @keel/client
// (clients/ts): the request and response types come from the server's OpenAPI document.
import { ApiError, KeelClient, type Schemas } from "../../clients/ts/src/client";

export { ApiError };

/** A session as the server reports it. */
export type Session = Schemas["SessionView"];

/** A turn (one user request) as the server reports it. */
export type Turn = Schemas["TurnView"];

/** Body of `POST /v1/sessions`. */
export type NewSession = Schemas["CreateSession"];

type Fetch = typeof fetch;

/** Calls the server with the bearer token; every method throws [`ApiError`] on failure. */
export class Api {
  private readonly client: KeelClient;

  constructor(token: string, base = "", fetchFn: Fetch = (...args) => fetch(...args)) {
    this.client = new KeelClient({ token, baseUrl: base, fetch: fetchFn });
  }

  /** Sessions visible to the token, newest first. */
  listSessions(limit = 50): Promise<Session[]> {
    return this.client.listSessions(limit);
  }

  /** One session. */
  getSession(id: string): Promise<Session> {
    return this.client.getSession(id);
  }

  /** Creates a session. */
  createSession(body: NewSession): Promise<Session> {
    return this.client.createSession(body);
  }

  /** Starts a turn; the same `requestId` again returns the same turn (idempotent). */
  startTurn(sessionId: string, requestId: string, input: string): Promise<{ turn: Turn; created: boolean }> {
    return this.client.startTurn(sessionId, requestId, input);
  }

  /** Cancels the running turn, if any. */
  cancel(sessionId: string): Promise<{ cancelled: boolean }> {
    return this.client.cancel(sessionId);
  }

  /** Decides an approval request. */
  decide(
    sessionId: string,
    approvalId: string,
    decision: "approve" | "reject",
    reason?: string,
  ): Promise<{ approval_id: string; decision: string; applied: boolean }> {
    return this.client.decide(sessionId, approvalId, reason ? { decision, reason } : { decision });
  }

  /** Answers a question the agent asked. */
  answer(sessionId: string, questionId: string, answer: string): Promise<unknown> {
    return this.client.answer(sessionId, questionId, answer);
  }

  /** The files of the session's root, for the FileTree. */
  files(sessionId: string): Promise<{ files: string[]; truncated: boolean }> {
    return this.client.files(sessionId);
  }

  /** A short-lived token for the session's event stream (`?token=`). */
  streamToken(sessionId: string): Promise<{ token: string; expires_at: string }> {
    return this.client.streamToken(sessionId);
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
