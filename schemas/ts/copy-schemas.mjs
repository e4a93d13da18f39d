// Copies the generated JSON Schemas (schemas/*.schema.json) into the package: into src/, where
// parse.ts imports the event schema, and into dist/, so both ship inside the package as
// `@keel/events/events.schema.json` and `@keel/events/timeline.schema.json` (npm drops `../`
// entries of `files`).
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
for (const dir of ["src", "dist"]) {
  mkdirSync(join(here, dir), { recursive: true });
  for (const name of ["events.schema.json", "timeline.schema.json"]) {
    copyFileSync(join(here, "..", name), join(here, dir, name));
  }
}
