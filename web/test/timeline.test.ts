import { describe, expect, it } from "vitest";
import type { Event, TimelineEvent } from "../src/contract";
import { phaseId, toTimeline, toTimelineAll } from "../src/timeline";
import { TimelineWindow } from "../src/window";
import { snapshot } from "./golden";

const events = snapshot<Event[]>("integration__golden__events");

function base(seq: number) {
  return {
    id: `01a202b2-c589-7000-8000-${String(seq).padStart(12, "0")}`,
    seq,
    ts: "2026-11-22T10:00:00.000Z",
    session_id: "s",
    turn_id: "t",
    project_id: "p",
  };
}

describe("event → timeline mapping", () => {
  it("matches the Rust projection on every event of the golden run", () => {
    const golden = snapshot<{ seq: number; from: string; timeline: TimelineEvent | null }[]>("integration__golden__timeline");
    expect(events.length).toBe(golden.length);
    events.forEach((event, i) => {
      expect({ seq: event.seq, from: event.type, timeline: toTimeline(event) ?? null }).toEqual(golden[i]);
    });
  });

  it("matches the Rust window over to_timeline_all records", () => {
    const golden = snapshot<TimelineEvent[]>("integration__golden__timeline_window");
    const window = new TimelineWindow();
    for (const event of events) for (const record of toTimelineAll(event)) window.push(record);
    expect(window.items()).toEqual(golden);
  });

  it("covers all six timeline types in the golden run", () => {
    const types = new Set(events.flatMap((e) => toTimelineAll(e).map((r) => r.type)));
    expect([...types].sort()).toEqual(["agent_phase", "error", "file_update", "log", "self_repair", "tool_call"]);
  });

  it("maps move_file to a tool_call with from → to and a file_update with op move", () => {
    const call = toTimeline({
      ...base(1),
      type: "run.tool.end",
      payload: {
        call_id: "c",
        tool_name: "move_file",
        status: "success",
        result: "moved",
        duration_ms: 3,
        args_summary: "ignored",
        result_summary: "文件已移动",
        from_path: "src/old.ts",
        to_path: "src/new.ts",
      },
    });
    expect(call).toEqual({
      id: base(1).id,
      timestamp: "2026-11-22T10:00:00.000Z",
      taskId: "t",
      projectId: "p",
      type: "tool_call",
      payload: {
        toolName: "move_file",
        argsSummary: "src/old.ts → src/new.ts",
        resultSummary: "文件已移动",
        success: true,
        duration: 3,
        fromPath: "src/old.ts",
        toPath: "src/new.ts",
      },
    });
    const update = toTimeline({
      ...base(2),
      type: "run.file.change",
      payload: {
        path: "src/new.ts",
        op: "move",
        from_path: "src/old.ts",
        to_path: "src/new.ts",
        summary: "移动文件 src/old.ts → src/new.ts",
        lines_added: 0,
        lines_removed: 0,
      },
    });
    expect(update?.type).toBe("file_update");
    expect(update?.payload).toEqual({
      path: "src/new.ts",
      op: "move",
      summary: "移动文件 src/old.ts → src/new.ts",
      fromPath: "src/old.ts",
      toPath: "src/new.ts",
    });
  });

  it("drops from/to paths of a non-move file change and a zero duration", () => {
    const update = toTimeline({
      ...base(3),
      type: "run.file.change",
      payload: { path: "a.txt", op: "update", from_path: "x", to_path: "y", summary: "", lines_added: 1, lines_removed: 0, size: 10 },
    });
    expect(update?.payload).toEqual({ path: "a.txt", op: "update", fileSize: 10 });
    const call = toTimeline({
      ...base(4),
      type: "run.tool.end",
      payload: { call_id: "c", tool_name: "read_file", status: "error", result: "", duration_ms: 0, args_summary: "a.txt", result_summary: "" },
    });
    expect(call?.payload).toEqual({ toolName: "read_file", argsSummary: "a.txt", success: false });
  });

  it("wraps a first and a final repair attempt in debugger phase records with a v8 id", () => {
    const attempt = (seq: number, n: number, result: "pending" | "success" | "failed"): Event => ({
      ...base(seq),
      type: "run.repair.attempt",
      payload: { attempt_number: n, max_attempts: 3, trigger: "tests failed", result },
    });
    const first = toTimelineAll(attempt(5, 1, "pending"));
    expect(first.map((r) => r.type)).toEqual(["agent_phase", "self_repair"]);
    expect(first[0]?.id).toBe(phaseId(base(5).id));
    expect(first[0]?.id.charAt(14)).toBe("8");
    expect(first[0]?.payload).toEqual({ phase: "debugger", action: "enter", summary: "Repair attempt 1/3: tests failed" });
    expect(toTimelineAll(attempt(6, 2, "failed")).map((r) => r.type)).toEqual(["self_repair"]);
    expect(toTimelineAll(attempt(7, 3, "failed")).map((r) => r.type)).toEqual(["self_repair", "agent_phase"]);
    expect(toTimelineAll(attempt(8, 2, "success")).map((r) => r.type)).toEqual(["self_repair", "agent_phase"]);
  });

  it("maps steps to log records inside the coder phase and errors to red error records", () => {
    const step = toTimeline({
      ...base(9),
      type: "run.step.start",
      payload: { step_id: 2, title: "Move it", description: "", progress: { current: 2, total: 3 } },
    });
    expect(step?.type).toBe("log");
    expect(step?.payload).toEqual({ level: "info", message: "Step 2/3: Move it", metadata: { stepId: 2 } });
    const error = toTimeline({
      ...base(10),
      type: "system.error",
      payload: { error: "boom", error_type: "provider", recoverable: true },
    });
    expect(error?.type).toBe("error");
    expect(error?.payload).toEqual({ errorType: "provider", message: "boom", recoverable: true });
    expect(toTimeline({ ...base(11), type: "run.llm.delta", payload: { text: "hi" } })).toBeUndefined();
  });
});
