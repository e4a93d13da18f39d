// A session's live events over Server-Sent Events, read with fetch (so a bearer header works,
// in browsers and Node >= 20 alike): resumes with `Last-Event-ID` after a dropped connection or
// a `lagged` close, reconnects with exponential backoff, yields typed events in seq order.
import type { Event } from "@keel/events";
import { ApiError, type KeelClient } from "./client.js";

/** How `streamEvents` behaves. */
export interface StreamOptions {
  /** Resume after this seq (default 0: from the start). */
  after?: number;
  /** Stops the stream (the iterator then ends). */
  signal?: AbortSignal;
  /** First reconnect delay in ms (default 250), doubled per failed attempt. */
  minDelayMs?: number;
  /** Longest reconnect delay in ms (default 10 000). */
  maxDelayMs?: number;
  /** Give up after this many reconnects in a row without an event (default: never). */
  maxRetries?: number;
  /** Called when the server says history before `oldestSeq` is gone (`reload`). */
  onReload?(oldestSeq: number | undefined, reason: string): void;
  /** Called before each reconnect, with the attempt number and the delay. */
  onReconnect?(attempt: number, delayMs: number, cause: unknown): void;
}

/** One SSE message: its `event:` name, `id:` and `data:`. */
export interface SseMessage {
  event: string;
  id: string | undefined;
  data: string;
}

/** Splits an SSE byte stream into messages (comments and keep-alives dropped). */
export async function* sseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = "";
  let event = "message";
  let id: string | undefined;
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.search(/\r?\n|\r/)) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
        if (line === "") {
          if (data.length > 0) yield { event, id, data: data.join("\n") };
          event = "message";
          id = undefined;
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event = text;
        else if (field === "id") id = text;
        else if (field === "data") data.push(text);
      }
    }
  } finally {
    // The consumer stopped early (break, return): close the connection, or it keeps the
    // process alive.
    await reader.cancel().catch(() => undefined);
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

/** The session's events from `options.after` on, live, until `options.signal` aborts or the
 * retries run out (then it throws the last error). Duplicates (by seq) are dropped. */
export async function* streamEvents(client: KeelClient, sessionId: string, options: StreamOptions = {}): AsyncGenerator<Event> {
  let last = options.after ?? 0;
  const minDelay = options.minDelayMs ?? 250;
  const maxDelay = options.maxDelayMs ?? 10_000;
  let failures = 0;
  const url = client.url("/v1/sessions/{id}/events", { id: sessionId });
  while (!options.signal?.aborted) {
    let cause: unknown;
    const connection = new AbortController();
    const abort = () => connection.abort();
    options.signal?.addEventListener("abort", abort, { once: true });
    try {
      const response = await fetch(url, {
        headers: {
          Authorization: `Bearer ${client.token}`,
          Accept: "text/event-stream",
          ...(last > 0 ? { "Last-Event-ID": String(last) } : {}),
        },
        signal: connection.signal,
      });
      if (!response.ok || response.body === null) {
        const text = await response.text();
        const status = response.status;
        // Refusals other than overload are not cured by retrying.
        if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
          throw new ApiError(status, `http_${status}`, text || response.statusText);
        }
        cause = new ApiError(status, `http_${status}`, text || response.statusText);
      } else {
        for await (const message of sseMessages(response.body)) {
          if (message.event === "reload") {
            const info = JSON.parse(message.data) as { reason?: string; oldest_seq?: number };
            options.onReload?.(info.oldest_seq, info.reason ?? "reload");
            if (info.oldest_seq !== undefined) last = Math.max(0, info.oldest_seq - 1);
            continue;
          }
          if (message.event === "lagged") continue;
          const event = JSON.parse(message.data) as Event;
          if (event.seq <= last) continue;
          last = event.seq;
          failures = 0;
          yield event;
        }
        cause = new Error("the stream closed");
      }
    } catch (err) {
      if (options.signal?.aborted) return;
      if (err instanceof ApiError && err.status !== 0 && err.status < 500 && err.status !== 408 && err.status !== 429) throw err;
      cause = err;
    } finally {
      options.signal?.removeEventListener("abort", abort);
      connection.abort();
    }
    failures += 1;
    if (options.maxRetries !== undefined && failures > options.maxRetries) throw cause;
    const delay = Math.min(maxDelay, minDelay * 2 ** (failures - 1));
    options.onReconnect?.(failures, delay, cause);
    await sleep(delay, options.signal);
  }
}
