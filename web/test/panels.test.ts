// The model and wording behind the shadow, memory, MCP and approval panels.
import { describe, expect, it } from "vitest";
import { offersAlways, rulesByFile, type RuleView } from "../src/approval";
import { messages } from "../src/i18n";
import { byAttention, stateCounts, toolCounts, type McpServer } from "../src/mcp";
import { kindCounts, shownEntries, type MemoryEntry } from "../src/memory";
import { SessionModel } from "../src/sessionModel";
import {
  appliedMessage,
  batchTotals,
  changeTitle,
  chosenPaths,
  discardedMessage,
  type ShadowBatch,
} from "../src/shadow";
import type { Event } from "../src/contract";

const batch: ShadowBatch = {
  session: "s1",
  diff: "",
  changes: [
    { path: "a.txt", kind: "created", lines_added: 3, lines_removed: 0, diff: "+a\n" },
    { path: "b.txt", kind: "updated", lines_added: 1, lines_removed: 2 },
    { path: "docs/new.md", kind: "moved", from: "docs/old.md", lines_added: 0, lines_removed: 0 },
  ],
};

describe("shadow batch", () => {
  it("names a move from → to and totals the lines", () => {
    expect(batch.changes.map(changeTitle)).toEqual(["a.txt", "b.txt", "docs/old.md → docs/new.md"]);
    expect(batchTotals(batch)).toEqual({ files: 3, added: 4, removed: 2 });
  });

  it("sends no paths for the whole batch, else the chosen ones in batch order", () => {
    expect(chosenPaths(batch, new Set())).toBeUndefined();
    expect(chosenPaths(batch, new Set(["b.txt", "not-staged.txt"]))).toEqual(["a.txt", "docs/new.md"]);
    expect(chosenPaths(batch, new Set(["a.txt", "b.txt", "docs/new.md"]))).toEqual([]);
  });

  it("says what an apply did, conflicts named with their reason, in both languages", () => {
    const clean = appliedMessage({ session: "s1", applied: ["a.txt", "b.txt"], conflicts: [], remaining: [], closed: true });
    expect(messages("en").t(clean.id, clean.args)).toBe("Applied 2 files to the real tree; 0 still staged.");
    expect(messages("zh-CN").t(clean.id, clean.args)).toBe("已将 2 个文件应用到真实目录；仍有 0 个暂存。");
    const conflicted = appliedMessage({
      session: "s1",
      applied: ["a.txt"],
      conflicts: [{ path: "b.txt", reason: "changed on disk" }],
      remaining: ["b.txt"],
      closed: false,
    });
    expect(messages("en").t(conflicted.id, conflicted.args)).toBe(
      "Applied 1 file; 1 conflict left staged (the real file changed since the agent saw it): b.txt: changed on disk",
    );
  });

  it("says what a discard did", () => {
    const all = discardedMessage({ session: "s1", discarded: true, remaining: [], closed: true });
    expect(messages("en").t(all.id, all.args)).toBe("Discarded every staged change.");
    const some = discardedMessage({ session: "s1", discarded: true, paths: ["a.txt"], remaining: ["b.txt", "c"], closed: false });
    expect(messages("en").t(some.id, some.args)).toBe("Discarded 1 staged change; 2 still staged.");
    expect(messages("zh-CN").has(some.id) && messages("zh-CN").has(all.id)).toBe(true);
  });
});

const entry = (id: string, kind: string, text: string, tags: string[] = []): MemoryEntry => ({ id, kind, text, tags });
const memory = [
  entry("mem_1", "convention", "Tests run with python -m unittest", ["testing"]),
  entry("mem_2", "decision", "Results are rounded to two decimals"),
  entry("mem_3", "fact", "calc/ holds the library code", ["layout"]),
];

