// Every message of the page's catalogues (i18n/{en,zh-CN}/{web,tools}.ftl) exists in both
// languages with the same variables, parses without errors, and every id the page uses exists.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { FluentResource } from "@fluent/bundle";
import { describe, expect, it } from "vitest";
import { LOCALES, messages, pickLocale } from "../src/i18n";

const I18N = join(__dirname, "..", "..", "i18n");
const SRC = join(__dirname, "..", "src");
const FILES = ["web.ftl", "tools.ftl"];

/** Variable names used anywhere in a message's pattern. */
function variables(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) {
    for (const item of node) variables(item, found);
  } else if (node && typeof node === "object") {
    const record = node as Record<string, unknown>;
    if (record.type === "var" && typeof record.name === "string") found.add(record.name);
    for (const value of Object.values(record)) variables(value, found);
  }
  return found;
}

function catalogue(locale: string, file: string): Map<string, string[]> {
  const text = readFileSync(join(I18N, locale, file), "utf8");
  const resource = new FluentResource(text);
  const out = new Map<string, string[]>();
  for (const message of resource.body) {
    if (message.id.startsWith("-")) continue;
    out.set(message.id, [...variables(message.value)].sort());
  }
  // A line that failed to parse becomes a junk entry and no message: count the entries.
  const entries = text.split("\n").filter((line) => /^[a-z][\w-]*\s*=/.test(line)).length;
  expect(out.size, `${locale}/${file}: some entries do not parse`).toBe(entries);
  return out;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : /\.tsx?$/.test(name) ? [path] : [];
  });
}

describe("i18n catalogues", () => {
  for (const file of FILES) {
    it(`${file} has the same keys and variables in every language`, () => {
      const [first, ...rest] = LOCALES.map((locale) => catalogue(locale, file));
      expect(first?.size).toBeGreaterThan(0);
      for (const other of rest) {
        expect([...(other?.keys() ?? [])].sort()).toEqual([...(first?.keys() ?? [])].sort());
        for (const [id, vars] of first ?? []) expect(other?.get(id), id).toEqual(vars);
      }
    });
  }

  it("has every message id the page uses, in every language", () => {
    const ids = new Set<string>();
    const prefixes = new Set<string>();
    for (const path of sourceFiles(SRC)) {
      const text = readFileSync(path, "utf8");
      for (const match of text.matchAll(/\bt\(\s*"([a-z0-9-]+)"/g)) if (match[1]) ids.add(match[1]);
      for (const match of text.matchAll(/"((?:plan-edit-error|repomap)-[a-z-]+)"/g)) if (match[1]) ids.add(match[1]);
      for (const match of text.matchAll(/\bt\(`([a-z-]+)-\$\{/g)) if (match[1]) prefixes.add(`${match[1]}-`);
    }
    expect(ids.size).toBeGreaterThan(40);
    for (const locale of LOCALES) {
      const known = new Set(FILES.flatMap((file) => [...catalogue(locale, file).keys()]));
      for (const id of ids) expect(known.has(id), `${locale} lacks ${id}`).toBe(true);
      for (const prefix of prefixes) {
        expect([...known].some((id) => id.startsWith(prefix)), `${locale} lacks ${prefix}*`).toBe(true);
      }
    }
  });

  it("formats messages and tool actions in both languages", () => {
    expect(messages("en").t("plan-progress-step", { current: 2, total: 3 })).toBe("step 2/3");
    expect(messages("zh-CN").t("plan-progress-step", { current: 2, total: 3 })).toBe("第 2/3 步");
    expect(messages("en").tool("read_file", { path: "a.py" })).toBe("Reading a.py");
    expect(messages("zh-CN").tool("read_file", { path: "a.py" })).toBe("正在读取 a.py");
    expect(messages("en").tool("mcp__srv__x", {})).toBe("Calling x on srv");
    expect(messages("zh-CN").tool("mcp__srv__x", {})).toBe("正在调用 srv 上的 x");
    expect(messages("en").tool("custom", {})).toBe("Calling custom");
    expect(messages("en").t("no-such-message")).toBe("no-such-message");
  });

  it("picks the language from the browser's list", () => {
    expect(pickLocale(["zh-TW", "en"])).toBe("zh-CN");
    expect(pickLocale(["fr-FR", "en-GB"])).toBe("en");
    expect(pickLocale(["de"])).toBe("en");
    expect(pickLocale([])).toBe("en");
  });
});
