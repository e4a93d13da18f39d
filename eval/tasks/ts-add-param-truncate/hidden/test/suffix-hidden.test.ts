import { test } from "node:test";
import assert from "node:assert/strict";
import { plainTextSummary, renderCard, truncate } from "../src/index";

const long = "The quick brown fox jumps over the lazy dog and keeps running far away";

test("default suffix unchanged", () => {
  assert.equal(truncate("hello world", 8), "hello w…");
  assert.equal(truncate("hello", 5), "hello");
});

test("custom suffix", () => {
  assert.equal(truncate("hello world", 8, "..."), "hello...");
  assert.equal(truncate("hello world!", 10, "..."), "hello w...");
  assert.equal(truncate("hello world", 9, "..."), "hello...");
  assert.equal(truncate("hello world", 11, "..."), "hello world");
  assert.equal(truncate("abcdef", 4, ""), "abcd");
  assert.equal(truncate("hello world", 8, " [more]"), "h [more]");
});

test("result never longer than max", () => {
  for (let max = 3; max < long.length + 2; max++) {
    assert.ok(truncate(long, max, "...").length <= max, `max ${max}`);
    assert.ok(truncate(long, max).length <= max, `max ${max}`);
  }
});

test("plain-text summary is ASCII and uses three dots", () => {
  const s = plainTextSummary({ title: long, body: long + " " + long, url: "https://x.test/2" });
  assert.ok(/^[\x00-\x7f]*$/.test(s), `non-ASCII in ${JSON.stringify(s)}`);
  assert.equal(s, "The quick brown fox jumps over the la...: The quick brown fox jumps over the lazy dog and keeps running far away The qu... (https://x.test/2)");
});

test("HTML cards keep the ellipsis character", () => {
  const html = renderCard({ title: long, body: "b", url: "u" });
  assert.ok(html.includes("…"));
});
