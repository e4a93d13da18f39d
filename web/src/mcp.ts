// A session's MCP servers as the page shows them: the ones that need attention first, and how
// many of each server's tools the model is offered.
import type { Schemas } from "../../clients/ts/src/client";

/** One server of `GET /v1/sessions/{id}/mcp`. */
export type McpServer = Schemas["McpServerView"];

const ORDER: Record<string, number> = { failed: 0, running: 1, stopped: 2, disabled: 3 };

/** Failed servers first, then running, stopped, disabled (unknown states after), by name. */
export function byAttention(servers: readonly McpServer[]): McpServer[] {
  const rank = (state: string) => ORDER[state] ?? 4;
  return [...servers].sort((a, b) => rank(a.state) - rank(b.state) || a.name.localeCompare(b.name));
}

/** The server's tools offered to the model (those with an `offered_as` name) and all it lists. */
export function toolCounts(server: McpServer): { offered: number; total: number } {
  return { offered: server.tools.filter((tool) => tool.offered_as !== undefined).length, total: server.tools.length };
}

/** How many servers are in each state. */
export function stateCounts(servers: readonly McpServer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const server of servers) counts[server.state] = (counts[server.state] ?? 0) + 1;
  return counts;
}
