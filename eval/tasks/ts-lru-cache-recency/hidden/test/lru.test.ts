import { test } from "node:test";
import assert from "node:assert/strict";
import { LRUCache } from "../src/lru";

test("evicts the oldest entry when full", () => {
  const c = new LRUCache<string, number>(2);
  c.set("a", 1).set("b", 2).set("c", 3);
  assert.equal(c.has("a"), false);
  assert.deepEqual(c.keys(), ["b", "c"]);
});

test("get counts as a use", () => {
  const c = new LRUCache<string, number>(2);
  c.set("a", 1).set("b", 2);
  assert.equal(c.get("a"), 1);
  c.set("c", 3);
  assert.equal(c.has("a"), true);
  assert.equal(c.has("b"), false);
});

test("rejects a bad capacity", () => {
  assert.throws(() => new LRUCache(0), RangeError);
});
