#!/usr/bin/env python3
"""Tiny fake OpenAI Responses API for driving `codex exec` on loopback (stdlib only).

Usage: python3 mock_openai.py [PORT] [LOGFILE]
  PORT 0 binds a free port and prints "PORT <n>" on stdout once listening.
  env MOCK_CMD: the shell command the fake model asks for; MOCK_SHELL: the
  `shell` argument it gives exec_command (a model may name any binary there);
  MOCK_MCP_CALL: "NAMESPACE NAME", an MCP tool to call instead.
A request whose input has no function_call_output yet -> one call of the shell
tool Codex offers (exec_command, shell_command or shell), with MOCK_CMD.
A request carrying a function_call_output -> the text "done".
Every request (method, path, body) is logged as one JSON line.
"""
import json, os, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT = int(sys.argv[1]) if len(sys.argv) > 1 else 8766
LOG = sys.argv[2] if len(sys.argv) > 2 else "mock-openai-requests.log"
CMD = os.environ.get("MOCK_CMD", "echo hi")
# MOCK_SHELL: the `shell` argument of exec_command (unset: let Codex choose).
SHELL = os.environ.get("MOCK_SHELL")
# MOCK_EXEC_ARGS: JSON object merged into exec_command's arguments (e.g. {"tty": true}).
EXTRA = json.loads(os.environ.get("MOCK_EXEC_ARGS") or "{}")
# MOCK_MCP_CALL: "NAMESPACE NAME": call that MCP tool (as Codex names it) instead of a shell.
MCP_CALL = os.environ.get("MOCK_MCP_CALL")
lock = threading.Lock()
counter = [0]


def log(entry):
    with lock:
        with open(LOG, "a") as f:
            f.write(json.dumps(entry) + "\n")


def tool_names(body):
    out = []
    for t in body.get("tools") or []:
        if isinstance(t, dict):
            out.append(t.get("name") or t.get("type"))
    return out


def has_output(body):
    return any(isinstance(i, dict) and i.get("type") in ("function_call_output", "custom_tool_call_output")
               for i in body.get("input") or [])


def shell_call(body, n):
    names = tool_names(body)
    call_id = "call_mock_%d" % n
    if MCP_CALL:
        namespace, name = MCP_CALL.split(" ", 1)
        return {"type": "function_call", "id": "fc_mock_%d" % n, "call_id": call_id,
                "namespace": namespace, "name": name, "arguments": "{}", "status": "completed"}
    if "exec_command" in names:
        args = {"cmd": CMD}
        if SHELL:
            args["shell"] = SHELL
        args.update(EXTRA)
        name = "exec_command"
    elif "shell_command" in names:
        args = {"command": CMD}
        name = "shell_command"
    elif "shell" in names:
        args = {"command": ["bash", "-lc", CMD]}
        name = "shell"
    else:
        return None
    return {"type": "function_call", "id": "fc_mock_%d" % n, "call_id": call_id, "name": name,
            "arguments": json.dumps(args), "status": "completed"}


def message(text, n):
    return {"type": "message", "id": "msg_mock_%d" % n, "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def events(body):
    counter[0] += 1
    n = counter[0]
    rid = "resp_mock_%d" % n
    item = None if has_output(body) else shell_call(body, n)
    if item is None:
        item = message("done", n)
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
    evs = [
        {"type": "response.created", "response": {"id": rid}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": {"id": rid, "usage": usage, "output": [item]}},
    ]
    return "".join("event: %s\ndata: %s\n\n" % (e["type"], json.dumps(e)) for e in evs).encode()


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _handle(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            body = json.loads(raw) if raw else {}
        except Exception:
            body = {"_raw": raw.decode("utf-8", "replace")}
        log({"t": time.time(), "method": self.command, "path": self.path, "body": body})
        path = self.path.split("?")[0]
        if self.command == "POST" and path.endswith("/responses") and isinstance(body, dict):
            data, ctype = events(body), "text/event-stream"
        elif path.endswith("/models"):
            data, ctype = b'{"object": "list", "data": [], "models": []}', "application/json"
        else:
            data, ctype = b"{}", "application/json"
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = do_PATCH = _handle

    def log_message(self, *a):
        pass


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", PORT), H)
    print("PORT %d" % server.server_address[1], flush=True)
    server.serve_forever()
