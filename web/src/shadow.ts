// A shadow session's staged batch as the page shows it: what each change is called, the
// batch's totals, which paths an action covers, and what an apply or discard reported.
import type { Schemas } from "../../clients/ts/src/client";

/** `GET /v1/sessions/{id}/shadow`: the staged batch. */
export type ShadowBatch = Schemas["ShadowBatchView"];
/** One staged path of the batch. */
export type StagedChange = ShadowBatch["changes"][number];
/** `POST …/shadow/apply`'s answer. */
export type ShadowApplied = Schemas["ShadowApplyView"];
/** `POST …/shadow/discard`'s answer. */
export type ShadowDiscarded = Schemas["ShadowDiscarded"];

/** A message of the catalogue with its arguments. */
export interface Said {
  id: string;
  args: Record<string, string | number>;
}

/** The path a change is shown as: `from → to` for a move. */
export function changeTitle(change: StagedChange): string {
  return change.kind === "moved" && change.from ? `${change.from} → ${change.path}` : change.path;
}

/** Files staged, and the lines they add and remove. */
export function batchTotals(batch: ShadowBatch): { files: number; added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const change of batch.changes) {
    added += change.lines_added;
    removed += change.lines_removed;
  }
  return { files: batch.changes.length, added, removed };
}

/** The paths an action covers: `undefined` (the whole batch, which the routes take as no
 * `paths`) when none of the batch's paths is left out, else the chosen ones in batch order. */
export function chosenPaths(batch: ShadowBatch, leftOut: ReadonlySet<string>): string[] | undefined {
  const chosen = batch.changes.map((c) => c.path).filter((path) => !leftOut.has(path));
  return chosen.length === batch.changes.length ? undefined : chosen;
}

/** What an apply did: the paths written, and each conflict (never overwritten, still staged). */
export function appliedMessage(report: ShadowApplied): Said {
  if (report.conflicts.length === 0) {
    return { id: "shadow-applied", args: { count: report.applied.length, remaining: report.remaining.length } };
  }
  return {
    id: "shadow-applied-conflicts",
    args: {
      count: report.applied.length,
      conflicts: report.conflicts.length,
      detail: report.conflicts.map((c) => `${c.path}: ${c.reason}`).join("; "),
    },
  };
}

/** What a discard did: everything, or the paths asked for (and how many remain staged). */
export function discardedMessage(report: ShadowDiscarded): Said {
  if (report.paths === undefined || report.paths === null) return { id: "shadow-discarded-all", args: {} };
  return { id: "shadow-discarded", args: { count: report.paths.length, remaining: report.remaining?.length ?? 0 } };
}
