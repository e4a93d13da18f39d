// The page words timeline rows from their events in both languages: over every record of the
// golden run, a record made of the event's fields gets the catalogue's words (no message id
// shows, Chinese rows are Chinese), English matches the projection's own text, and every code
// the rows turn into words (phases, file ops, repair results) has one in every language.
import { describe, expect, it } from "vitest";
import type { Event } from "../src/contract";
import { LOCALES, messages } from "../src/i18n";
import { toTimelineAll } from "../src/timeline";
import { timelineText } from "../src/timelineText";
import { snapshot } from "./golden";

const events = snapshot<Event[]>("integration__golden__events");
const HAN = /\p{Script=Han}/u;

function rows(locale: (typeof LOCALES)[number]) {
  const m = messages(locale);
  return events.flatMap((event) =>
    toTimelineAll(event).map((record) => ({ event, record, text: timelineText(m, event, record) })),
  );
}

describe("timeline rows in the page's language", () => {
  it("say in English what the projection says", () => {
    const worded = rows("en").filter((row) => row.text !== undefined);
    expect(worded.length).toBeGreaterThan(15);
    for (const { record, text } of worded) {
      const own = record.type === "log" ? record.payload.message : record.type === "agent_phase" ? (record.payload.summary ?? "") : "";
      // The projection writes the same words, except where the page names a code in words.
      if (record.type === "log" && /^(Memory updated|Rewound|Task max_iterations|Subagent \S+ max_iterations)/.test(own)) continue;
      // Numbers get the language's separators (the projection writes bare digits).
      expect(text?.replace(/(\d),(?=\d{3})/g, "$1"), own).toBe(own);
    }
  });

  it("say in Chinese every row the events' fields make, with no message id left", () => {
    const worded = rows("zh-CN").filter((row) => row.text !== undefined);
    expect(worded.length).toBe(rows("en").filter((row) => row.text !== undefined).length);
    for (const { event, text } of worded) {
      expect(text, event.type).not.toMatch(/^[a-z]+(-[a-z_]+)+$/);
      expect(HAN.test(text ?? ""), `${event.type}: ${text}`).toBe(true);
    }
  });

  it("has words for every code a row shows, in every language", () => {
    const codes = [
      ...["planner", "coder", "reviewer", "debugger"].map((c) => `phase-${c}`),
      "phase-enter",
      "phase-exit",
      ...["create", "update", "delete", "move"].map((c) => `timeline-op-${c}`),
      ...["pending", "success", "failed"].map((c) => `repair-result-${c}`),
      ...["completed", "failed", "cancelled", "max_iterations"].map((c) => `timeline-task-${c}`),
      ...["approve", "reject", "modify"].map((c) => `timeline-approval-${c}`),
      ...["remember", "distill"].map((c) => `timeline-memory-${c}`),
      ...["files", "conversation", "both"].map((c) => `rewind-scope-${c}`),
      ...["waiting_for_model", "waiting_for_approval", "waiting_for_answer", "indexing"].map((c) => `waiting-${c}`),
      ...["idle", "running", "completed", "failed", "cancelled"].map((c) => `session-status-${c}`),
      ...["auto", "direct", "plan"].map((c) => `mode-${c}`),
      ...["command", "plan", "tool"].map((c) => `approval-kind-${c}`),
    ];
    for (const locale of LOCALES) {
      const m = messages(locale);
      for (const id of codes) expect(m.has(id), `${locale} lacks ${id}`).toBe(true);
      expect(m.word("mode-", "unheard-of")).toBe("unheard-of");
    }
  });

  it("write numbers and times the language's way", () => {
    expect(messages("en").number(1234567)).toBe("1,234,567");
    expect(messages("zh-CN").number(1234567)).toBe("1,234,567");
    expect(messages("en").time("2026-11-22T10:00:00.000Z")).toMatch(/^\d\d:\d\d:\d\d$/);
    expect(messages("en").time("not a time")).toBe("");
    expect(messages("zh-CN").dateTime("2026-11-22T10:00:00.000Z")).toMatch(/2026年11月2\d日/);
    expect(messages("en").dateTime("garbage")).toBe("garbage");
  });
});
