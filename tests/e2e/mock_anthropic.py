#!/usr/bin/env python3
"""Tiny fake Anthropic Messages API for driving `claude -p` on loopback (stdlib only).

Usage: python3 mock_anthropic.py [PORT] [LOGFILE]
  PORT 0 binds a free port and prints "PORT <n>" on stdout once listening.
  env MOCK_CMD (or the file named by MOCK_CMD_FILE, default ./mock_cmd.txt, re-read per request) overrides the
  Bash command the fake model asks for.
First /v1/messages request that offers the Bash tool -> tool_use Bash {"command": CMD}.
  env MOCK_TOOL_USES (a JSON list of {"name", "input"}) instead: the first request that offers any tool
  gets all of those tool_use blocks in one message, whether offered or not (a model trying tools it
  was not given).
Any request whose last user message carries a tool_result -> text "done".
Anything else -> plain text "ok". Every request (path, headers subset, body) is logged.
"""
import json, os, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT = int(sys.argv[1]) if len(sys.argv) > 1 else 8765
LOG = sys.argv[2] if len(sys.argv) > 2 else "mock-requests.log"
DEFAULT_CMD = "echo hi; id"
CMD_FILE = os.environ.get("MOCK_CMD_FILE", "mock_cmd.txt")  # optional per-request override


def current_cmd():
    if os.path.exists(CMD_FILE):
        return open(CMD_FILE).read().rstrip("\n")
    return os.environ.get("MOCK_CMD", DEFAULT_CMD)
lock = threading.Lock()
counter = [0]


def log(entry):
    with lock:
        with open(LOG, "a") as f:
            f.write(json.dumps(entry) + "\n")


def sse(events):
    out = []
    for ev in events:
        out.append("event: %s\ndata: %s\n\n" % (ev["type"], json.dumps(ev)))
    return "".join(out).encode()


def has_tool_result(body):
    msgs = body.get("messages") or []
    if not msgs:
        return False
    last = msgs[-1]
    c = last.get("content")
    return isinstance(c, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in c)


def offers_bash(body):
    return any(t.get("name") == "Bash" for t in (body.get("tools") or []) if isinstance(t, dict))


TOOL_USES = json.loads(os.environ.get("MOCK_TOOL_USES") or "null")


def build(body):
    counter[0] += 1
    mid = "msg_mock_%d" % counter[0]
    model = body.get("model", "claude-mock")
    if has_tool_result(body):
        blocks = [{"type": "text", "text": "done"}]; stop = "end_turn"
    elif TOOL_USES is not None and body.get("tools"):
        blocks = [{"type": "tool_use", "id": "toolu_mock_%d_%d" % (counter[0], i), "name": u["name"],
                   "input": u["input"]} for i, u in enumerate(TOOL_USES)]; stop = "tool_use"
    elif offers_bash(body):
        blocks = [{"type": "tool_use", "id": "toolu_mock_%d" % counter[0], "name": "Bash",
                   "input": {"command": current_cmd(), "description": "mock command"}}]; stop = "tool_use"
    else:
        blocks = [{"type": "text", "text": "ok"}]; stop = "end_turn"
    usage = {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    if not body.get("stream"):
        return "application/json", json.dumps({"id": mid, "type": "message", "role": "assistant", "model": model,
                "content": blocks, "stop_reason": stop, "stop_sequence": None, "usage": usage}).encode()
    ev = [{"type": "message_start", "message": {"id": mid, "type": "message", "role": "assistant", "model": model,
           "content": [], "stop_reason": None, "stop_sequence": None, "usage": dict(usage, output_tokens=1)}}]
    for i, b in enumerate(blocks):
        if b["type"] == "text":
            ev.append({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}})
            ev.append({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": b["text"]}})
        else:
            ev.append({"type": "content_block_start", "index": i,
                       "content_block": {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}})
            ev.append({"type": "content_block_delta", "index": i,
                       "delta": {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}})
        ev.append({"type": "content_block_stop", "index": i})
    ev.append({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 5}})
    ev.append({"type": "message_stop"})
    return "text/event-stream", sse(ev)


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def _send(self, code, ctype, data):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        if ctype == "text/event-stream":
            self.send_header("Cache-Control", "no-cache")
        self.send_header("request-id", "req_mock")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _handle(self):
        raw = self._body()
        try:
            body = json.loads(raw) if raw else {}
        except Exception:
            body = {"_raw": raw.decode("utf-8", "replace")}
        log({"t": time.time(), "method": self.command, "path": self.path,
             "headers": {k: v for k, v in self.headers.items() if k.lower() in ("user-agent", "anthropic-beta", "x-app", "anthropic-version")},
             "body": body})
        p = self.path.split("?")[0]
        if self.command == "POST" and p == "/v1/messages/count_tokens":
            return self._send(200, "application/json", b'{"input_tokens": 10}')
        if self.command == "POST" and p == "/v1/messages":
            ctype, data = build(body if isinstance(body, dict) else {})
            return self._send(200, ctype, data)
        return self._send(200, "application/json", b"{}")

    do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = do_PATCH = _handle

    def log_message(self, *a):
        pass


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", PORT), H)
    print("PORT %d" % server.server_address[1], flush=True)
    server.serve_forever()
