"""The grader's OS layers (issue 12, the fresh user's bypasses): with the audit hook switched off
from learner Python, the network namespace, seccomp and Landlock still refuse.

Each attack switches the hook off the way the user did (``_Guard._check`` rebound), then tries
the operation and reports what the OS answered. A test asserts an OS refusal only when the layer
exists on this machine (:func:`_available`, probed in a subprocess); where it does not, that one
assertion is skipped with the reason, and the grading must still end in a failing verdict.
``AGENTLAB_SANDBOX_OFF`` forces layers off to test the fall-back here.
"""

from __future__ import annotations

import functools
import json
import os
import re
import socket
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

from agentlab.grader import _isolate, grade, grade_file

from .test_isolation import _fails, _warm, sandbox_dirs  # noqa: F401 - fixtures

ROOT = Path(__file__).resolve().parent.parent

_PROBE = """
import json, os, sys
from agentlab._sandbox import confine
pid = os.fork()
if pid == 0:  # each layer in a throw-away child: it cannot be undone
    missing = {}
    for name, step in (("netns", confine.new_network_namespace), ("seccomp", confine.filter_syscalls)):
        why = step()
        if why:
            missing[name] = why
    if confine.landlock_abi() < 1:
        missing["landlock"] = "no Landlock"
    sys.stdout.write(json.dumps(missing)); sys.stdout.flush(); os._exit(0)
os.waitpid(pid, 0)
"""


@functools.cache
def _probe() -> dict[str, str]:
    """Layer -> why it is missing on this machine (empty: all three work)."""
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    return json.loads(out.stdout or "{}")


def _available() -> dict[str, str]:
    """Layer -> why it is missing here: not on this machine, or switched off for the whole run by
    ``AGENTLAB_SANDBOX_OFF`` (read at the start of the session, before a test sets it)."""
    from agentlab._sandbox.confine import OFF_VARIABLE, switched_off

    off = switched_off(_SESSION_OFF)
    return {**_probe(), **{layer: f"{OFF_VARIABLE} switches it off" for layer in off}}


_SESSION_OFF = os.environ.get("AGENTLAB_SANDBOX_OFF")


def _needs(layer: str) -> None:
    why = _available().get(layer)
    if why:
        pytest.skip(f"{layer} is not available here ({why}): only the failing verdict is asserted")


_SWITCH_OFF = "import sys\nsys.modules['agentlab._sandbox.child']._Guard._check = lambda *a: None\n"


def _attack_file(tmp_path: Path, body: str) -> Path:
    """A submission whose agent_loop switches the audit hook off, runs ``body`` (which fills
    ``results``), prints them as JSON (the grader echoes a case's output) and raises."""
    source = _SWITCH_OFF + "import errno, json, os, signal\n\ndef agent_loop(client, prompt, tools, run_tool):\n" \
        "    results = {}\n" + textwrap.indent(textwrap.dedent(body), "    ") + \
        "\n    print('RESULTS' + json.dumps(results) + 'END', flush=True)\n    raise RuntimeError('attack done')\n"
    path = tmp_path / "attack.py"
    path.write_text(source)
    return path


def _results(capsys) -> dict[str, str]:
    """What the attack printed (the grader echoes a case's output)."""
    out = capsys.readouterr().out
    found = re.search(r"RESULTS(.*?)END", out, re.S)
    assert found, out
    return json.loads(found.group(1))


def _try(name: str, code: str) -> str:
    return textwrap.dedent(f"""
        try:
            {code}
            results[{name!r}] = "done"
        except OSError as exc:
            results[{name!r}] = errno.errorcode.get(exc.errno, str(exc.errno))
        except Exception as exc:
            results[{name!r}] = type(exc).__name__
        """)


