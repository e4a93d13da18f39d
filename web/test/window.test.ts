import { describe, expect, it } from "vitest";
import type { TimelineEvent } from "../src/contract";
import { moveHalf, TimelineWindow, WINDOW_CAPACITY } from "../src/window";

function rec(id: number, payload: Pick<TimelineEvent, "type" | "payload">, task = "t"): TimelineEvent {
  return { id: String(id), timestamp: "", taskId: task, projectId: "p", ...payload } as TimelineEvent;
}
const log = (id: number) => rec(id, { type: "log", payload: { level: "info", message: String(id) } });
const call = (id: number, from: string, to: string, success = true) =>
  rec(id, { type: "tool_call", payload: { toolName: "move_file", success, fromPath: from, toPath: to } });
const update = (id: number, from: string, to: string) =>
  rec(id, { type: "file_update", payload: { path: to, op: "move", fromPath: from, toPath: to } });
const ids = (w: TimelineWindow) => w.items().map((r) => r.id);

/** Deterministic PRNG (mulberry32) for the randomised test. */
function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("timeline window (mirrors window.rs)", () => {
  it("keeps 100 records by default", () => {
    const w = new TimelineWindow();
    for (let i = 0; i < 250; i++) w.push(log(i));
    expect(w.capacity).toBe(WINDOW_CAPACITY);
    expect(w.length).toBe(100);
    expect(ids(w)[0]).toBe("150");
    expect(ids(w)[99]).toBe("249");
  });

  it("keeps the newest and drops pairs whole", () => {
    const w = new TimelineWindow(4);
    w.push(update(0, "a", "b"));
    w.push(log(1));
    w.push(call(2, "a", "b"));
    w.push(log(3));
    w.push(update(4, "c", "d"));
    w.push(call(5, "c", "d"));
    expect(ids(w)).toEqual(["3", "4", "5"]);
    expect(w.latestMove()?.map((r) => r.id)).toEqual(["4", "5"]);
  });

  it("holds a half in progress until its partner arrives", () => {
    const w = new TimelineWindow(3);
    w.push(call(0, "a", "b"));
    for (let i = 1; i < 10; i++) w.push(log(i));
    w.push(update(10, "a", "b"));
    expect(ids(w)).toEqual(["0", "9", "10"]);
    expect(w.latestMove()).toBeDefined();
  });

  it("keeps the latest move through a flood", () => {
    const w = new TimelineWindow(5);
    w.push(call(0, "a", "b"));
    w.push(update(1, "a", "b"));
    for (let i = 2; i < 50; i++) w.push(log(i));
    expect(ids(w)).toEqual(["0", "1", "47", "48", "49"]);
  });

  it("pairs with the nearest unpaired half", () => {
    const w = new TimelineWindow(10);
    w.push(update(0, "a", "b"));
    w.push(call(1, "a", "b"));
    w.push(update(2, "a", "b"));
    w.push(call(3, "a", "b"));
    expect([0, 1, 2, 3].every((i) => w.isPaired(i))).toBe(true);
    expect(w.latestMove()?.map((r) => r.id)).toEqual(["2", "3"]);
  });

  it("treats a failed move_file call and halves of other tasks as ordinary records", () => {
    expect(moveHalf(call(0, "a", "b", false))).toBeUndefined();
    const w = new TimelineWindow(10);
    w.push(call(0, "a", "b"));
    w.push(rec(1, { type: "file_update", payload: { path: "b", op: "move", fromPath: "a", toPath: "b" } }, "other"));
    expect(w.isPaired(0)).toBe(false);
    expect(w.isPaired(1)).toBe(false);
  });

  it("never orphans a move and never exceeds its capacity (randomised)", () => {
    const violations: string[] = [];
    for (let seed = 1; seed <= 200; seed++) {
      const random = rng(seed);
      const capacity = 3 + Math.floor(random() * 20);
      const w = new TimelineWindow(capacity);
      const partnerOf = new Map<string, string>();
      const pushed = new Set<string>();
      let id = 0;
      let lastMove: [string, string] | undefined;
      for (let step = 0; step < 300; step++) {
        const r = random();
        if (r < 0.15) {
          // One move: its two halves next to each other, in either order.
          const from = `f${Math.floor(random() * 4)}`;
          const to = `g${Math.floor(random() * 4)}`;
          const a = id++;
          const b = id++;
          const first = random() < 0.5 ? call(a, from, to) : update(a, from, to);
          const second = first.type === "tool_call" ? update(b, from, to) : call(b, from, to);
          partnerOf.set(String(a), String(b));
          partnerOf.set(String(b), String(a));
          w.push(first);
          pushed.add(String(a));
          w.push(second);
          pushed.add(String(b));
          lastMove = [String(a), String(b)];
        } else {
          w.push(log(id));
          pushed.add(String(id++));
        }
        const held = new Set(ids(w));
        if (w.length > capacity) violations.push(`seed ${seed}: ${w.length} > ${capacity}`);
        for (const record of held) {
          const partner = partnerOf.get(record);
          if (partner !== undefined && pushed.has(partner) && !held.has(partner)) {
            violations.push(`seed ${seed}: ${record} held without its partner ${partner}`);
          }
        }
        if (lastMove && !(held.has(lastMove[0]) && held.has(lastMove[1]))) {
          violations.push(`seed ${seed}: latest move ${lastMove.join("/")} not held`);
        }
        const order = ids(w).map(Number);
        if (order.some((n, i) => i > 0 && n < (order[i - 1] ?? 0))) violations.push(`seed ${seed}: order broken`);
      }
    }
    expect(violations).toEqual([]);
  });
});
