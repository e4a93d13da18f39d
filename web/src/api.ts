// Client for the keel-server HTTP contract (docs/server-api.md), on @keel/client
// (clients/ts): the request and response types come from the server's OpenAPI document.
import { ApiError, KeelClient, type Schemas } from "../../clients/ts/src/client";
import type { ApprovalResult, Choice } from "./approval";
import type { ImageUpload } from "./images";
import type { McpServer } from "./mcp";
import type { MemoryEntry, MemoryList } from "./memory";
import type { ShadowApplied, ShadowBatch, ShadowDiscarded } from "./shadow";

export { ApiError };

/** A session as the server reports it. */
export type Session = Schemas["SessionView"];

/** One checkpoint of a session (made before each turn). */
export type Checkpoint = Schemas["CheckpointView"];

/** A custom command of a session (a `/NAME ARGS` prompt template). */
export type CustomCommand = Schemas["CommandView"];

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

  /** Starts a turn with any images; the same `requestId` again returns the same turn (idempotent). */
  startTurn(
    sessionId: string,
    requestId: string,
    input: string,
    images: ImageUpload[] = [],
  ): Promise<{ turn: Turn; created: boolean }> {
    return this.client.startTurn(sessionId, requestId, input, images);
  }

  /** Cancels the running turn, if any. */
  cancel(sessionId: string): Promise<{ cancelled: boolean }> {
    return this.client.cancel(sessionId);
  }

  /** Decides an approval request; an `always` answer lists the allow rules it wrote. */
  decide(sessionId: string, approvalId: string, decision: Choice, reason?: string): Promise<ApprovalResult> {
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

  /** Approves a plan with changes (`decision: "modify"`); the engine emits `run.plan.modify`. */
  decideModified(
    sessionId: string,
    approvalId: string,
    modified: PlanDraft,
    reason?: string,
  ): Promise<{ approval_id: string; decision: string; applied: boolean }> {
    return this.client.decide(
      sessionId,
      approvalId,
      reason ? { decision: "modify", modified, reason } : { decision: "modify", modified },
    );
  }

  /** Runs a file of the session's root; its `exec.file.*` events arrive on the session's stream. */
  startFileRun(sessionId: string, path: string, args: string[] = []): Promise<{ run_id: string }> {
    return this.client.startFileRun(sessionId, { path, args });
  }

  /** The permission rules that apply to the session (the project's, then the user's). */
  listRules(sessionId: string): Promise<{ rules: Rule[]; files: string[] }> {
    return this.client.listRules(sessionId) as Promise<{ rules: Rule[]; files: string[] }>;
  }

  /** Revokes rule `index` of the `project` or `user` rules file. */
  revokeRule(sessionId: string, scope: string, index: number): Promise<Rule> {
    return this.client.revokeRule(sessionId, scope, index) as Promise<Rule>;
  }

  /** The session's checkpoints, oldest first. */
  listCheckpoints(sessionId: string): Promise<Schemas["CheckpointList"]> {
    return this.client.listCheckpoints(sessionId);
  }

  /** Rewinds the session's files and history to before a checkpoint's turn. */
  rewind(sessionId: string, checkpoint: string): Promise<Schemas["RewindResult"]> {
    return this.client.rewind(sessionId, { checkpoint, scope: "both" });
  }

  /** Forks the session at a checkpoint (its history before that turn) into a new session. */
  fork(sessionId: string, at: string): Promise<Session> {
    return this.client.fork(sessionId, { at });
  }

  /** The shadow session's staged batch; `null` when nothing is staged. */
  async getShadow(sessionId: string): Promise<ShadowBatch | null> {
    try {
      return await this.client.getShadow(sessionId);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404 && err.code === "not_found") return null;
      throw err;
    }
  }

  /** Applies the staged changes (all, or `paths`) to the real tree. */
  applyShadow(sessionId: string, paths?: string[]): Promise<ShadowApplied> {
    return this.client.applyShadow(sessionId, paths);
  }

  /** Discards the staged changes (all, or `paths`). */
  discardShadow(sessionId: string, paths?: string[]): Promise<ShadowDiscarded> {
    return this.client.discardShadow(sessionId, paths);
  }

  /** The project's memory. */
  listMemory(sessionId: string): Promise<MemoryList> {
    return this.client.listMemory(sessionId);
  }

  /** Forgets one entry of the project's memory. */
  forgetMemory(sessionId: string, entryId: string): Promise<MemoryEntry> {
    return this.client.forgetMemory(sessionId, entryId);
  }

  /** The session's MCP servers and their status. */
  /** The session's custom commands, by name. */
  async listCommands(sessionId: string): Promise<CustomCommand[]> {
    return (await this.client.listCommands(sessionId)).commands;
  }

  async listMcpServers(sessionId: string): Promise<McpServer[]> {
    return (await this.client.listMcpServers(sessionId)).servers;
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

