// A subagent's records nested under the `task` call that started it (issue 26 §4): each record
// of a child carries the call's id (`parentCallId`); the call's own row, projected from its
// `run.tool.end` after the child's records, is moved up to just before them, and every record
// gets its depth (0 for the top agent's, 1 for a child's, 2 for a grandchild's, …).
import type { TimelineItem } from "./sessionModel";

/** One row of the timeline with how deep it is nested. */
export interface NestedItem {
  item: TimelineItem;
  depth: number;
}

/** The `task` call a row stands for (its `run.tool.end`), if it is one. */
function callOf(item: TimelineItem): string | undefined {
  const source = item.source;
  return source.type === "run.tool.end" && source.payload.tool_name === "task" ? source.payload.call_id : undefined;
}

/** `items` in display order, each `task` call's row before its child's records, with depths. */
export function nestItems(items: readonly TimelineItem[]): NestedItem[] {
  const callRows = new Map<string, TimelineItem>();
  for (const item of items) {
    const call = callOf(item);
    if (call !== undefined) callRows.set(call, item);
  }
  const depthOf = (item: TimelineItem, seen: Set<string> = new Set()): number => {
    const parent = item.record.parentCallId;
    if (parent === undefined || seen.has(parent)) return 0;
    seen.add(parent);
    const row = callRows.get(parent);
    return 1 + (row === undefined ? 0 : depthOf(row, seen));
  };
  const out: NestedItem[] = [];
  const placed = new Set<TimelineItem>();
  const place = (item: TimelineItem): void => {
    if (placed.has(item)) return;
    const parent = item.record.parentCallId;
    const row = parent === undefined ? undefined : callRows.get(parent);
    if (row !== undefined && row !== item) place(row);
    placed.add(item);
    out.push({ item, depth: depthOf(item) });
  };
  for (const item of items) place(item);
  return out;
}
