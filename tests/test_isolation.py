"""The isolated grader: learner code in a child process, the fake and the judge in this one.

One test per hostile behaviour (issue 12, item 1). Each asserts the verdict (a failure with a
plain explanation, never a pass), the CLI's exit status where a file is involved, that the
scratch directory is gone and nothing outside it changed, and that no process is left behind
(the test process's descendants before and after, the forkserver aside).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import agentlab
from agentlab.grader import LoadError, grade, grade_file, grade_source
from agentlab.grader import _isolate

from .loops.seed_001 import agente as seed_001_loop

ROOT = Path(__file__).resolve().parent.parent


def _parents() -> dict[int, int]:
    """pid -> parent pid of every live (non-zombie) process, one snapshot of /proc."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[0] != "Z":
            parents[int(entry)] = int(fields[1])
    return parents


def _descendants(pid: int, parents: dict[int, int] | None = None) -> set[int]:
    """Live descendants of ``pid``."""
    parents = _parents() if parents is None else parents
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier} - found
        found |= frontier
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()[:200].replace(b"\0", b" ").decode()
    except OSError:
        return f"{pid} (gone)"


def _ours() -> set[int]:
    """This process's live descendants but the forkserver (which lives as long as this process):
    the grading children, forked by the forkserver, count."""
    from multiprocessing import forkserver

    return _descendants(os.getpid()) - {getattr(forkserver._forkserver, "_forkserver_pid", None)}


@pytest.fixture(scope="module", autouse=True)
def _warm():
    grade(seed_001_loop, only=["end_turn"])  # starts the forkserver once


