import { test } from "node:test";
import assert from "node:assert/strict";
import { renderCard } from "../src/feed";

test("renderCard", () => {
  const html = renderCard({ title: "Hi <you>", body: "short body", url: "https://x.test/1" });
  assert.equal(html, '<article><h2><a href="https://x.test/1">Hi &lt;you&gt;</a></h2><p>short body</p></article>');
});
