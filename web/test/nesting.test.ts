// A subagent's records nested under its task call, over the golden run (its `call_10`).
import { describe, expect, it } from "vitest";
import type { Event } from "../src/contract";
import { nestItems } from "../src/nesting";
import { SessionModel } from "../src/sessionModel";
import { snapshot } from "./golden";

const events = snapshot<Event[]>("integration__golden__events");

describe("subagent nesting", () => {
  it("puts the task call's row first and its child's records under it", () => {
    const model = new SessionModel();
    model.applyAll(events);
    const nested = nestItems(model.window.items());
    const task = nested.findIndex(({ item }) => item.source.type === "run.tool.end" && item.source.payload.call_id === "call_10");
    expect(task).toBeGreaterThanOrEqual(0);
    expect(nested[task].depth).toBe(0);
    const children = nested.filter(({ item }) => item.record.parentCallId === "call_10");
    expect(children.map(({ item }) => item.source.type)).toEqual(["run.subagent.start", "run.tool.end", "run.subagent.end"]);
    expect(children.every(({ depth }) => depth === 1)).toBe(true);
    // The children follow the call's row at once, before anything else.
    expect(nested.slice(task + 1, task + 4).map(({ item }) => item.record.parentCallId)).toEqual(["call_10", "call_10", "call_10"]);
    // Nothing is lost or repeated.
    expect(nested.length).toBe(model.window.items().length);
    // The usage bar shows the session's total, not the child's own (940 tokens).
    expect(model.usage?.total_tokens).not.toBe(940);
  });

  it("nests a grandchild twice and keeps a child whose call row left the window", () => {
    const model = new SessionModel();
    model.applyAll(events);
    const all = model.window.items();
    const child = all.find(({ record }) => record.parentCallId === "call_10")!;
    const grandchild = { ...child, key: "g", record: { ...child.record, id: "g", parentCallId: "call_11" } };
    const innerCall = all.find(({ source }) => source.type === "run.tool.end" && source.payload.call_id === "call_10")!;
    const innerRow = {
      ...innerCall,
      key: "inner",
      record: { ...innerCall.record, id: "inner", parentCallId: "call_10" },
      source: { ...innerCall.source, payload: { ...(innerCall.source.payload as object), call_id: "call_11" } } as Event,
    };
    const nested = nestItems([child, grandchild, innerRow, innerCall]);
    expect(nested.map(({ item, depth }) => [item.key, depth])).toEqual([
      [innerCall.key, 0],
      [child.key, 1],
      ["inner", 1],
      ["g", 2],
    ]);
    expect(nestItems([child]).map(({ depth }) => depth)).toEqual([1]);
  });

  it("groups parallel children's interleaved records under their own calls", () => {
    const model = new SessionModel();
    model.applyAll(events);
    const all = model.window.items();
    const child = all.find(({ record }) => record.parentCallId === "call_10")!;
    const call = all.find(({ source }) => source.type === "run.tool.end" && source.payload.call_id === "call_10")!;
    const other = (key: string, parent: string) => ({ ...child, key, record: { ...child.record, id: key, parentCallId: parent } });
    const otherCall = {
      ...call,
      key: "call_b",
      record: { ...call.record, id: "call_b" },
      source: { ...call.source, payload: { ...(call.source.payload as object), call_id: "b" } } as Event,
    };
    // In time: a1, b1, a2, b2, then the two calls' rows.
    const a1 = other("a1", "call_10");
    const b1 = other("b1", "b");
    const a2 = other("a2", "call_10");
    const b2 = other("b2", "b");
    const nested = nestItems([a1, b1, a2, b2, call, otherCall]);
    expect(nested.map(({ item, depth }) => [item.key, depth])).toEqual([
      [call.key, 0],
      ["a1", 1],
      ["a2", 1],
      ["call_b", 0],
      ["b1", 1],
      ["b2", 1],
    ]);
  });
});
