"""Run the anthropic SDK's own ``examples/`` scripts on agentlab's fake, and report what they did.

Usage (from anywhere; the examples are never copied into this repository)::

    python tools/sdk_examples_probe/run.py PATH/TO/anthropic-sdk-python/examples
    python tools/sdk_examples_probe/run.py EXAMPLES --only tools tools_runner --timeout 30
    python tools/sdk_examples_probe/run.py EXAMPLES --all --json report.json
    python tools/sdk_examples_probe/run.py EXAMPLES --scenario weather

Each script runs in its own subprocess, with ``hook/`` first on ``PYTHONPATH`` (its
``sitecustomize.py`` puts every ``Anthropic()`` / ``AsyncAnthropic()`` built without an
``http_client`` on the fake: that is the only change) and the repository root next (so the
``agentlab`` it uses is this checkout's). The network is not needed: the fake never opens a socket.
A script that runs longer than ``--timeout`` seconds gets Ctrl-C (so the hook still writes its
journal), then is killed.

Per script it prints: the outcome (``ok``: exit status 0; ``failed``: the exception's last line;
``timeout``; ``rejected``: the script
stopped on an API error the fake answered (a 4xx the real API gives too, e.g. a request an example
still sends although the API now refuses it: read the message); ``network-only``: the script needs what the fake cannot give, namely an endpoint the
fake does not serve, a client the hook does not patch (Bedrock, Vertex...) or a package/server
outside this environment); the number of requests and their HTTP statuses; the tools the requests
defined; the tools the fake called (tool_use blocks); and whether each tool defined in a request was
called at least once (``tool loop: every tool called``), which is what issue 10's "Done when" asks.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

DEFAULT_EXAMPLES = (
    "messages", "messages_stream",
    "tools", "tools_stream", "tools_runner", "tools_runner_search_tool",
    "thinking", "thinking_stream",
    "structured_outputs", "structured_outputs_streaming",
    "fallbacks",
)
"""The SDK's examples about messages, tools, the tool runner, streaming, thinking, structured
outputs and model fallbacks (issue 10, "Done when"), by file stem. ``mcp_tool_runner`` is left out
on purpose: it starts the MCP filesystem server with ``npx`` (a download on first use) and the fake's
model then calls that server's tools for real (``write_file`` wrote ``/tmp/notes.txt`` in one run);
run it with ``--only mcp_tool_runner`` if you mean to."""

NETWORK_SIGNS = ("APIConnectionError", "ConnectError", "Connection error", "npx", "No module named 'mcp'",
                 "No module named 'boto3'", "No module named 'google.auth'")
"""Texts in a failed script's stderr that mean it needs something outside this machine."""


@dataclass
class Outcome:
    """What one example did on the fake."""

    script: str
    status: str
    """``ok``, ``failed``, ``rejected``, ``timeout`` or ``network-only``."""
    error: str = ""
    """The last line of stderr when the script did not exit 0."""
    requests: int = 0
    statuses: list[int] = field(default_factory=list)
    endpoints: list[str] = field(default_factory=list)
    """``METHOD /path`` of each request, in order."""
    models: list[str] = field(default_factory=list)
    tools_defined: list[str] = field(default_factory=list)
    tools_called: list[str] = field(default_factory=list)
    tools_answered: int = 0
    """tool_use blocks whose tool_result a later request carried (the script ran the tool)."""
    fake_errors: list[str] = field(default_factory=list)
    """The fake's error answers: ``status type: message``."""
    seconds_limit: float = 0.0

    @property
    def every_tool_called(self) -> bool | None:
        """None when no request defined tools."""
        if not self.tools_defined:
            return None
        return set(self.tools_defined) <= set(self.tools_called)


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip()[:400] if lines else ""