def test_the_network_namespace_stops_a_connection_with_the_hook_off(sandbox_dirs, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("AGENTLAB_SANDBOX_OFF", "seccomp,landlock")  # the namespace alone
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    body = _try("connect", f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2).close()")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        case = grade_file(_attack_file(tmp_path, body), only=["end_turn"])["end_turn"]
    with pytest.raises(TimeoutError):
        listener.accept()
    listener.close()
    assert not case.passed
    _needs("netns")
    assert _results(capsys)["connect"] == "ENETUNREACH"  # caught by the loop: a failing verdict, no finding


def test_seccomp_refuses_processes_signals_and_fifos_with_the_hook_off(sandbox_dirs, tmp_path, capsys):
    attacks = {
        "fork": "os.fork() or os._exit(0)",
        "posix_spawn": "os.posix_spawn('/bin/true', ['true'], {})",
        "exec": "os.execv('/bin/true', ['true'])",
        "kill_parent": "os.kill(os.getppid(), 0)",
        "pidfd_open": "os.pidfd_open(os.getppid())",
        "setsid": "os.setsid()",
        "mkfifo": "os.mkfifo('fifo')",
        "unix_socket": "import socket; socket.socket(socket.AF_UNIX)",
    }
    body = "".join(_try(name, code) for name, code in attacks.items())
    body += "\nos.kill(os.getpid(), 0)\nresults['signal_self'] = 'done'\n"
    body += "import threading\nt = threading.Thread(target=lambda: None); t.start(); t.join()\nresults['thread'] = 'done'\n"
    case = grade_file(_attack_file(tmp_path, body), only=["end_turn"])["end_turn"]
    assert not case.passed
    _needs("seccomp")  # without it os.execv replaces the child: nothing is printed
    results = _results(capsys)
    assert results["thread"] == "done" and results["signal_self"] == "done"  # threads and self-signals still work
    assert {k: v for k, v in results.items() if k in attacks} == {k: "EPERM" for k in attacks}, results


def test_landlock_confines_reads_and_writes_dir_fd_and_sqlite_with_the_hook_off(sandbox_dirs, tmp_path, capsys):
    outside = tmp_path / "target"  # not the fixture's folder: without Landlock these writes happen
    outside.mkdir()
    (outside / "keep.txt").write_text("precious")
    secret = tmp_path / "secret.txt"
    secret.write_text("the answers")
    body = "".join(_try(name, code) for name, code in {
        "read": f"open({str(secret)!r}).read()",
        "write": f"open({str(outside / 'pwned.txt')!r}, 'w').write('x')",
        "delete": f"os.remove({str(outside / 'keep.txt')!r})",
        "dir_fd_read": f"fd = os.open('/', os.O_RDONLY); os.close(os.open({str(secret).lstrip('/')!r}, os.O_RDONLY, "
                       "dir_fd=fd))",
        "dir_fd_write": f"fd = os.open('/', os.O_RDONLY); os.close(os.open({str(outside / 'x').lstrip('/')!r}, "
                        "os.O_WRONLY | os.O_CREAT, dir_fd=fd))",
        "sqlite": f"import sqlite3; sqlite3.connect({str(outside / 'db.sqlite')!r}).execute('create table t(x)')",
        "mkfifo_outside": f"os.mkfifo({str(outside / 'fifo')!r})",
        "proc_parent": "open(f'/proc/{os.getppid()}/environ').read()",
    }.items())
    body += "\nopen('mine.txt', 'w').write('ok')\nresults['scratch'] = open('mine.txt').read()\n"
    case = grade_file(_attack_file(tmp_path, body), only=["end_turn"])["end_turn"]
    assert not case.passed
    results = _results(capsys)
    assert results["scratch"] == "ok"
    _needs("landlock")
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"], results
    refused = {k: v for k, v in results.items() if k != "scratch"}
    assert refused["sqlite"] != "done", results  # sqlite3.OperationalError is not an OSError: any refusal
    assert all(results[k] in ("EACCES", "EPERM") for k in ("read", "write", "delete", "dir_fd_read", "dir_fd_write",
                                                          "proc_parent", "mkfifo_outside")), results
    assert not (outside / "db.sqlite").exists()


def test_an_os_refusal_is_a_forbidden_operation_even_with_the_hook_off(sandbox_dirs, tmp_path):
    victim = subprocess.Popen(["sleep", "60"])  # stands for the grader (the user's attack killed the forkserver)
    try:
        path = tmp_path / "killer.py"
        path.write_text(_SWITCH_OFF + textwrap.dedent(f"""
            import os, signal
            def agent_loop(client, prompt, tools, run_tool):
                fd = os.pidfd_open({victim.pid})
                signal.pidfd_send_signal(fd, signal.SIGKILL)
                return "killed it"
            """))
        case = grade_file(path, only=["end_turn"])["end_turn"]
        assert not case.passed
        _needs("seccomp")
        assert victim.poll() is None, "the loop killed another process"
        _fails(case, "forbidden-operation", "operating system refused", "not permitted")
    finally:
        victim.kill()
        victim.wait()


def test_the_gc_route_to_the_guard_does_not_open_the_file_system(sandbox_dirs, tmp_path):
    outside = tmp_path / "target"  # not the fixture's folder: without Landlock the write happens
    outside.mkdir()
    path = tmp_path / "gcguard.py"
    path.write_text(textwrap.dedent(f"""
        import gc
        def agent_loop(client, prompt, tools, run_tool):
            g = [o for o in gc.get_objects() if type(o).__name__ == '_Guard'][0]
            g.busy.on = True
            open({str(outside / 'pwned')!r}, 'w').write('x')
            return "wrote outside"
        """))
    case = grade_file(path, only=["end_turn"])["end_turn"]
    assert not case.passed
    _needs("landlock")
    assert not (outside / "pwned").exists()
    _fails(case, "forbidden-operation", "operating system refused")


def test_with_every_layer_off_grading_still_works_and_warns_once(sandbox_dirs, monkeypatch):
    from .loops.seed_001 import agente

    monkeypatch.setenv("AGENTLAB_SANDBOX_OFF", "all")
    monkeypatch.setattr(_isolate, "_WARNED_LAYERS", set())
    with pytest.warns(RuntimeWarning) as caught:
        first = grade(agente, only=["end_turn"])
        second = grade(agente, only=["end_turn"])
    assert first["end_turn"].passed and second["end_turn"].passed
    texts = [str(w.message) for w in caught if "sandbox runs without" in str(w.message)]
    assert len(texts) == 3, texts  # once per layer, not once per grading
    assert any("seccomp" in t for t in texts) and any("Landlock" in t for t in texts)
    assert any("network namespace" in t for t in texts)

    def agent_loop(client, prompt, tools, run_tool):
        import socket

        socket.create_connection(("127.0.0.1", 9), timeout=1)

    _fails(grade(agent_loop, only=["end_turn"])["end_turn"], "forbidden-operation", "network")  # the hook still refuses


def test_the_off_variable_is_parsed():
    from agentlab._sandbox.confine import LAYERS, switched_off

    assert switched_off("all") == frozenset(LAYERS)
    assert switched_off(" seccomp , bogus") == {"seccomp"}
    assert switched_off(None) == frozenset()
