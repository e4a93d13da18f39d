// Deciding an approval request: which choices a request offers, and what an "always" wrote.
import type { Schemas } from "../../clients/ts/src/client";

/** A decision the approve / reject / always buttons send. */
export type Choice = "approve" | "reject" | "always";
/** `POST …/approvals/{approval_id}`'s answer. */
export type ApprovalResult = Schemas["ApprovalResult"];
/** A rule as the rules routes and `rules_written` show it. */
export type RuleView = Schemas["RuleView"];

/** Whether a request of `kind` offers "always": commands and tool calls, whose allow rules the
 * server writes; not plans, for which it writes none. */
export function offersAlways(kind: string): boolean {
  return kind === "command" || kind === "tool";
}

/** The rules an "always" wrote, grouped by the file each is in (files in first-seen order). */
export function rulesByFile(rules: readonly RuleView[]): { file: string; rules: string[] }[] {
  const groups: { file: string; rules: string[] }[] = [];
  for (const rule of rules) {
    let group = groups.find((g) => g.file === rule.file);
    if (!group) {
      group = { file: rule.file, rules: [] };
      groups.push(group);
    }
    group.rules.push(rule.summary);
  }
  return groups;
}
