// The language servers' diagnostics an edit left (issue 27 §1), as the page lists them under
// the edit's row: one line per diagnostic, as the terminal and the model see them.
import type { Diagnostic, EditDiagnostics } from "./contract";

/** `path:line:col severity message` (the server's code, when it gives one, in brackets). */
export function diagnosticLine(d: Diagnostic): string {
  const code = d.code === undefined ? "" : ` [${d.code}]`;
  return `${d.path}:${d.line}:${d.column} ${d.severity} ${d.message}${code}`;
}

/** Whether there is anything to show: diagnostics, a change elsewhere, or a server that did
 * not answer in time. */
export function hasDiagnostics(d: EditDiagnostics | undefined): d is EditDiagnostics {
  return d !== undefined && (d.items.length > 0 || d.omitted > 0 || d.elsewhere !== undefined || d.timed_out);
}