@pytest.fixture
def sandbox_dirs(tmp_path, monkeypatch):
    """A private TMPDIR (where scratch directories go) and an 'outside' folder with a file in it;
    after the test: no scratch directory left, the outside untouched, no process left."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("precious")
    monkeypatch.setattr("tempfile.tempdir", str(tmp))
    monkeypatch.setenv("TMPDIR", str(tmp))
    before = _ours()
    yield outside
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _ours() - before:
        time.sleep(0.05)
    left = _ours() - before
    assert left == set(), f"processes left behind: {[_cmdline(p) for p in left]}"
    assert [p.name for p in tmp.iterdir()] == [], "the scratch directory (or the output capture) was left behind"
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    assert (outside / "keep.txt").read_text() == "precious"


def _case(loop, case="end_turn", **kw):
    report = grade(loop, only=[case], **kw)
    return report[case]


def _cli(*args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "agentlab", *args], capture_output=True, text=True, timeout=180,
                          cwd=cwd, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def _fails(case, tag: str, *words: str) -> None:
    assert not case.passed
    assert case.diagnosis == tag, (case.diagnoses, case.explanation)
    for word in words:
        assert word in case.explanation, case.explanation


# ------------------------------------------------------------------------------ the process


def test_os_exit_in_the_loop_is_a_failure_not_a_silent_pass(sandbox_dirs, tmp_path):
    def agent_loop(client, prompt, tools, run_tool):
        os._exit(0)

    _fails(_case(agent_loop), "exited", "ended the grading process", "status 0")
    loop_file = tmp_path / "exits.py"
    loop_file.write_text("import os\n\ndef agent_loop(client, prompt, tools, run_tool):\n    os._exit(0)\n")
    result = _cli("grade", str(loop_file), "--only", "end_turn")
    assert result.returncode == 1 and "ended the grading process" in result.stdout, (result.stdout, result.stderr)


def test_sys_exit_inside_the_loop_fails_even_on_a_stop_case(sandbox_dirs):
    def agent_loop(client, prompt, tools, run_tool):
        client.messages.create(model="claude-sonnet-5", max_tokens=100, messages=[{"role": "user", "content": prompt}])
        sys.exit(0)

    _fails(_case(agent_loop, "refusal"), "exited", "SystemExit")


def test_sys_exit_at_a_files_top_level_is_a_load_error_with_exit_status_2(sandbox_dirs, tmp_path):
    loop_file = tmp_path / "top_exit.py"
    loop_file.write_text("import sys\nsys.exit()\n\ndef agent_loop(client, prompt, tools, run_tool):\n    return ''\n")
    with pytest.raises(LoadError) as info:
        grade_file(loop_file)
    assert info.value.kind == "raised" and "SystemExit" in str(info.value)
    result = _cli("grade", str(loop_file))
    assert result.returncode == 2 and "SystemExit" in result.stderr and str(loop_file) in result.stderr


def test_a_segfault_through_ctypes_is_refused(sandbox_dirs):
    def agent_loop(client, prompt, tools, run_tool):
        import ctypes

        ctypes.string_at(0)
        return "unreachable"

    _fails(_case(agent_loop), "forbidden-operation", "ctypes")


def test_a_c_recursion_that_segfaults_python_is_a_crash_verdict(sandbox_dirs, tmp_path):
    def agent_loop(client, prompt, tools, run_tool):
        sys.setrecursionlimit(10**8)
        deep: list = []
        for _ in range(10**6):
            deep = [deep]
        return repr(deep)

    case = _case(agent_loop)
    _fails(case, "crashed", "SIGSEGV")
    loop_file = tmp_path / "crash.py"
    loop_file.write_text("import sys\nsys.setrecursionlimit(10**8)\nx = []\nfor _ in range(10**6):\n    x = [x]\n"
                         "repr(x)\n\ndef agent_loop(client, prompt, tools, run_tool):\n    return ''\n")
    result = _cli("grade", str(loop_file))
    assert result.returncode == 2 and "SIGSEGV" in result.stderr, result.stderr


def test_an_endless_loop_is_stopped_at_the_time_limit(sandbox_dirs):
    def agent_loop(client, prompt, tools, run_tool):
        while True:
            pass

    start = time.monotonic()
    case = _case(agent_loop, time_limit=0.5)
    assert time.monotonic() - start < 5
    _fails(case, "timeout", "still running after 0.5 s")


def test_after_a_case_spins_without_a_request_later_cases_only_get_a_short_first_request_window(sandbox_dirs,
                                                                                                monkeypatch):
    monkeypatch.setattr(_isolate, "FIRST_REQUEST_LIMIT", 1.5)
    spin_prompt = agentlab.grader.get_case("end_turn").scenario.prompt

    def recursion(client, prompt, tools, run_tool):  # /tmp/b12/h/loop_recursion.py: 165 s for one file
        while True:
            pass

    start = time.monotonic()
    report = grade(recursion, only=["end_turn", "says_done", "refusal"], time_limit=3)
    assert time.monotonic() - start < 3 + 2 * 1.5 + 2.5  # not 3 x 3 s
    _fails(report["end_turn"], "timeout", "still running after 3 s without making one request", "not waiting on the API")
    _fails(report["says_done"], "timeout", "no request to the API within 1.5 s", "earlier case")
    _fails(report["refusal"], "timeout", "within 1.5 s")

    def spins_on_one_prompt(client, prompt, tools, run_tool):  # a later case that calls the API gets its whole limit
        while prompt == spin_prompt:
            pass
        return seed_001_loop(client, prompt, tools, run_tool)

    report = grade(spins_on_one_prompt, only=["end_turn", "text_and_tool_use", "refusal"], time_limit=3)
    assert report["end_turn"].diagnosis == "timeout"
    assert report["text_and_tool_use"].passed and report["refusal"].passed, str(report)


def test_a_timeout_after_requests_says_the_loop_was_busy_in_its_own_code(sandbox_dirs):
    def agent_loop(client, prompt, tools, run_tool):
        client.messages.create(model="claude-sonnet-5", max_tokens=100, messages=[{"role": "user", "content": prompt}])
        while True:
            pass

    _fails(_case(agent_loop, time_limit=0.5), "timeout", "after 0.5 s and 1 request(s)", "not waiting on the API")


def test_an_endless_top_level_is_stopped_at_the_load_limit(sandbox_dirs, tmp_path, monkeypatch):
    monkeypatch.setattr(_isolate, "LOAD_LIMIT", 1.0)
    loop_file = tmp_path / "spins.py"
    loop_file.write_text("while True:\n    pass\n")
    start = time.monotonic()
    with pytest.raises(LoadError) as info:
        grade_file(loop_file)
    assert info.value.kind == "timeout" and "more than 1 s" in str(info.value)
    assert time.monotonic() - start < 5


def test_the_cpu_limit_stops_a_spinning_child(sandbox_dirs, monkeypatch):
    monkeypatch.setattr(_isolate, "CPU_MARGIN", 0)

    def agent_loop(client, prompt, tools, run_tool):
        while True:
            pass

    # a 1 s CPU budget (the sum of the case limits) and a 5 s wall limit: RLIMIT_CPU trips first
    box = _isolate.Sandbox(_isolate.Submission.of(agent_loop), [1.0])
    try:
        box.load()
        run = box.run_case(agentlab.grader.get_case("end_turn"), time_limit=5)
    finally:
        box.close()
    assert run.child_end == {"how": "signal", "signal": "SIGXCPU"} and not run.timed_out
    _fails(agentlab.grader.judge_isolated(run), "resource-limit", "CPU")


def test_a_2_gib_allocation_hits_the_memory_cap_and_the_parent_stays_flat(sandbox_dirs):
    def rss() -> int:
        return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    def agent_loop(client, prompt, tools, run_tool):
        data = bytearray(2 * 1024**3)
        return str(len(data))

    before = rss()
    _fails(_case(agent_loop), "resource-limit", "out of memory")
    assert rss() - before < 50 * 1024**2


def test_a_case_that_sends_too_many_request_bytes_is_stopped_before_the_parent_holds_them(sandbox_dirs, monkeypatch):
    # every request reaches the fake and its journal in THIS process: 40 requests of 20 MB took
    # the grader to ~0.9 GB before the per-case bound (issue 12); here a 4 MiB bound, 2 MB requests
    monkeypatch.setattr(_isolate, "REQUEST_BYTES_LIMIT", 4 * 1024 * 1024)

    def agent_loop(client, prompt, tools, run_tool):
        big = "x" * 2_000_000
        for i in range(40):
            try:
                client.messages.create(model="claude-sonnet-5", max_tokens=100,
                                       messages=[{"role": "user", "content": prompt + big + str(i)}])
            except Exception:  # noqa: BLE001 - a loop that keeps sending
                pass
        return "done"

    box = _isolate.Sandbox(_isolate.Submission.of(agent_loop), [10.0, 10.0])
    try:
        box.load()
        run = box.run_case(agentlab.grader.get_case("end_turn"))
        assert run.child_end == {"how": "request-bytes", "bytes": run.child_end["bytes"], "limit": 4 * 1024 * 1024}
        assert len(run.journal.steps) + len(run.journal.errors) == 2  # the third would pass the bound: never handled
        _fails(agentlab.grader.judge_isolated(run), "resource-limit", "more than 4 MiB of requests")
        again = box.run_case(agentlab.grader.get_case("end_turn"))  # the next case gets a fresh child
        assert again.child_end["how"] == "request-bytes"
    finally:
        box.close()


@pytest.mark.parametrize("attack, words", [
    ("os.fork()", "forking"),
    ("import subprocess; subprocess.Popen(['sleep', '60'])", "subprocess"),
    ("os.system('sleep 60 &')", "shell"),
    ("os.forkpty()", "forking"),
    ("os.execv('/bin/sleep', ['sleep', '60'])", "os.exec"),
    ("os.posix_spawn('/bin/sleep', ['sleep', '60'], {})", "starting a process"),
    ("os.kill(os.getppid(), 9)", "signal"),
])
def test_processes_cannot_be_started_and_none_outlive_the_grading(sandbox_dirs, attack, words):
    code = textwrap.dedent(f"""
        import os, time

        def agent_loop(client, prompt, tools, run_tool):
            for _ in range(20):
                try:
                    {attack}
                except PermissionError:
                    pass
            return "Paris: 18°C, sunny"
    """)
    report = grade_source(code, only=["end_turn"])
    _fails(report["end_turn"], "forbidden-operation", words)


def test_a_fork_bomb_at_a_files_top_level_leaves_no_process(sandbox_dirs, tmp_path):
    loop_file = tmp_path / "bomb.py"
    loop_file.write_text("import os\nwhile True:\n    os.fork()\n")
    result = _cli("grade", str(loop_file))
    assert result.returncode == 2 and "forking a process" in result.stderr, result.stderr


def test_the_network_is_refused(sandbox_dirs):
    def agent_loop(client, prompt, tools, run_tool):
        import socket

        socket.create_connection(("127.0.0.1", 9), timeout=1)

    _fails(_case(agent_loop), "forbidden-operation", "network")


# ------------------------------------------------------------------------------ files


def test_reading_outside_the_allowed_files_is_refused(sandbox_dirs):
    secret = sandbox_dirs / "keep.txt"

    def agent_loop(client, prompt, tools, run_tool):
        for path in (os.path.expanduser("~/.ssh/id_rsa"), str(secret)):
            try:
                open(path).read()
            except OSError:
                pass
        return "Paris: 18°C, sunny"

    _fails(_case(agent_loop), "forbidden-operation", "reading", ".ssh")
    _fails(_case(agent_loop, lang="es"), "forbidden-operation", "El bucle intentó leer", ".ssh")

    def shows_the_error(client, prompt, tools, run_tool):
        try:
            open(os.path.expanduser("~/.ssh/id_rsa"))
        except PermissionError as exc:
            return str(exc)

    assert "no está permitido" in _case(shows_the_error, lang="es").returned


def test_writing_and_deleting_outside_the_scratch_directory_are_refused(sandbox_dirs):
    outside = sandbox_dirs

    def agent_loop(client, prompt, tools, run_tool):
        with open("notes.txt", "w") as f:  # the scratch directory: allowed
            f.write("ok")
        for attack in (lambda: (outside / "keep.txt").unlink(), lambda: (outside / "new.txt").write_text("x"),
                       lambda: os.rename(outside / "keep.txt", "stolen.txt")):
            try:
                attack()
            except OSError:
                pass
        raise RuntimeError("done attacking")

    case = _case(agent_loop)
    _fails(case, "forbidden-operation", "outside")


def test_the_scratch_directory_is_the_working_directory_and_is_removed(sandbox_dirs, tmp_path):
    def agent_loop(client, prompt, tools, run_tool):
        os.makedirs("a/b")
        Path("a/b/c.txt").write_text("x")
        os.chmod("a", 0o500)  # cannot be removed without the grader putting the permission back
        return os.getcwd()

    case = _case(agent_loop)
    assert case.diagnosis == "wrong-answer"
    assert case.returned.startswith(str(tmp_path / "tmp" / "agentlab-grade-"))


# ------------------------------------------------------------------------------ the judge


def test_the_grader_cannot_be_rebound_nor_the_answers_read(sandbox_dirs):
    judge = agentlab.grader.judge

    def agent_loop(client, prompt, tools, run_tool):
        import agentlab.grader

        agentlab.grader.judge = lambda run, lang="en": None
        return "passed"

    _fails(_case(agent_loop), "forbidden-operation", "importing agentlab.grader")
    assert agentlab.grader.judge is judge

    def reads_the_cases(client, prompt, tools, run_tool):
        from agentlab.fake._catalogue import get_scenario

        return get_scenario("weather").extra["answer_contains"]

    _fails(_case(reads_the_cases), "forbidden-operation", "agentlab.fake")

    def reads_the_source(client, prompt, tools, run_tool):
        return open(os.path.join(os.path.dirname(agentlab.__file__), "fake", "_catalogue.py")).read()

    _fails(_case(reads_the_source), "forbidden-operation", "_catalogue.py")


def test_a_fix_the_code_answer_that_rebinds_the_judge_is_not_recorded_as_correct(sandbox_dirs):
    from agentlab.quiz import grade_code

    code = textwrap.dedent("""
        import agentlab.grader as g
        g.judge = lambda run, lang="en": None

        def agent_loop(client, prompt, tools, run_tool):
            return ""
    """)
    score, report, message, _ = grade_code(code, "en")
    assert score == 0.0 and report is None and "importing agentlab.grader" in message


def test_a_str_subclass_is_a_non_string_return(sandbox_dirs):
    def agent_loop(client, prompt, tools, run_tool):
        class Yes(str):
            def __contains__(self, item):
                return True

        return Yes("anything")

    _fails(_case(agent_loop), "returned-non-string", "Yes")


def test_a_tool_error_that_ends_the_loop_is_still_named(sandbox_dirs):
    def agent_loop(client, prompt, tools, run_tool):
        messages = [{"role": "user", "content": prompt}]
        while True:
            resp = client.messages.create(model="claude-sonnet-5", max_tokens=1024, tools=tools, messages=messages)
            if resp.stop_reason != "tool_use":
                return "".join(b.text for b in resp.content if b.type == "text")
            messages.append({"role": "assistant", "content": resp.content})
            results = []
            for b in resp.content:
                if b.type == "tool_use":
                    try:
                        results.append({"type": "tool_result", "tool_use_id": b.id, "content": run_tool(b.name, b.input)})
                    except Exception as exc:
                        raise RuntimeError("tool failed") from exc  # wrapped: still the tool's error
            messages.append({"role": "user", "content": results})

    case = _case(agent_loop, "failing_tool")
    _fails(case, "tool-error-crashes-loop")


def test_runaway_loop_reaches_the_child_with_the_fakes_message(sandbox_dirs):
    def agent_loop(client, prompt, tools, run_tool):
        messages = [{"role": "user", "content": prompt}]
        try:
            while True:
                client.messages.create(model="claude-sonnet-5", max_tokens=100, tools=tools, messages=messages)
        except agentlab.RunawayLoop as exc:
            raise RuntimeError(f"caught RunawayLoop: {exc}") from exc

    case = _case(agent_loop)
    assert not case.passed and "caught RunawayLoop: runaway loop on scenario 'weather'" in case.exception


def test_what_the_loop_prints_is_captured_trimmed_and_echoed(sandbox_dirs, capsys):
    def agent_loop(client, prompt, tools, run_tool):
        print("hello from the loop")
        print("x" * 10_000)
        os.write(2, b"straight to fd 2\n")
        return "nothing"

    _case(agent_loop)
    out = capsys.readouterr().out
    assert "hello from the loop" in out and "straight to fd 2" in out and "characters cut" in out
    assert len(out) < 3000


def test_the_child_dies_with_the_grading_process(tmp_path):
    script = tmp_path / "grader.py"
    script.write_text(textwrap.dedent("""
        import agentlab

        def agent_loop(client, prompt, tools, run_tool):
            while True:
                pass

        print("grading", flush=True)
        agentlab.grade(agent_loop, only=["end_turn"], time_limit=60)
    """))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)})
    assert proc.stdout.readline().strip() == "grading"

    def grandchildren() -> set[int]:  # the grading child is the forkserver's child
        parents = _parents()
        mine = _descendants(proc.pid, parents)
        return {p for p in mine if parents.get(p) in mine}

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not grandchildren():
        time.sleep(0.1)
    assert grandchildren(), "the grading child never started"
    time.sleep(0.5)  # it is running the loop now
    family = _descendants(proc.pid)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(family):
        time.sleep(0.1)
    assert _alive(family) == [], "processes outlived the grader"


def _alive(pids: set[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        if stat[stat.rindex(")") + 2] != "Z":
            alive.append(pid)
    return alive


def test_a_correct_loop_still_passes_every_case_isolated():
    from agentlab.loops.reference import agent_loop

    assert grade(agent_loop).passed


def test_a_loop_that_empties_its_working_directory_only_empties_the_scratch(sandbox_dirs, tmp_path):
    loop_file = tmp_path / "wipes.py"
    loop_file.write_text(textwrap.dedent("""
        import os, shutil

        def agent_loop(client, prompt, tools, run_tool):
            for name in os.listdir("."):
                shutil.rmtree(name) if os.path.isdir(name) else os.remove(name)
            return "done"
    """))
    result = _cli("grade", str(loop_file), "--only", "end_turn", cwd=sandbox_dirs)
    assert result.returncode == 1, result.stdout
    assert (sandbox_dirs / "keep.txt").read_text() == "precious"


def test_a_partial_or_a_callable_object_is_sent_too(sandbox_dirs):
    import functools

    def loop(client, prompt, tools, run_tool, *, suffix):
        return seed_001_loop(client, prompt, tools, run_tool) + suffix

    assert grade(functools.partial(loop, suffix=""), only=["end_turn"]).passed


def test_the_environment_of_the_child_has_no_secrets(sandbox_dirs, tmp_path):
    loop_file = tmp_path / "env.py"
    loop_file.write_text("import os\n\ndef agent_loop(client, prompt, tools, run_tool):\n"
                         "    return os.environ.get('ANTHROPIC_API_KEY', 'no key')\n")
    result = _cli("grade", str(loop_file), "--only", "end_turn", "--json", env={"ANTHROPIC_API_KEY": "sk-ant-secret"})
    assert result.returncode == 1 and "sk-ant-secret" not in result.stdout + result.stderr
    assert '"returned": "no key"' in result.stdout


def test_a_grading_scripts_top_level_does_not_run_in_the_child(tmp_path):
    # multiprocessing would import the parent's __main__ again in the child, before the audit hook:
    # a script that imports agentlab.grader would put the cases and their answers there
    script = tmp_path / "grade_all.py"
    script.write_text(textwrap.dedent("""
        import sys
        import agentlab.grader

        print("top level ran", file=sys.stderr)

        def agent_loop(client, prompt, tools, run_tool):
            return repr(sorted(m for m in sys.modules if m.startswith(("agentlab.grader", "agentlab.fake"))))

        if __name__ == "__main__":
            print(agentlab.grader.grade(agent_loop, only=["end_turn"])["end_turn"].returned)
    """))
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.stdout.strip() == "[]", result.stderr
    assert result.stderr.count("top level ran") == 1


def test_without_a_forkserver_grading_runs_here_with_a_warning(monkeypatch):
    import multiprocessing

    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])  # as on Windows
    with pytest.warns(RuntimeWarning, match="not isolated"):
        assert grade(seed_001_loop, only=["end_turn"]).passed
    with pytest.warns(RuntimeWarning), pytest.raises(LoadError) as info:
        grade_source("def helper():\n    pass\n")
    assert info.value.kind == "missing"
    source = "def agent_loop(client, prompt, tools, run_tool):\n    return 'x'\n"
    with pytest.warns(RuntimeWarning):
        assert grade_source(source, only=["end_turn"])["end_turn"].diagnosis == "wrong-answer"


def test_a_thread_left_running_by_one_case_does_not_reach_the_next(sandbox_dirs):
    def agent_loop(client, prompt, tools, run_tool, started=[]):  # noqa: B006 - kept across cases on purpose
        import threading

        if started:  # the second case: no new thread, time for the first case's thread to try
            time.sleep(0.3)
            return seed_001_loop(client, prompt, tools, run_tool)
        started.append(True)

        def keep_calling():
            while True:
                try:
                    client.messages.create(model="claude-sonnet-5", max_tokens=10,
                                           messages=[{"role": "user", "content": "stray"}])
                except BaseException:  # noqa: BLE001 - the stray thread goes on
                    time.sleep(0.01)

        threading.Thread(target=keep_calling, daemon=True).start()
        time.sleep(0.2)
        return seed_001_loop(client, prompt, tools, run_tool)

    report = grade(agent_loop, only=["end_turn", "parallel_tools"])
    # the stray requests of the first case's thread never reach the second case's journal
    clean = grade(seed_001_loop, only=["parallel_tools"])["parallel_tools"]
    assert report["parallel_tools"].passed, report["parallel_tools"].explanation
    assert report["parallel_tools"].steps == clean.steps


# ------------------------------------------------------------------------------ Agent SDK consumers


def test_an_agent_sdk_consumer_is_isolated_too(sandbox_dirs, tmp_path):
    pytest.importorskip("claude_agent_sdk")
    from agentlab.loops.sdk_specimens import correct_consumer

    assert grade(correct_consumer, only=["success", "api_error"]).passed

    async def exits(messages):
        async for _ in messages:
            os._exit(0)

    _fails(grade(exits, only=["success"])["success"], "exited", "status 0")

    async def snoops(messages):
        open(os.path.expanduser("~/.ssh/id_rsa")).read()

    _fails(grade(snoops, only=["success"])["success"], "forbidden-operation", ".ssh")

    consumer = tmp_path / "consumer.py"
    consumer.write_text("import os\n\nasync def consume(messages):\n    os.system('echo hi')\n    return ''\n")
    result = _cli("grade", str(consumer), "--only", "success")
    assert result.returncode == 1 and "shell" in result.stdout, (result.stdout, result.stderr)
