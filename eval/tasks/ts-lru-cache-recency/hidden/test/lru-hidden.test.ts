import { test } from "node:test";
import assert from "node:assert/strict";
import { LRUCache, memoize } from "../src/index";

test("get refreshes recency and keeps the value", () => {
  const c = new LRUCache<string, number>(3);
  c.set("a", 1).set("b", 2).set("c", 3);
  assert.equal(c.get("a"), 1);
  assert.deepEqual(c.keys(), ["b", "c", "a"]);
  c.set("d", 4);
  assert.deepEqual(c.keys(), ["c", "a", "d"]);
  assert.equal(c.get("a"), 1);
  assert.equal(c.size, 3);
});

test("get of a missing key changes nothing", () => {
  const c = new LRUCache<string, number>(2);
  c.set("a", 1).set("b", 2);
  assert.equal(c.get("zzz"), undefined);
  assert.deepEqual(c.keys(), ["a", "b"]);
  assert.equal(c.size, 2);
});

test("undefined values are still entries", () => {
  const c = new LRUCache<string, number | undefined>(2);
  c.set("u", undefined).set("x", 1);
  assert.equal(c.get("u"), undefined);
  assert.deepEqual(c.keys(), ["x", "u"]);
  c.set("y", 2);
  assert.equal(c.has("u"), true);
  assert.equal(c.has("x"), false);
});

test("peek and has do not count as a use", () => {
  const c = new LRUCache<string, number>(2);
  c.set("a", 1).set("b", 2);
  assert.equal(c.peek("a"), 1);
  assert.equal(c.has("a"), true);
  c.set("c", 3);
  assert.equal(c.has("a"), false);
});

test("set on an existing key updates and refreshes", () => {
  const c = new LRUCache<string, number>(2);
  c.set("a", 1).set("b", 2).set("a", 10).set("c", 3);
  assert.deepEqual(c.keys(), ["a", "c"]);
  assert.equal(c.peek("a"), 10);
});

test("memoize keeps hot arguments cached", () => {
  let calls = 0;
  const square = memoize((n: number) => {
    calls++;
    return n * n;
  }, 2);
  square(1);
  square(2);
  square(1);
  square(3);
  assert.equal(square(1), 1);
  assert.equal(calls, 3);
});
