// Reads the keel-events golden snapshots (crates/events/tests/snapshots), so the page's
// projection is checked against the Rust one on the same events.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const SNAPSHOTS = fileURLToPath(new URL("../../crates/events/tests/snapshots/", import.meta.url));

/** The JSON body of an insta snapshot file (after its `---` header). */
export function snapshot<T>(name: string): T {
  const text = readFileSync(`${SNAPSHOTS}${name}.snap`, "utf8");
  const body = text.replace(/^---\n[\s\S]*?\n---\n/, "");
  return JSON.parse(body) as T;
}
