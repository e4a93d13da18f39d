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

/** `items` in display order, each `task` call's row followed by all its child's records (a
 * grandchild's under its own call's row), with depths. Parallel children's records, interleaved
 * in time, are grouped by call; a call's row takes the place of its earliest record. */
export function nestItems(items: readonly TimelineItem[]): NestedItem[] {
  const callRows = new Map<string, TimelineItem>();
  for (const item of items) {
    const call = callOf(item);
    if (call !== undefined) callRows.set(call, item);
  }
  const children = new Map<string, TimelineItem[]>();
  const roots: TimelineItem[] = [];
  for (const item of items) {
    const parent = item.record.parentCallId;
    if (parent !== undefined && callRows.has(parent) && callRows.get(parent) !== item) {
      const list = children.get(parent) ?? [];
      list.push(item);
      children.set(parent, list);
    } else {
      roots.push(item);
    }
  }
  const index = new Map(items.map((item, i) => [item, i]));
  const first = new Map<TimelineItem, number>();
  const firstOf = (item: TimelineItem, seen: Set<TimelineItem> = new Set()): number => {
    const known = first.get(item);
    if (known !== undefined) return known;
    seen.add(item);
    let min = index.get(item) ?? 0;
    const call = callOf(item);
    for (const child of call === undefined ? [] : (children.get(call) ?? [])) {
      if (!seen.has(child)) min = Math.min(min, firstOf(child, seen));
    }
    first.set(item, min);
    return min;
  };
  // A record whose call's row left the window keeps the depth its chain of calls gives it.
  const depthOf = (item: TimelineItem): number => {
    let depth = 0;
    const seen = new Set<string>();
    for (let parent = item.record.parentCallId; parent !== undefined && !seen.has(parent); ) {
      seen.add(parent);
      depth += 1;
      parent = callRows.get(parent)?.record.parentCallId;
    }
    return depth;
  };
  const out: NestedItem[] = [];
  const placed = new Set<TimelineItem>();
  const place = (item: TimelineItem, depth: number): void => {
    if (placed.has(item)) return;
    placed.add(item);
    out.push({ item, depth });
    const call = callOf(item);
    const kids = call === undefined ? [] : (children.get(call) ?? []);
    for (const child of [...kids].sort((a, b) => firstOf(a) - firstOf(b))) place(child, depth + 1);
  };
  const ordered = roots.map((item) => ({ item, at: firstOf(item) })).sort((a, b) => a.at - b.at);
  for (const { item } of ordered) place(item, depthOf(item));
  return out;
}
