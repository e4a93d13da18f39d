#!/usr/bin/env node
// A minimal MCP server over stdio (newline-delimited JSON-RPC) for the page's end-to-end test:
// it answers `initialize`, lists two tools (`echo`, `shout`) and runs them; nothing else.
import { createInterface } from "node:readline";

const TOOLS = [
  {
    name: "echo",
    description: "Says the message back.",
    inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
  },
  {
    name: "shout",
    description: "Says the message back in capitals.",
    inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
  },
];

function reply(id, result) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id, result })}\n`);
}

function fail(id, code, message) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`);
}

createInterface({ input: process.stdin }).on("line", (line) => {
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    return;
  }
  const { id, method, params } = request;
  if (id === undefined) return; // a notification
  switch (method) {
    case "initialize":
      reply(id, {
        protocolVersion: params?.protocolVersion ?? "2025-03-26",
        capabilities: { tools: {} },
        serverInfo: { name: "e2e-echo", version: "1.0.0" },
      });
      break;
    case "ping":
      reply(id, {});
      break;
    case "tools/list":
      reply(id, { tools: TOOLS });
      break;
    case "tools/call": {
      const message = String(params?.arguments?.message ?? "");
      const text = params?.name === "shout" ? message.toUpperCase() : message;
      reply(id, { content: [{ type: "text", text }] });
      break;
    }
    default:
      fail(id, -32601, `method not found: ${method}`);
  }
});
