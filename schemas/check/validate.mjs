// Validates JSONL event streams against the generated JSON Schemas (draft 2020-12).
//
//   node validate.mjs                      the committed samples: every line of the valid
//                                          samples must pass, every line of invalid-*.jsonl fail
//   node validate.mjs FILE.jsonl [...]     every line of each file must be a valid event
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const here = dirname(fileURLToPath(import.meta.url));
const schemas = join(here, "..");

const ajv = new Ajv2020({ allErrors: true, strict: true, discriminator: true });
addFormats(ajv);
for (const f of ["uint", "uint8", "uint16", "uint32", "uint64", "int", "int8", "int16", "int32", "int64"]) {
  ajv.addFormat(f, { type: "number", validate: (n) => Number.isInteger(n) && (!f.startsWith("u") || n >= 0) });
}
const eventSchema = JSON.parse(readFileSync(join(schemas, "events.schema.json"), "utf8"));
const timelineSchema = JSON.parse(readFileSync(join(schemas, "timeline.schema.json"), "utf8"));
const validateEvent = ajv.compile(eventSchema);
const validateTimeline = ajv.compile(timelineSchema);

function lines(file) {
  return readFileSync(file, "utf8")
    .split("\n")
    .map((text, i) => ({ text, line: i + 1 }))
    .filter(({ text }) => text.trim() !== "");
}

function check(file, validate, expectValid) {
  let failures = 0;
  let count = 0;
  for (const { text, line } of lines(file)) {
    count++;
    let value;
    try {
      value = JSON.parse(text);
    } catch (e) {
      if (expectValid) {
        console.error(`${file}:${line}: not JSON: ${e.message}`);
        failures++;
      }
      continue;
    }
    const ok = validate(value);
    if (ok !== expectValid) {
      failures++;
      const why = ok ? "was accepted but must be rejected" : ajv.errorsText(validate.errors);
      console.error(`${file}:${line}: ${why}`);
    }
  }
  if (count === 0) {
    console.error(`${file}: no lines`);
    failures++;
  }
  console.log(`${file}: ${count} line(s), ${failures} unexpected`);
  return failures;
}

let failures = 0;
const args = process.argv.slice(2);
if (args.length > 0) {
  for (const file of args) failures += check(file, validateEvent, true);
} else {
  const samples = join(schemas, "samples");
  for (const name of readdirSync(samples).sort()) {
    if (!name.endsWith(".jsonl")) continue;
    const isTimeline = name.startsWith("timeline");
    const expectValid = !name.startsWith("invalid");
    failures += check(join(samples, name), isTimeline ? validateTimeline : validateEvent, expectValid);
  }
}
if (failures > 0) {
  console.error(`${failures} unexpected result(s)`);
  process.exit(1);
}
console.log("0 failed");
