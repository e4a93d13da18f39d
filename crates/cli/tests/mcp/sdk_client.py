"""Drives `keel mcp serve` with the official MCP Python SDK (`pip install mcp`).

Usage: sdk_client.py SCENARIO KEEL ROOT [KEEL ARGS…]
Prints one JSON object on standard output: what the SDK saw, for the Rust test to check.

Scenarios:
  tools   list tools, read_file, keel_task with progress, and bad calls
  approve execute_command needing approval, answered yes through elicitation
  decline the same, answered no
  noask   the same from a client without elicitation support
"""

import asyncio
import json
import os
import sys

import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError


def texts(result):
    return [block.text for block in result.content if getattr(block, "type", "") == "text"]


def call_summary(result):
    return {
        "is_error": bool(result.is_error),
        "texts": texts(result),
        "structured": result.structured_content,
    }


async def protocol_error(session, name, arguments):
    try:
        await session.call_tool(name, arguments)
    except MCPError as e:
        return {"code": e.error.code, "message": e.error.message}
    return None


async def tools_scenario(session, out):
    listed = await session.list_tools()
    out["tools"] = [tool.name for tool in listed.tools]
    out["read_only"] = [
        tool.name
        for tool in listed.tools
        if tool.annotations is not None and tool.annotations.read_only_hint
    ]
    out["read_file"] = call_summary(await session.call_tool("read_file", {"path": "README.md"}))
    progress = []

    async def on_progress(value, total, message):
        progress.append({"progress": value, "message": message})

    out["keel_task"] = call_summary(
        await session.call_tool("keel_task", {"task": "write the notes"}, progress_callback=on_progress)
    )
    out["progress"] = progress
    out["unknown_tool"] = await protocol_error(session, "no_such_tool", {})
    out["wrong_types"] = call_summary(await session.call_tool("read_file", {"path": 42}))
    out["task_wrong_types"] = call_summary(await session.call_tool("keel_task", {"task": ["x"]}))
    out["task_bad_mode"] = call_summary(
        await session.call_tool("keel_task", {"task": "x", "mode": "sideways"})
    )
    out["outside_root"] = call_summary(await session.call_tool("read_file", {"path": "../secret"}))
    # Still serving after all of that.
    out["after"] = call_summary(await session.call_tool("list_files", {"path": "."}))


async def command_scenario(session, out):
    out["command"] = call_summary(
        await session.call_tool("execute_command", {"command": "echo approved > approved.txt", "requires_approval": False})
    )


async def main():
    scenario, keel, root, *extra = sys.argv[1:]
    # The test's environment (its KEEL_CONFIG_DIR), not the SDK's reduced default one.
    params = StdioServerParameters(
        command=keel, args=["mcp", "serve", "--root", root, *extra], env=dict(os.environ)
    )
    asked = []

    async def elicit(context, params):
        asked.append(params.message)
        if scenario == "approve":
            return types.ElicitResult(action="accept", content={"approve": True})
        return types.ElicitResult(action="decline")

    callback = None if scenario in ("tools", "noask") else elicit
    out = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, elicitation_callback=callback) as session:
            init = await session.initialize()
            out["server"] = init.server_info.name
            out["protocol_version"] = init.protocol_version
            if scenario == "tools":
                await tools_scenario(session, out)
            else:
                await command_scenario(session, out)
    out["asked"] = asked
    print(json.dumps(out))


asyncio.run(main())
