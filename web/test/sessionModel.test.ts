import { describe, expect, it } from "vitest";
import type { Event } from "../src/contract";
import { SessionModel } from "../src/sessionModel";
import { snapshot } from "./golden";

const events = snapshot<Event[]>("integration__golden__events");
const upTo = (seq: number) => events.filter((e) => e.seq <= seq);

describe("session model over the golden run", () => {
  it("tracks a pending approval until it is resolved, and the plan's progress", () => {
    const model = new SessionModel();
    model.applyAll(upTo(17));
    expect([...model.approvals.keys()]).toEqual(["appr-1"]);
    expect(model.running).toBe(true);
    expect(model.plan?.status).toBe("proposed");
    model.applyAll(upTo(20));
    expect(model.approvals.size).toBe(0);
    expect(model.plan?.status).toBe("running");
    expect(model.plan?.steps.find((s) => s.status === "running")?.index).toBe(1);
    expect(model.plan?.progress?.current).toBe(1);
  });

  it("moves the FileTree node and the selection with a move event", () => {
    const model = new SessionModel();
    model.setFiles(["src/old.ts", "src/index.ts", "test/old.test.ts"]);
    model.select("src/old.ts");
    model.applyAll(upTo(23));
    expect(model.tree.files).toEqual(["src/index.ts", "src/new.ts", "test/old.test.ts"]);
    expect(model.tree.selected).toBe("src/new.ts");
  });

  it("tracks a question until it is answered, and the end of a turn", () => {
    const model = new SessionModel();
    model.applyAll(upTo(48));
    expect([...model.questions.keys()]).toEqual(["q-1"]);
    model.applyAll(upTo(58));
    expect(model.questions.size).toBe(0);
    expect(model.running).toBe(false);
    expect(model.lastResult).toBeDefined();
  });

  it("tracks a planning reply as a question until it is answered", () => {
    const model = new SessionModel();
    model.applyAll(upTo(63));
    expect(model.questions.get("call_respond")).toEqual({
      question_id: "call_respond",
      question: "Splitting touches every import; shall I plan it?",
      options: ["plan it", "stop"],
    });
    model.applyAll(upTo(64));
    expect(model.questions.size).toBe(0);
  });

  it("knows what the turn waits for until the next event", () => {
    const model = new SessionModel();
    model.applyAll(upTo(9));
    expect(model.waiting).toEqual({ kind: "waiting_for_model", message: "waiting for gpt-5-mini" });
    model.applyAll(upTo(10));
    expect(model.waiting).toBeUndefined();
  });

  it("ignores events it has already seen (resume overlap) and display-only events", () => {
    const model = new SessionModel();
    model.applyAll(upTo(30));
    const before = model.window.items().length;
    const version = model.getVersion();
    model.applyAll(upTo(30));
    expect(model.window.items().length).toBe(before);
    expect(model.getVersion()).toBe(version);
    expect(model.lastSeq).toBe(30);
  });

  it("folds the whole run into a window whose last record is the final error", () => {
    const model = new SessionModel();
    model.applyAll(events);
    const items = model.window.items();
    expect(items.at(-1)?.record.type).toBe("error");
    expect(new Set(items.map((i) => i.key)).size).toBe(items.length);
    expect(items.find((i) => i.progress)?.progress).toEqual({ current: 1, total: 2 });
  });

  it("starts over on reset", () => {
    const model = new SessionModel();
    model.applyAll(events);
    model.reset({ kind: "warn", text: "gone" });
    expect(model.lastSeq).toBe(0);
    expect(model.window.length).toBe(0);
    expect(model.notice?.text).toBe("gone");
  });

  it("drops the text a broken attempt streamed when the retry is announced", () => {
    const base = (seq: number) => ({
      id: `01a202b2-c589-7000-8000-${String(seq).padStart(12, "0")}`,
      seq,
      ts: "2026-11-22T10:00:00.000Z",
      session_id: "s",
      turn_id: "t",
      project_id: "p",
    });
    const model = new SessionModel();
    model.applyAll([
      { ...base(1), type: "agent.start", payload: { agent_name: "keel", task_input: "hi" } },
      { ...base(2), type: "run.llm.delta", payload: { text: "LLMock " } },
      {
        ...base(3),
        type: "run.llm.retry",
        payload: { attempt: 1, max_attempts: 4, delay_ms: 500, error: "the response ended before the model finished" },
      },
      { ...base(4), type: "run.llm.delta", payload: { text: "Hello" } },
    ] as Event[]);
    expect(model.liveText).toBe("Hello");
  });

  it("drops the reasoning a broken attempt streamed, and keeps the one before it", () => {
    const base = (seq: number) => ({
      id: `01a202b2-c589-7000-8000-${String(seq).padStart(12, "0")}`,
      seq,
      ts: "2026-11-22T10:00:00.000Z",
      session_id: "s",
      turn_id: "t",
      project_id: "p",
    });
    const model = new SessionModel();
    model.applyAll([
      { ...base(1), type: "agent.start", payload: { agent_name: "keel", task_input: "hi" } },
      { ...base(2), type: "run.llm.start", payload: { model: "m", iteration: 1, message_count: 2 } },
      { ...base(3), type: "run.thinking.start", payload: { agent_name: "keel" } },
      { ...base(4), type: "run.thinking.end", payload: { agent_name: "keel", result: "first call" } },
      { ...base(5), type: "run.llm.end", payload: { llm_output: "", tool_calls: [], finish_reason: "tool_calls" } },
      { ...base(6), type: "run.llm.start", payload: { model: "m", iteration: 2, message_count: 4 } },
      { ...base(7), type: "run.thinking.start", payload: { agent_name: "keel" } },
      { ...base(8), type: "run.thinking.delta", payload: { agent_name: "keel", text: "half a tho" } },
      { ...base(9), type: "run.thinking.fail", payload: { agent_name: "keel", error_message: "stream broke" } },
      { ...base(10), type: "run.llm.delta", payload: { text: "Partial" } },
      {
        ...base(11),
        type: "run.llm.retry",
        payload: { attempt: 1, max_attempts: 4, delay_ms: 500, error: "the response ended before the model finished" },
      },
      { ...base(12), type: "run.thinking.start", payload: { agent_name: "keel" } },
      { ...base(13), type: "run.thinking.end", payload: { agent_name: "keel", result: "second try" } },
      { ...base(14), type: "run.llm.delta", payload: { text: "Whole" } },
    ] as Event[]);
    expect(model.thinking.map((b) => b.text)).toEqual(["first call", "second try"]);
    expect(model.liveText).toBe("Whole");
  });
});
