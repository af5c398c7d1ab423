#!/usr/bin/env python3
"""A stand-in for gitea-mcp on stdio (stdlib only): newline-delimited JSON-RPC,
one tool `list_issues` that answers STUB-MCP text. Enough for a harness to list
and call the arm's MCP tools."""
import json, sys

TOOLS = [{"name": "list_issues", "description": "List the repository's issues.",
          "inputSchema": {"type": "object", "properties": {}}}]


def answer(msg):
    method = msg.get("method")
    if method == "initialize":
        return {"protocolVersion": msg.get("params", {}).get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}}, "serverInfo": {"name": "gitea-mcp-stub", "version": "0"}}
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        return {"content": [{"type": "text", "text": "STUB-MCP #1 first issue"}]}
    if method in ("resources/list", "prompts/list"):
        return {method.split("/")[0]: []}
    return None


for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if "id" not in msg:
        continue
    result = answer(msg)
    if result is None:
        reply = {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "no such method"}}
    else:
        reply = {"jsonrpc": "2.0", "id": msg["id"], "result": result}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