describe("project memory", () => {
  it("lists the entry recorded last first", () => {
    expect(shownEntries(memory, { kind: "", words: "" }).map((e) => e.id)).toEqual(["mem_3", "mem_2", "mem_1"]);
  });

  it("narrows by kind and by every word, in text, tags or id, case ignored", () => {
    expect(shownEntries(memory, { kind: "fact", words: "" }).map((e) => e.id)).toEqual(["mem_3"]);
    expect(shownEntries(memory, { kind: "", words: "TESTING" }).map((e) => e.id)).toEqual(["mem_1"]);
    expect(shownEntries(memory, { kind: "", words: "two decimals" }).map((e) => e.id)).toEqual(["mem_2"]);
    expect(shownEntries(memory, { kind: "", words: "two library" })).toEqual([]);
    expect(shownEntries(memory, { kind: "decision", words: "library" })).toEqual([]);
    expect(shownEntries(memory, { kind: "", words: "mem_2" }).map((e) => e.id)).toEqual(["mem_2"]);
  });

  it("counts entries per kind and has a word for each kind in both languages", () => {
    expect(kindCounts(memory)).toEqual({ convention: 1, decision: 1, fact: 1 });
    for (const kind of ["fact", "convention", "decision"]) {
      expect(messages("en").has(`memory-kind-${kind}`)).toBe(true);
      expect(messages("zh-CN").word("memory-kind-", kind)).not.toBe(kind);
    }
  });
});

const server = (name: string, state: string, tools: { name: string; offered_as?: string }[] = [], reason?: string): McpServer => ({
  name,
  state,
  transport: `${name}-cmd`,
  tools: tools.map((t) => ({ description: "", ...t })),
  ...(reason ? { reason } : {}),
});

describe("MCP servers", () => {
  it("puts failed servers first, then running, stopped, disabled, by name", () => {
    const list = [server("b", "running"), server("z", "disabled"), server("a", "stopped"), server("y", "failed", [], "no such command"), server("c", "running")];
    expect(byAttention(list).map((s) => s.name)).toEqual(["y", "b", "c", "a", "z"]);
    expect(stateCounts(list)).toEqual({ running: 2, disabled: 1, stopped: 1, failed: 1 });
  });

  it("counts the tools offered to the model apart from those filtered out", () => {
    const s = server("fs", "running", [{ name: "read", offered_as: "mcp__fs__read" }, { name: "write" }]);
    expect(toolCounts(s)).toEqual({ offered: 1, total: 2 });
    expect(messages("en").t("mcp-tools-offered", { offered: 1, count: 2 })).toBe("1 of 2 tools offered");
    for (const state of ["running", "failed", "stopped", "disabled"]) {
      expect(messages("zh-CN").word("mcp-state-", state)).not.toBe(state);
    }
  });
});

describe("approval choices", () => {
  it("offers always for commands and tool calls, not plans", () => {
    expect(offersAlways("command")).toBe(true);
    expect(offersAlways("tool")).toBe(true);
    expect(offersAlways("plan")).toBe(false);
  });

  it("groups the rules an always wrote by file", () => {
    const rule = (file: string, summary: string): RuleView => ({
      scope: "project",
      file,
      index: 1,
      line: 1,
      decision: "allow",
      override_safety: false,
      summary,
    });
    expect(rulesByFile([rule("/p/.keel/rules.toml", "allow git status"), rule("/p/.keel/rules.toml", "allow ls"), rule("/u/rules.toml", "allow make")])).toEqual([
      { file: "/p/.keel/rules.toml", rules: ["allow git status", "allow ls"] },
      { file: "/u/rules.toml", rules: ["allow make"] },
    ]);
    expect(messages("en").t("always-rules", { count: 1 })).toBe("Always allowed: 1 rule written.");
  });
});

describe("memory updates in the session model", () => {
  it("counts run.memory.update events so the memory panel reloads", () => {
    const model = new SessionModel();
    const update = {
      type: "run.memory.update",
      seq: 1,
      payload: { source: "remember", entries: [] },
    } as unknown as Event;
    const before = model.memoryUpdates;
    model.apply(update);
    expect(model.memoryUpdates).toBe(before + 1);
    model.apply(update);
    expect(model.memoryUpdates).toBe(before + 1);
  });
});
