/**
 * Human-readable duration for build reports.
 *
 * `ms` is a duration in milliseconds.
 * - Negative, NaN or infinite input throws a `RangeError`.
 * - Under one second: whole milliseconds, e.g. `"0ms"`, `"250ms"`
 *   (fractions of a millisecond are rounded down).
 * - Under one minute: seconds with one decimal, e.g. `"1.0s"`, `"12.3s"`
 *   (rounded down to the tenth, so 59999 ms is `"59.9s"`).
 * - Under one hour: `"<m>m <ss>s"` with whole seconds (rounded down) padded
 *   to two digits, e.g. `"1m 04s"`, `"59m 59s"`.
 * - Otherwise: `"<h>h <mm>m"` with whole minutes (rounded down) padded to two
 *   digits, e.g. `"1h 00m"`, `"26h 05m"`.
 */
export function formatDuration(ms: number): string {
  throw new Error("not implemented");
}

/** Right-pad `label` and append the formatted duration. */
export function reportLine(label: string, ms: number, width = 10): string {
  return label.padEnd(width) + formatDuration(ms);
}
