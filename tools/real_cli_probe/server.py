"""A tiny scripted Messages API over HTTP for probing the real bundled CLI (localhost only)."""
import itertools, json, os, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
ids = itertools.count(1)
LOG = open(os.environ.get("PROBE_LOG", "/tmp/real_cli_probe_requests.log"), "a")

def reply_for(body):
    msgs = body.get("messages", [])
    last = msgs[-1] if msgs else {}
    content = last.get("content")
    has_result = isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
    n_results = sum(1 for m in msgs if isinstance(m.get("content"), list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in m["content"]))
    first = json.dumps(msgs[:1])
    import re as _re
    mm = _re.search(r"CMD<([^>]*)>", first)
    cmd = mm.group(1) if mm else "echo hi"
    mode = "loop" if "LOOPFOREVER" in json.dumps(msgs[:1]) else "once"
    tm = _re.search(r"TOOL<(\{.*?\})>", first.replace('\\"', '"'))
    if tm and not has_result:
        spec = json.loads(tm.group(1))
        return [{"type": "tool_use", "id": f"toolu_{next(ids):04d}", "name": spec["name"], "input": spec["input"]}], "tool_use"
    pm = _re.search(r"PAR<(\d+)>", first)
    if pm and not has_result:
        return [{"type": "tool_use", "id": f"toolu_{next(ids):04d}", "name": "Bash", "input": {"command": f"echo {i}", "description": "d"}} for i in range(int(pm.group(1)))], "tool_use"
    if has_result and mode == "once":
        return [{"type": "text", "text": "All done."}], "end_turn"
    return [{"type": "text", "text": f"Running echo (round {n_results+1})."},
            {"type": "tool_use", "id": f"toolu_{next(ids):04d}", "name": "Bash", "input": {"command": cmd, "description": "run it"}}], "tool_use"

class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        n = int(self.headers.get("content-length", 0)); raw = self.rfile.read(n)
        try: body = json.loads(raw)
        except Exception: body = {}
        LOG.write(json.dumps({"path": self.path, "model": body.get("model"), "n_msgs": len(body.get("messages", [])), "tools": len(body.get("tools", []) or []), "max_tokens": body.get("max_tokens")}) + "\n"); LOG.flush()
        if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
            out = json.dumps({"input_tokens": 10}).encode()
            self.send_response(200); self.send_header("content-type", "application/json"); self.send_header("content-length", str(len(out))); self.end_headers(); self.wfile.write(out); return
        blocks, stop = reply_for(body)
        mid = f"msg_{next(ids):06d}"
        usage = {"input_tokens": 1000, "output_tokens": 50, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        if not body.get("stream"):
            out = json.dumps({"id": mid, "type": "message", "role": "assistant", "model": body.get("model"), "content": blocks, "stop_reason": stop, "stop_sequence": None, "usage": usage}).encode()
            self.send_response(200); self.send_header("content-type", "application/json"); self.send_header("content-length", str(len(out))); self.end_headers(); self.wfile.write(out); return
        self.send_response(200); self.send_header("content-type", "text/event-stream"); self.end_headers()
        def ev(t, d): self.wfile.write(f"event: {t}\ndata: {json.dumps(d)}\n\n".encode())
        ev("message_start", {"type": "message_start", "message": {"id": mid, "type": "message", "role": "assistant", "model": body.get("model"), "content": [], "stop_reason": None, "stop_sequence": None, "usage": {**usage, "output_tokens": 1}}})
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                ev("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}})
                ev("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": b["text"]}})
            else:
                ev("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}})
                ev("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}})
            ev("content_block_stop", {"type": "content_block_stop", "index": i})
        ev("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 50}})
        ev("message_stop", {"type": "message_stop"})
        self.wfile.flush()
    def do_GET(self):
        self.send_response(404); self.end_headers()

ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
