// @keel/events as a consumer gets it: `npm pack` the package, install the tarball into a fresh
// Node ESM project in a temp dir, and use it from plain JavaScript (no TypeScript, no bundler):
// parse the committed sample streams, project them onto the timeline, read the bundled schema.
//
//   node consumer-node.mjs        (after `npm ci` in schemas/ts; prepack builds dist/)
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const pkgDir = join(here, "..", "ts");
const samples = join(here, "..", "samples");
const work = mkdtempSync(join(tmpdir(), "keel-events-consumer-"));

function run(cmd, args, cwd) {
  return execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
}

try {
  const packed = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", work], pkgDir));
  const tarball = join(work, packed[0].filename);
  const files = packed[0].files.map((f) => f.path);
  for (const needed of ["dist/index.js", "dist/index.d.ts", "dist/index.js.map", "dist/events.schema.json", "dist/timeline.schema.json"]) {
    if (!files.includes(needed)) throw new Error(`the tarball lacks ${needed}: ${files.join(", ")}`);
  }
  const app = join(work, "app");
  execFileSync("mkdir", ["-p", app]);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  run("npm", ["install", "--no-audit", "--no-fund", tarball], app);
  writeFileSync(
    join(app, "main.mjs"),
    `import { EVENT_TYPES, parseEvent, toTimelineAll, TimelineWindow, isRunToolEnd } from "@keel/events";
import schema from "@keel/events/events.schema.json" with { type: "json" };
import { readFileSync } from "node:fs";
const [valid, invalid] = process.argv.slice(2);
const window = new TimelineWindow();
let events = 0, toolEnds = 0;
for (const line of readFileSync(valid, "utf8").split("\\n").filter(Boolean)) {
  const parsed = parseEvent(line);
  if (!parsed.ok) throw new Error("sample line rejected: " + parsed.error.message);
  events++;
  if (isRunToolEnd(parsed.event)) toolEnds++;
  for (const record of toTimelineAll(parsed.event)) window.push(record);
}
const bad = parseEvent(readFileSync(invalid, "utf8").trim());
if (bad.ok || bad.error.field !== "/payload/status") throw new Error("invalid sample: " + JSON.stringify(bad));
const notJson = parseEvent("{");
if (notJson.ok) throw new Error("'{' parsed");
if (schema.$schema !== "https://json-schema.org/draft/2020-12/schema") throw new Error("schema not bundled");
if (EVENT_TYPES.length < 40 || toolEnds === 0 || window.items().length === 0) throw new Error("nothing projected");
console.log(JSON.stringify({ events, toolEnds, timeline: window.items().length, invalid: bad.error.message }));
`,
  );
  const out = run("node", ["main.mjs", join(samples, "events.jsonl"), join(samples, "invalid-event.jsonl")], app);
  console.log(`@keel/events from a fresh Node ESM project: ${out.trim()}`);
} finally {
  if (!process.env.KEEL_CONSUMER_KEEP) rmSync(work, { recursive: true, force: true });
}
