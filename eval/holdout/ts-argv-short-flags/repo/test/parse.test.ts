import { test } from "node:test";
import assert from "node:assert/strict";
import { ArgError, parseArgs, Spec } from "../src/index";

const spec: Spec = {
  verbose: { type: "boolean", short: "v" },
  output: { type: "string", short: "o" },
};

test("long options and positionals", () => {
  assert.deepEqual(parseArgs(["--verbose", "--output=out.txt", "in.txt"], spec), {
    options: { verbose: true, output: "out.txt" },
    positionals: ["in.txt"],
  });
  assert.deepEqual(parseArgs(["a", "--output", "b", "c"], spec), {
    options: { output: "b" },
    positionals: ["a", "c"],
  });
});

test("errors", () => {
  assert.throws(() => parseArgs(["--nope"], spec), ArgError);
  assert.throws(() => parseArgs(["--output"], spec), ArgError);
  assert.throws(() => parseArgs(["--verbose=yes"], spec), ArgError);
});
