import { test } from "node:test";
import assert from "node:assert/strict";
import { formatDuration } from "../src/index";

const cases: Array<[number, string]> = [
  [0, "0ms"],
  [0.9, "0ms"],
  [1, "1ms"],
  [250, "250ms"],
  [999, "999ms"],
  [999.99, "999ms"],
  [1000, "1.0s"],
  [1049, "1.0s"],
  [1050, "1.0s"],
  [1099, "1.0s"],
  [1100, "1.1s"],
  [12_345, "12.3s"],
  [59_999, "59.9s"],
  [60_000, "1m 00s"],
  [64_000, "1m 04s"],
  [64_999, "1m 04s"],
  [599_000, "9m 59s"],
  [3_599_999, "59m 59s"],
  [3_600_000, "1h 00m"],
  [3_659_999, "1h 00m"],
  [3_660_000, "1h 01m"],
  [93_900_000, "26h 05m"],
  [360_000_000, "100h 00m"],
];

test("formats every range", () => {
  for (const [ms, want] of cases) {
    assert.equal(formatDuration(ms), want, `formatDuration(${ms})`);
  }
});

test("rejects bad input", () => {
  for (const bad of [-1, -0.5, NaN, Infinity, -Infinity]) {
    assert.throws(() => formatDuration(bad), RangeError, `formatDuration(${bad})`);
  }
});
