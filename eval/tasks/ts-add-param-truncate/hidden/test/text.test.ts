import { test } from "node:test";
import assert from "node:assert/strict";
import { escapeHtml, squish, truncate } from "../src/text";

test("truncate keeps short text", () => {
  assert.equal(truncate("hello", 5), "hello");
});

test("truncate cuts with an ellipsis", () => {
  assert.equal(truncate("hello world", 8), "hello w…");
  assert.equal(truncate("hello world", 7), "hello…");
});

test("squish and escapeHtml", () => {
  assert.equal(squish("  a \n b  "), "a b");
  assert.equal(escapeHtml(`<a href="x">'&'</a>`), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
});
