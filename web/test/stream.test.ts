import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Api } from "../src/api";
import type { Event } from "../src/contract";
import { EventStream } from "../src/stream";

/** A stand-in for the browser's EventSource that the test drives by hand. */
class FakeSource {
  static instances: FakeSource[] = [];
  readonly CONNECTING = 0;
  readonly OPEN = 1;
  readonly CLOSED = 2;
  readyState = 0;
  onopen: (() => void) | null = null;
  onerror: (() => void) | null = null;
  private listeners = new Map<string, ((e: { data: string }) => void)[]>();
  constructor(readonly url: string) {
    FakeSource.instances.push(this);
  }
  addEventListener(type: string, listener: (e: { data: string }) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  close() {
    this.readyState = this.CLOSED;
  }
  emit(type: string, data: unknown) {
    for (const listener of this.listeners.get(type) ?? []) listener({ data: JSON.stringify(data) });
  }
}

function event(seq: number): Event {
  return {
    id: `id-${seq}`,
    seq,
    ts: "2026-11-22T10:00:00.000Z",
    session_id: "s1",
    project_id: "p",
    type: "system.status",
    payload: { message: `m${seq}` },
  };
}

async function flush() {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe("EventStream", () => {
  let tokens = 0;
  const api = { streamToken: vi.fn(async () => ({ token: `tok${++tokens}`, expires_at: "" })) } as unknown as Api;
  let received: Event[];
  let reloads: (number | undefined)[];
  let statuses: string[];
  let stream: EventStream;

  beforeEach(() => {
    vi.useFakeTimers();
    FakeSource.instances = [];
    tokens = 0;
    received = [];
    reloads = [];
    statuses = [];
    stream = new EventStream(
      api,
      "s1",
      {
        onEvent: (e) => received.push(e),
        onReload: (oldest) => reloads.push(oldest),
        onStatus: (s) => statuses.push(s),
        lastSeq: () => received.at(-1)?.seq ?? 0,
      },
      FakeSource as unknown as new (url: string) => EventSource,
    );
  });

  afterEach(() => {
    stream.close();
    vi.useRealTimers();
  });

  it("opens the SSE route with a stream token and delivers named events", async () => {
    stream.start();
    await flush();
    const source = FakeSource.instances[0];
    expect(source?.url).toBe("/v1/sessions/s1/events?stream=sse&token=tok1");
    source?.onopen?.();
    source?.emit("system.status", event(1));
    source?.emit("run.llm.delta", { ...event(2), type: "run.llm.delta", payload: { text: "x" } });
    expect(received.map((e) => e.seq)).toEqual([1, 2]);
    expect(statuses).toContain("live");
  });

  it("reports reload with the oldest stored seq", async () => {
    stream.start();
    await flush();
    FakeSource.instances[0]?.emit("reload", { reason: "retention", oldest_seq: 40 });
    expect(reloads).toEqual([40]);
  });

  it("leaves a dropped connection to the browser's Last-Event-ID resume", async () => {
    stream.start();
    await flush();
    const source = FakeSource.instances[0];
    source?.emit("system.status", event(1));
    source?.emit("lagged", { after_seq: 1 });
    source?.onerror?.();
    await vi.advanceTimersByTimeAsync(5000);
    expect(FakeSource.instances.length).toBe(1);
    expect(statuses.at(-1)).toBe("reconnecting");
  });

  it("opens a new stream with a fresh token after the last seq when the browser gives up", async () => {
    stream.start();
    await flush();
    const first = FakeSource.instances[0];
    first?.emit("system.status", event(7));
    if (first) first.readyState = first.CLOSED;
    first?.onerror?.();
    await vi.advanceTimersByTimeAsync(600);
    await flush();
    expect(FakeSource.instances.length).toBe(2);
    expect(FakeSource.instances[1]?.url).toBe("/v1/sessions/s1/events?stream=sse&token=tok2&after=7");
  });

  it("opens nothing more once closed", async () => {
    stream.start();
    await flush();
    stream.close();
    const first = FakeSource.instances[0];
    expect(first?.readyState).toBe(2);
    first?.onerror?.();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(FakeSource.instances.length).toBe(1);
  });
});
