// No text a person reads is written into the page's components: every JSX text node, every
// string in a JSX expression and every aria-label/title/placeholder/alt must come from the
// catalogues (i18n/*/web.ftl, tools.ftl) through `t`/`tool`. Text without a letter (symbols,
// icons, punctuation) and the names in ALLOWED (names of languages, said in themselves; words
// that are values the server takes) may stay.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = join(__dirname, "..", "src");
/** Attributes a person reads (or a screen reader speaks). */
const READ_ATTRIBUTES = new Set(["aria-label", "title", "placeholder", "alt", "aria-description", "aria-valuetext"]);
/** Literal text allowed anyway: "file:text". */
const ALLOWED = new Set([
  // The language switch names each language in that language.
  "LanguageSwitch.tsx:English",
  "LanguageSwitch.tsx:简体中文",
  // An icon (INFORMATION SOURCE), though Unicode counts it a letter.
  "Timeline.tsx:ℹ",
]);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : name.endsWith(".tsx") ? [path] : [];
  });
}

const LETTER = /\p{L}/u;

/** The user-visible literals of one TSX file: `line: text`. */
export function literals(path: string, text = readFileSync(path, "utf8")): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const name = relative(SRC, path).split("/").pop() ?? path;
  const found: string[] = [];
  const report = (node: ts.Node, value: string) => {
    const trimmed = value.replace(/\s+/g, " ").trim();
    if (!LETTER.test(trimmed) || ALLOWED.has(`${name}:${trimmed}`)) return;
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push(`${name}:${line + 1}: ${trimmed}`);
  };
  /** Strings that end up as text: literals, both sides of `?:`, `&&`/`||` operands, templates. */
  const visitExpression = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) report(node, node.text);
    else if (ts.isTemplateExpression(node)) {
      report(node, [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(" "));
      for (const span of node.templateSpans) visitExpression(span.expression);
    } else if (ts.isConditionalExpression(node)) {
      visitExpression(node.whenTrue);
      visitExpression(node.whenFalse);
    } else if (ts.isBinaryExpression(node)) {
      const op = node.operatorToken.kind;
      if (op === ts.SyntaxKind.AmpersandAmpersandToken || op === ts.SyntaxKind.BarBarToken || op === ts.SyntaxKind.QuestionQuestionToken) {
        visitExpression(node.right);
        if (op !== ts.SyntaxKind.AmpersandAmpersandToken) visitExpression(node.left);
      } else if (op === ts.SyntaxKind.PlusToken) {
        visitExpression(node.left);
        visitExpression(node.right);
      }
    } else if (ts.isParenthesizedExpression(node)) visitExpression(node.expression);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isJsxText(node)) report(node, node.text);
    else if (ts.isJsxExpression(node) && node.expression && !ts.isJsxAttribute(node.parent)) visitExpression(node.expression);
    else if (ts.isJsxAttribute(node) && READ_ATTRIBUTES.has(node.name.getText(source)) && node.initializer) {
      if (ts.isStringLiteral(node.initializer)) report(node, node.initializer.text);
      else if (ts.isJsxExpression(node.initializer) && node.initializer.expression) visitExpression(node.initializer.expression);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("page components", () => {
  it("show no text that is not from the catalogues", () => {
    const paths = files(SRC);
    expect(paths.length).toBeGreaterThan(10);
    expect(paths.flatMap((path) => literals(path))).toEqual([]);
  });

  it("the scan finds text nodes, attributes and strings in expressions", () => {
    const sample = `export const A = (p: { ok: boolean }) => (
      <div title="Hover text" aria-label={p.ok ? "Yes" : "No"}>
        Plain words {p.ok && "shown"} {"→"} {\`\${1} ms\`} <span>✓</span>
      </div>
    );`;
    expect(literals(join(SRC, "Sample.tsx"), sample)).toEqual([
      "Sample.tsx:2: Hover text",
      "Sample.tsx:2: Yes",
      "Sample.tsx:2: No",
      "Sample.tsx:3: Plain words",
      "Sample.tsx:3: shown",
      "Sample.tsx:3: ms",
    ]);
  });
});
