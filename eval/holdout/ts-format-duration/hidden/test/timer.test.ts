import { test } from "node:test";
import assert from "node:assert/strict";
import { Timer } from "../src/timer";

test("timer collects steps", () => {
  let t = 0;
  const timer = new Timer(() => t);
  timer.start("compile");
  t = 64_000;
  timer.start("test");
  t = 76_300;
  assert.equal(timer.report(), "compile   1m 04s\ntest      12.3s\ntotal     1m 16s");
});
