// The live event stream of one session: an EventSource on `/v1/sessions/{id}/events` with a
// short-lived stream token. The browser resumes by itself with Last-Event-ID after a dropped
// connection or a `lagged` close; when it gives up (e.g. the stream token expired) we open a new
// one with a fresh token and `?after=<last seq>`. `reload` tells that history before
// `oldest_seq` is gone.
import type { Event } from "./contract";
import { EVENT_TYPES } from "./contract";
import type { Api } from "./api";

/** What the stream reports to its owner. */
export interface StreamHandlers {
  /** One event, in seq order (the owner drops duplicates by seq). */
  onEvent(event: Event): void;
  /** The cursor was older than the store holds: reset, the backlog follows from `oldestSeq`. */
  onReload(oldestSeq: number | undefined, reason: string): void;
  /** Connection state, for the status indicator. */
  onStatus(status: "connecting" | "live" | "reconnecting" | "error", detail?: string): void;
  /** The seq to resume after when a new connection has to be opened. */
  lastSeq(): number;
}

type EventSourceCtor = new (url: string) => EventSource;

/** A self-healing subscription to a session's events. */
export class EventStream {
  private source: EventSource | undefined;
  private closed = false;
  private retryMs = 500;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly api: Api,
    private readonly sessionId: string,
    private readonly handlers: StreamHandlers,
    private readonly Source: EventSourceCtor = EventSource,
  ) {}

  /** Opens the stream. */
  start(): void {
    void this.open();
  }

  /** Closes the stream for good. */
  close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.source?.close();
    this.source = undefined;
  }

  private async open(): Promise<void> {
    if (this.closed) return;
    this.handlers.onStatus("connecting");
    let token: string;
    try {
      token = (await this.api.streamToken(this.sessionId)).token;
    } catch (err) {
      this.handlers.onStatus("error", err instanceof Error ? err.message : String(err));
      this.schedule();
      return;
    }
    if (this.closed) return;
    const after = this.handlers.lastSeq();
    const params = new URLSearchParams({ stream: "sse", token });
    if (after > 0) params.set("after", String(after));
    const source = new this.Source(`/v1/sessions/${encodeURIComponent(this.sessionId)}/events?${params}`);
    this.source = source;
    source.onopen = () => {
      this.retryMs = 500;
      this.handlers.onStatus("live");
    };
    source.onerror = () => {
      if (this.closed || this.source !== source) return;
      if (source.readyState === source.CLOSED) {
        // The browser gave up (refused reconnect, e.g. an expired stream token): start over.
        this.source = undefined;
        this.handlers.onStatus("reconnecting");
        this.schedule();
      } else {
        this.handlers.onStatus("reconnecting");
      }
    };
    const onMessage = (message: MessageEvent<string>) => {
      let event: Event;
      try {
        event = JSON.parse(message.data) as Event;
      } catch {
        return;
      }
      this.handlers.onEvent(event);
    };
    for (const type of EVENT_TYPES) source.addEventListener(type, onMessage as EventListener);
    // Unnamed events, in case a server sends them without `event:`.
    source.addEventListener("message", onMessage as EventListener);
    source.addEventListener("reload", ((message: MessageEvent<string>) => {
      let info: { reason?: string; oldest_seq?: number } = {};
      try {
        info = JSON.parse(message.data) as typeof info;
      } catch {
        info = {};
      }
      this.handlers.onReload(info.oldest_seq, info.reason ?? "reload");
    }) as EventListener);
    source.addEventListener("lagged", () => {
      // The server closes the stream after this; EventSource reconnects with Last-Event-ID.
      this.handlers.onStatus("reconnecting", "catching up");
    });
  }

  private schedule(): void {
    if (this.closed) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, 10_000);
    this.timer = setTimeout(() => void this.open(), delay);
  }
}
