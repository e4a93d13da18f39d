/**
 * Shorten `text` to at most `max` characters. Text that fits is returned
 * unchanged; otherwise it is cut and "…" is appended, the ellipsis counting
 * towards `max`. Trailing spaces before the ellipsis are removed.
 */
export function truncate(text: string, max: number): string {
  if (max < 1) {
    throw new RangeError(`max must be at least 1, got ${max}`);
  }
  if (text.length <= max) {
    return text;
  }
  const ellipsis = "…";
  return text.slice(0, max - ellipsis.length).trimEnd() + ellipsis;
}

/** Collapse runs of whitespace to single spaces and trim. */
export function squish(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Escape the five HTML special characters. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}
