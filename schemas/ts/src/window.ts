// Seed 003 §7.3: the page's bounded timeline, which never cuts a move in half.
// A port of crates/events/src/projection/window.rs (same rules, same results):
// - keeps the newest `capacity` (100) records in arrival order;
// - a move half (a successful `move_file` tool_call with both paths, or a file_update with
//   op=move and both paths) pairs with the nearest earlier unpaired opposite half of the same
//   task and paths;
// - eviction drops the oldest record together with its partner, and never drops the latest
//   pair nor the newest unpaired half that arrived after it (the move in progress).
import type { TimelineEvent } from "./contract.js";

/** How many records a window keeps by default (seed 003 §7.3). */
export const WINDOW_CAPACITY = 100;

/** Which half of a move a record is. */
export type MoveHalf = "call" | "update";

/** The half of a move `record` is, with its paths, or `undefined` for any other record. */
export function moveHalf(record: TimelineEvent): [MoveHalf, string, string] | undefined {
  if (record.type === "tool_call") {
    const p = record.payload;
    if (p.toolName === "move_file" && p.success && p.fromPath !== undefined && p.toPath !== undefined) {
      return ["call", p.fromPath, p.toPath];
    }
  } else if (record.type === "file_update") {
    const p = record.payload;
    if (p.op === "move" && p.fromPath !== undefined && p.toPath !== undefined) {
      return ["update", p.fromPath, p.toPath];
    }
  }
  return undefined;
}

interface Slot<T> {
  serial: number;
  partner: number | undefined;
  item: T;
}

/** The newest timeline items, never holding half of a completed move. */
export class TimelineWindow<T = TimelineEvent> {
  readonly capacity: number;
  private nextSerial = 0;
  private latestPair: [number, number] | undefined;
  private pending: number | undefined;
  private slots: Slot<T>[] = [];

  /**
   * @param capacity most items held (at least 3, so the latest move and a half in progress fit)
   * @param recordOf the timeline record an item carries
   */
  constructor(
    capacity = WINDOW_CAPACITY,
    private readonly recordOf: (item: T) => TimelineEvent = (item) => item as unknown as TimelineEvent,
  ) {
    this.capacity = Math.max(3, capacity);
  }

  /** Items held. */
  get length(): number {
    return this.slots.length;
  }

  /** The items, oldest first. */
  items(): T[] {
    return this.slots.map((slot) => slot.item);
  }

  /** The two halves of the latest move, in arrival order. */
  latestMove(): [T, T] | undefined {
    if (this.latestPair === undefined) return undefined;
    const a = this.slot(this.latestPair[0]);
    const b = this.slot(this.latestPair[1]);
    return a && b ? [a.item, b.item] : undefined;
  }

  /** Whether the item at `index` (oldest first) is one half of a pair held in the window. */
  isPaired(index: number): boolean {
    return this.slots[index]?.partner !== undefined;
  }

  /** Adds the newest item, pairing it if it is a move half, and evicts down to capacity. */
  push(item: T): void {
    const serial = this.nextSerial++;
    const record = this.recordOf(item);
    const partner = this.findPartner(record);
    if (partner !== undefined) {
      const slot = this.slot(partner);
      if (slot) slot.partner = serial;
      this.latestPair = [partner, serial];
      this.pending = undefined;
    } else if (moveHalf(record) !== undefined) {
      this.pending = serial;
    }
    this.slots.push({ serial, partner, item });
    this.evict();
  }

  /** Empties the window. */
  clear(): void {
    this.slots = [];
    this.latestPair = undefined;
    this.pending = undefined;
  }

  private slot(serial: number): Slot<T> | undefined {
    return this.slots.find((s) => s.serial === serial);
  }

  private findPartner(record: TimelineEvent): number | undefined {
    const half = moveHalf(record);
    if (half === undefined) return undefined;
    const [kind, from, to] = half;
    for (let i = this.slots.length - 1; i >= 0; i--) {
      const slot = this.slots[i];
      if (slot === undefined || slot.partner !== undefined) continue;
      const other = this.recordOf(slot.item);
      if (other.taskId !== record.taskId) continue;
      const h = moveHalf(other);
      if (h !== undefined && h[0] !== kind && h[1] === from && h[2] === to) return slot.serial;
    }
    return undefined;
  }

  private evict(): void {
    const latest = this.latestPair;
    const pending = this.pending;
    const isProtected = (serial: number) =>
      (latest !== undefined && (serial === latest[0] || serial === latest[1])) || pending === serial;
    while (this.slots.length > this.capacity) {
      const index = this.slots.findIndex((slot) => !isProtected(slot.serial));
      if (index < 0) return;
      const [evicted] = this.slots.splice(index, 1);
      if (evicted?.partner !== undefined) {
        const partner = evicted.partner;
        this.slots = this.slots.filter((slot) => slot.serial !== partner);
      }
    }
  }
}
