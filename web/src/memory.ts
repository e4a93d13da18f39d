// The project's memory as the page lists it: newest first, narrowed by kind and by words.
import type { Schemas } from "../../clients/ts/src/client";

/** One entry of `GET /v1/sessions/{id}/memory`. */
export type MemoryEntry = Schemas["MemoryEntryView"];
/** `GET /v1/sessions/{id}/memory`. */
export type MemoryList = Schemas["MemoryList"];

/** The kinds an entry can be, in the order memory shows them. */
export const MEMORY_KINDS = ["convention", "decision", "fact"] as const;

/** What the list is narrowed to: a kind (`""`: every kind) and words each entry must contain
 * (in its text, tags or id; case ignored). */
export interface MemoryFilter {
  kind: string;
  words: string;
}

/** The entries that pass `filter`, the one recorded (or confirmed) last first: the file keeps
 * them in the order they were last recorded. */
export function shownEntries(entries: readonly MemoryEntry[], filter: MemoryFilter): MemoryEntry[] {
  const words = filter.words.toLowerCase().split(/\s+/).filter(Boolean);
  return entries
    .filter((entry) => {
      if (filter.kind && entry.kind !== filter.kind) return false;
      const haystack = [entry.text, entry.id, ...(entry.tags ?? [])].join(" ").toLowerCase();
      return words.every((word) => haystack.includes(word));
    })
    .reverse();
}

/** How many entries there are of each kind. */
export function kindCounts(entries: readonly MemoryEntry[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entry of entries) counts[entry.kind] = (counts[entry.kind] ?? 0) + 1;
  return counts;
}