def run_one(path: Path, *, scenario: str, timeout: float) -> Outcome:
    """Run one script on the fake and read the journal its hook wrote.

    Args:
        path: the example script.
        scenario: the fake scenario for every client it builds.
        timeout: seconds before Ctrl-C (then 5 s more before SIGKILL).
    """
    with tempfile.TemporaryDirectory(prefix="sdk_probe_") as tmp:
        out = Path(tmp) / "journal.json"
        env = {k: v for k, v in os.environ.items()
               if k not in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "AGENTLAB_LIVE")}
        env.update(PYTHONPATH=os.pathsep.join([str(HERE / "hook"), str(ROOT), env.get("PYTHONPATH", "")]),
                   AGENTLAB_PROBE_OUT=str(out), AGENTLAB_PROBE_SCENARIO=scenario, PYTHONUNBUFFERED="1",
                   PYTHONIOENCODING="utf-8")
        proc = subprocess.Popen([sys.executable, str(path)], cwd=str(path.parent), env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        timed_out = False
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            proc.send_signal(signal.SIGINT)
            try:
                stdout, stderr = proc.communicate(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                stdout, stderr = proc.communicate()
        journal: dict[str, Any] = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {"clients": []}

    outcome = Outcome(script=path.name, status="ok", seconds_limit=timeout)
    called_ids: dict[str, str] = {}
    answered: set[str] = set()
    for client in journal["clients"]:
        for r in client["requests"]:
            outcome.requests += 1
            outcome.statuses.append(r.get("status"))
            outcome.endpoints.append(f"{r.get('method')} {r.get('path')}")
            if r.get("model") and r["model"] not in outcome.models:
                outcome.models.append(r["model"])
            for name in r.get("tools_defined") or []:
                if name not in outcome.tools_defined:
                    outcome.tools_defined.append(name)
            for use in r.get("tool_uses") or []:
                called_ids[use["id"]] = use["name"]
                if use["name"] not in outcome.tools_called:
                    outcome.tools_called.append(use["name"])
            answered.update(i for i in r.get("tool_results_sent") or [] if i in called_ids)
            if r.get("error"):
                outcome.fake_errors.append(f"{r.get('status')} {r['error'].get('type')}: {r['error'].get('message')}")
    outcome.tools_answered = len(answered)
    unknown_path = any(r.get("endpoint") == "unknown" for c in journal["clients"] for r in c["requests"])
    if timed_out:
        outcome.status, outcome.error = "timeout", _last_line(stderr)
    elif proc.returncode != 0:
        outcome.error = _last_line(stderr)
        needs_network = unknown_path or any(sign in stderr for sign in NETWORK_SIGNS)
        api_error = any(400 <= (s or 0) < 500 for s in outcome.statuses) and "anthropic." in outcome.error
        outcome.status = "network-only" if needs_network else "rejected" if api_error else "failed"
    return outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("examples", type=Path, help="the SDK's examples/ folder (a checkout or an export)")
    parser.add_argument("--only", nargs="+", metavar="STEM", help="these scripts (file stems)")
    parser.add_argument("--all", action="store_true", help="every *.py in the folder")
    parser.add_argument("--scenario", default="generic", help="fake scenario for every client (default generic)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per script (default 60)")
    parser.add_argument("--json", type=Path, help="also write the outcomes here as JSON")
    args = parser.parse_args(argv)

    folder: Path = args.examples.resolve()
    if args.all:
        scripts = sorted(folder.glob("*.py"))
    else:
        scripts = [folder / f"{stem}.py" for stem in (args.only or DEFAULT_EXAMPLES)]
    missing = [s.name for s in scripts if not s.exists()]
    if missing:
        parser.error(f"not in {folder}: {', '.join(missing)}")

    outcomes = []
    for script in scripts:
        o = run_one(script, scenario=args.scenario, timeout=args.timeout)
        outcomes.append(o)
        every = {None: "-", True: "yes", False: "NO"}[o.every_tool_called]
        print(f"{o.script:34} {o.status:13} requests={o.requests:<3} statuses={o.statuses}")
        if o.tools_defined:
            print(f"{'':34} tools defined={o.tools_defined} called={o.tools_called} "
                  f"({len(o.tools_called)}/{len(o.tools_defined)}) answered={o.tools_answered} "
                  f"every tool called: {every}")
        for err in dict.fromkeys(o.fake_errors):
            print(f"{'':34} fake answered {err}")
        if o.error:
            print(f"{'':34} {o.error}")
    if args.json:
        args.json.write_text(json.dumps([{**asdict(o), "every_tool_called": o.every_tool_called}
                                         for o in outcomes], indent=1), encoding="utf-8")
    bad = [o for o in outcomes if o.status != "ok" or o.every_tool_called is False]
    print(f"\n{len(outcomes) - len(bad)}/{len(outcomes)} ran OK with every defined tool called")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
