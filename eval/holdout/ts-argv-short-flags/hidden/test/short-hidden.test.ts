import { test } from "node:test";
import assert from "node:assert/strict";
import { ArgError, parseArgs, Spec } from "../src/index";

const spec: Spec = {
  all: { type: "boolean", short: "a" },
  brief: { type: "boolean", short: "b" },
  color: { type: "boolean" },
  output: { type: "string", short: "o" },
  level: { type: "string", short: "l" },
};

const p = (argv: string[]) => parseArgs(argv, spec);

test("single short flags and short options", () => {
  assert.deepEqual(p(["-a", "x"]), { options: { all: true }, positionals: ["x"] });
  assert.deepEqual(p(["-o", "out.txt"]), { options: { output: "out.txt" }, positionals: [] });
  assert.deepEqual(p(["-oout.txt"]), { options: { output: "out.txt" }, positionals: [] });
  assert.deepEqual(p(["-o", "-a"]), { options: { output: "-a" }, positionals: [] });
});

test("grouped short flags", () => {
  assert.deepEqual(p(["-ab"]), { options: { all: true, brief: true }, positionals: [] });
  assert.deepEqual(p(["-abo", "f"]), { options: { all: true, brief: true, output: "f" }, positionals: [] });
  assert.deepEqual(p(["-aof"]), { options: { all: true, output: "f" }, positionals: [] });
  assert.deepEqual(p(["-aob"]), { options: { all: true, output: "b" }, positionals: [] });
});

test("double dash ends the options", () => {
  assert.deepEqual(p(["-a", "--", "-b", "--output", "x"]), {
    options: { all: true },
    positionals: ["-b", "--output", "x"],
  });
  assert.deepEqual(p(["--"]), { options: {}, positionals: [] });
  assert.deepEqual(p(["--output", "--", "y"]), { options: { output: "--" }, positionals: ["y"] });
});

test("a lone dash is a positional", () => {
  assert.deepEqual(p(["-", "-a"]), { options: { all: true }, positionals: ["-"] });
});

test("--no-<flag> turns a boolean off", () => {
  assert.deepEqual(p(["--color", "--no-color"]), { options: { color: false }, positionals: [] });
  assert.deepEqual(p(["--no-all"]), { options: { all: false }, positionals: [] });
  assert.throws(() => p(["--no-output"]), ArgError);
  assert.throws(() => p(["--no-color=1"]), ArgError);
  assert.throws(() => p(["--no-nothing"]), ArgError);
});

test("short option errors", () => {
  assert.throws(() => p(["-x"]), ArgError);
  assert.throws(() => p(["-ax"]), ArgError);
  assert.throws(() => p(["-o"]), ArgError);
  assert.throws(() => p(["-ao"]), ArgError);
});

test("long options unchanged", () => {
  assert.deepEqual(p(["--level=3", "--all", "z"]), { options: { level: "3", all: true }, positionals: ["z"] });
  assert.throws(() => p(["--all=1"]), ArgError);
});
