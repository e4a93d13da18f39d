// parseEvent: one JSONL line (or an already parsed value) checked against events.schema.json
// (JSON Schema draft 2020-12, with ajv) before it is trusted as a typed Event.
import Ajv2020Module from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { ErrorObject, ValidateFunction } from "ajv";
import eventsSchema from "./events.schema.json" with { type: "json" };
import type { Event } from "./contract.js";

/** Why a line is not an event: `field` is the JSON Pointer of the offending field (`""` for the
 * whole line), `message` says what is wrong with it. */
export interface EventError {
  field: string;
  message: string;
}

/** The outcome of `parseEvent`: a typed event, or the first thing wrong with the input. */
export type ParseResult = { ok: true; event: Event } | { ok: false; error: EventError };

// ajv and ajv-formats are CommonJS; under Node's ESM their default export is the module object.
const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ??
  Ajv2020Module) as unknown as typeof Ajv2020Module.default;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as typeof addFormatsModule.default;

const INTEGER_FORMATS = ["uint", "uint8", "uint16", "uint32", "uint64", "int", "int8", "int16", "int32", "int64"];

let validator: ValidateFunction | undefined;

function validate(): ValidateFunction {
  if (validator === undefined) {
    const ajv = new Ajv2020({ allErrors: false, strict: true, discriminator: true });
    addFormats(ajv);
    for (const name of INTEGER_FORMATS) {
      ajv.addFormat(name, {
        type: "number",
        validate: (n: number) => Number.isInteger(n) && (!name.startsWith("u") || n >= 0),
      });
    }
    validator = ajv.compile(eventsSchema);
  }
  return validator;
}

function describe(error: ErrorObject): EventError {
  const params = error.params as Record<string, unknown>;
  const missing = typeof params["missingProperty"] === "string" ? params["missingProperty"] : undefined;
  const extra = typeof params["additionalProperty"] === "string" ? params["additionalProperty"] : undefined;
  const field = missing !== undefined || extra !== undefined
    ? `${error.instancePath}/${missing ?? extra}`
    : error.instancePath;
  const allowed = Array.isArray(params["allowedValues"]) ? ` (${(params["allowedValues"] as unknown[]).join(", ")})` : "";
  return { field, message: `${field || "event"} ${error.message ?? "is invalid"}${allowed}` };
}

/** Parses one line of a JSONL event stream (or a value already parsed from JSON) and checks it
 * against the event schema. */
export function parseEvent(line: string | unknown): ParseResult {
  let value: unknown = line;
  if (typeof line === "string") {
    try {
      value = JSON.parse(line);
    } catch (err) {
      return { ok: false, error: { field: "", message: `not JSON: ${err instanceof Error ? err.message : String(err)}` } };
    }
  }
  const check = validate();
  if (check(value)) return { ok: true, event: value as Event };
  const first = check.errors?.[0];
  return {
    ok: false,
    error: first === undefined ? { field: "", message: "not an event" } : describe(first),
  };
}
