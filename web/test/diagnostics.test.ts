import { describe, expect, it } from "vitest";
import type { EditDiagnostics } from "../src/contract";
import { diagnosticLine, hasDiagnostics } from "../src/diagnostics";

const pyright: EditDiagnostics = {
  items: [
    {
      path: "app.py",
      line: 4,
      column: 14,
      severity: "error",
      message: 'Type "int" is not assignable to return type "str"',
      code: "reportReturnType",
      source: "Pyright",
    },
  ],
  omitted: 2,
  elsewhere: { before: 0, after: 1 },
  servers: ["pyright"],
  timed_out: false,
};

describe("diagnostics under an edit's row", () => {
  it("reads each as the terminal and the model do", () => {
    expect(diagnosticLine(pyright.items[0]!)).toBe(
      'app.py:4:14 error Type "int" is not assignable to return type "str" [reportReturnType]',
    );
  });

  it("shows the list only when there is something to say", () => {
    expect(hasDiagnostics(pyright)).toBe(true);
    expect(hasDiagnostics(undefined)).toBe(false);
    expect(hasDiagnostics({ items: [], omitted: 0, servers: ["pyright"], timed_out: false })).toBe(false);
    expect(hasDiagnostics({ items: [], omitted: 0, servers: ["pyright"], timed_out: true })).toBe(true);
  });
});
