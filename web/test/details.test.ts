// The details the page shows beside the timeline (thinking, command output, file changes, file
// runs, usage, context window, repo map), folded from the golden run; the plan editor's checks
// and the diff line classes.
import { describe, expect, it } from "vitest";
import type { Event } from "../src/contract";
import { draftProblem } from "../src/components/PlanEditor";
import { diffLineKind } from "../src/components/FileChanges";
import { isRunnable } from "../src/components/FileTree";
import { SessionModel } from "../src/sessionModel";
import { snapshot } from "./golden";

const events = snapshot<Event[]>("integration__golden__events");
const of = <T extends Event["type"]>(type: T) =>
  events.filter((e): e is Extract<Event, { type: T }> => e.type === type);

describe("details folded from the golden run", () => {
  const model = new SessionModel();
  model.applyAll(events);

  it("keeps each thinking block's text, ended or failed", () => {
    expect(model.thinking.length).toBe(of("run.thinking.start").length);
    expect(model.thinking.every((b) => b.done)).toBe(true);
    const ended = of("run.thinking.end")[0];
    expect(model.thinking.some((b) => b.text === ended?.payload.result)).toBe(true);
  });

  it("streams tool output per call and records how the call ended", () => {
    const outputs = of("run.tool.output");
    expect(outputs.length).toBeGreaterThan(0);
    for (const output of outputs) {
      const shown = model.outputs.get(output.payload.call_id);
      expect(shown?.text).toContain(output.payload.content);
    }
    const ended = of("run.tool.end").filter((e) => model.outputs.has(e.payload.call_id));
    for (const end of ended) expect(model.outputs.get(end.payload.call_id)?.status).toBe(end.payload.status);
  });

  it("lists every file change with its diff", () => {
    expect(model.changes.map((c) => c.change)).toEqual(of("run.file.change").map((e) => e.payload));
  });

  it("follows a file run from start to exit, stdout and stderr apart", () => {
    const start = of("exec.file.start")[0];
    const run = start && model.fileRuns.get(start.payload.run_id);
    expect(run?.command).toEqual(start?.payload.command);
    const stdout = of("exec.file.stdout").map((e) => e.payload.content).join("");
    const stderr = of("exec.file.stderr").map((e) => e.payload.content).join("");
    expect(run?.output.filter((p) => p.stream === "stdout").map((p) => p.text).join("")).toBe(stdout);
    expect(run?.output.filter((p) => p.stream === "stderr").map((p) => p.text).join("")).toBe(stderr);
    expect(run?.exit).toEqual(of("exec.file.exit")[0]?.payload);
  });

  it("gives each ended tool call row the arguments its start carried (for the action text)", () => {
    const rows = model.window.items().filter((i) => i.record.type === "tool_call");
    const withCall = rows.filter((i) => i.call);
    expect(withCall.length).toBeGreaterThan(0);
    const starts = new Map(of("run.tool.start").map((e) => [e.payload.tool_name, e.payload.arguments]));
    for (const row of withCall) expect(starts.has(row.call?.name ?? "")).toBe(true);
  });

  it("sums the session's own calls apart from the turns' (issue 28 §4)", () => {
    const fresh = new SessionModel();
    const report = of("run.usage.report")[0];
    if (!report) throw new Error("the golden run has a usage report");
    fresh.applyAll([
      report,
      { ...report, seq: report.seq + 1000, turn_id: undefined, payload: { ...report.payload, purpose: "memory_distill", cost_usd: 0.5 } },
      { ...report, seq: report.seq + 1001, turn_id: undefined, payload: { ...report.payload, purpose: "memory_distill", cost_usd: undefined } },
    ] as Event[]);
    expect(fresh.sessionCalls).toEqual({
      calls: 2,
      prompt: 2 * report.payload.prompt_tokens,
      completion: 2 * report.payload.completion_tokens,
      cost: 0.5,
    });
    expect(model.sessionCalls).toBeUndefined();
  });

  it("keeps the top agent's latest usage, context window and repo map", () => {
    // A subagent's report (its `parent_call_id` set) counts only its own calls.
    const own = of("run.usage.report").filter((e) => e.parent_call_id === undefined);
    expect(own.length).toBeLessThan(of("run.usage.report").length);
    expect(model.usage).toEqual(own.at(-1)?.payload);
    expect(model.contextWindow).toEqual(of("run.context.window").at(-1)?.payload);
    expect(model.repomap).toEqual(of("prepare.repomap.build").at(-1)?.payload);
  });

  it("keeps the proposed plan with its descriptions for the editor", () => {
    const last = [...of("run.plan.create"), ...of("run.plan.modify")].sort((a, b) => a.seq - b.seq).at(-1);
    expect(model.proposedPlan).toEqual(last?.payload.plan);
  });

  it("forgets the details on reset", () => {
    const fresh = new SessionModel();
    fresh.applyAll(events);
    fresh.reset();
    expect([fresh.thinking.length, fresh.outputs.size, fresh.changes.length, fresh.fileRuns.size]).toEqual([0, 0, 0, 0]);
    expect([fresh.usage, fresh.contextWindow, fresh.repomap, fresh.proposedPlan]).toEqual([undefined, undefined, undefined, undefined]);
  });
});

describe("change notifications", () => {
  it("are coalesced: a burst of events notifies once, after the burst", async () => {
    const model = new SessionModel();
    let calls = 0;
    model.subscribe(() => calls++);
    const before = model.getVersion();
    for (const event of events.slice(0, 50)) model.apply(event);
    expect(model.getVersion()).toBeGreaterThan(before);
    expect(calls).toBe(0);
    await new Promise((r) => setTimeout(r, 5));
    expect(calls).toBe(1);
  });
});

describe("the plan editor's checks", () => {
  it("refuses an empty goal, no steps and an untitled step", () => {
    expect(draftProblem(" ", [{ title: "a" }])).toBe("plan-edit-error-goal");
    expect(draftProblem("g", [])).toBe("plan-edit-error-no-steps");
    expect(draftProblem("g", [{ title: "a" }, { title: "  " }])).toBe("plan-edit-error-title");
    expect(draftProblem("g", [{ title: "a" }])).toBeUndefined();
  });
});

describe("small view helpers", () => {
  it("classes unified diff lines", () => {
    expect(["--- a/x", "+++ b/x", "@@ -1 +1 @@", "+new", "-old", " same"].map(diffLineKind)).toEqual([
      "meta",
      "meta",
      "hunk",
      "add",
      "del",
      "ctx",
    ]);
  });

  it("offers to run scripts only", () => {
    expect(["run.py", "a/b.sh", "x.MJS"].every(isRunnable)).toBe(true);
    expect(["README.md", "data.json", "Makefile"].some(isRunnable)).toBe(false);
  });
});
