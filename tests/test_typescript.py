"""TypeScript loops on the fake over HTTP: the exam guide's loop run verbatim with the real
``@anthropic-ai/sdk``, and ``agentlab grade loop.ts`` giving the TypeScript twins the very verdicts
the Python specimens get.

These tests need Node.js 20.6+ and the npm packages of package.json (``python3 tasks.py setup``
runs ``npm ci``; CI has Node.js). Without them every test here FAILS with a message saying what is
missing, so a CI machine without Node.js cannot pass silently; set ``AGENTLAB_NO_NODE=1`` to skip
them instead on a machine that has no Node.js on purpose.

Every TypeScript twin is graded in ONE Node.js process (``grade_typescript_many``), once per test
session, so the whole file stays well under a minute on two cores.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from functools import cache
from pathlib import Path

import pytest

import agentlab
from agentlab.cli import main as cli_main
from agentlab.grader import CASE_NAMES, Report, TypeScriptError, grade_typescript, grade_typescript_many
from agentlab.grader import _typescript
from agentlab.loops.specimens import SPECIMENS, correct_loop
from agentlab.serve import FakeApp, running

from .loops.seed_001 import agente

ROOT = Path(__file__).resolve().parent.parent
TS_LOOPS = ROOT / "agentlab" / "loops" / "typescript"
EXAMPLES = ROOT / "examples" / "typescript"


def _node_problem() -> str | None:
    if shutil.which("node") is None or shutil.which("npm") is None:
        return "Node.js/npm are not on PATH"
    if not _typescript._has_packages(ROOT):
        return f"{ROOT / 'node_modules'} lacks @anthropic-ai/sdk or tsx (run `python3 tasks.py setup` or `npm ci`)"
    return None


NODE_PROBLEM = _node_problem()


@pytest.fixture(autouse=True)
def _needs_node():
    if NODE_PROBLEM is None:
        return
    if os.environ.get("AGENTLAB_NO_NODE") == "1":
        pytest.skip(f"AGENTLAB_NO_NODE=1: {NODE_PROBLEM}")
    pytest.fail(f"tests/test_typescript.py needs Node.js 20.6+ and `npm ci`: {NODE_PROBLEM}. "
                "Install them, or set AGENTLAB_NO_NODE=1 to skip these tests on purpose.", pytrace=False)


# ------------------------------------------------------------------------------------ graded once


def _twin(tag: str) -> Path:
    return TS_LOOPS / f"{tag}.ts"


NAMES = ["correct", "seed_001", *SPECIMENS]
"""The loops graded in both languages: the reference, the seed's loop, every specimen."""


def _ts_target(name: str) -> str:
    if name == "correct":
        return str(TS_LOOPS / "correct_loop.ts")
    if name == "seed_001":
        return f"{TS_LOOPS / 'seed_loop.ts'}:agente"
    return str(_twin(name))


_TIMES: dict[str, float] = {}


@cache
def _ts_reports() -> dict[str, Report]:
    """Every TypeScript loop graded in one Node.js process."""
    names = [n for n in NAMES if n in ("correct", "seed_001") or _twin(n).is_file()]
    start = time.perf_counter()
    reports = grade_typescript_many([_ts_target(n) for n in names], lang="en")
    _TIMES["typescript"] = time.perf_counter() - start
    return dict(zip(names, reports))


@cache
def _py_report(name: str) -> Report:
    loop = {"correct": correct_loop, "seed_001": agente}.get(name) or SPECIMENS[name]
    return agentlab.grade(loop, lang="en")


def _verdicts(report: Report) -> dict[str, tuple[str, ...]]:
    """case -> its diagnosis tags (empty when it passed)."""
    return {c.name: tuple(c.diagnoses) for c in report.cases}


def _outcome(case) -> tuple[str | None, str | None]:
    """(returned, exception) with JavaScript's Error written as Python's RuntimeError."""
    exception = re.sub(r"^Error: ", "RuntimeError: ", case.exception) if case.exception else None
    return case.returned, exception


# ------------------------------------------------------------------------------------ the twins


@pytest.mark.parametrize("tag", list(SPECIMENS))
def test_every_python_specimen_has_a_typescript_twin(tag):
    path = _twin(tag)
    assert path.is_file(), f"no TypeScript twin of the {tag} specimen: add {path.relative_to(ROOT)}"
    source = path.read_text(encoding="utf-8")
    assert re.search(r"^export async function agentLoop\(client: Anthropic, prompt: string, tools: Anthropic\.Tool\[\], "
                     r"runTool: RunTool\): Promise<string> \{$", source, re.M)
    assert f"// FAULT ({tag})" in source
    assert source.count("// FAULT (") == source.count(f"// FAULT ({tag})"), "a twin marks only its own fault"
    doc = SPECIMENS[tag].__doc__.split("\n")[0].strip()
    assert doc in source, "the twin's header repeats its specimen's Fault: line"


def test_correct_loop_has_no_fault():
    assert "// FAULT" not in (TS_LOOPS / "correct_loop.ts").read_text(encoding="utf-8")


@pytest.mark.parametrize("tag", list(SPECIMENS))
def test_twin_gets_the_verdicts_of_its_python_specimen(tag):
    """Same failing cases, same diagnosis tags (in the same order), same value returned or error
    raised, case by case."""
    assert _twin(tag).is_file(), f"no TypeScript twin of the {tag} specimen"
    ts, py = _ts_reports()[tag], _py_report(tag)
    assert _verdicts(ts) == _verdicts(py)
    assert tag in {d for c in ts.cases for d in c.diagnoses}
    assert {c.name: _outcome(c) for c in ts.cases} == {c.name: _outcome(c) for c in py.cases}


@pytest.mark.parametrize("name", ["correct", "seed_001"])
def test_reference_loops_pass_every_case_like_the_python_ones(name):
    ts, py = _ts_reports()[name], _py_report(name)
    assert [c.name for c in ts.cases] == list(CASE_NAMES)
    assert {c.name: c.diagnoses for c in ts.cases if not c.passed} == {}
    assert ts.passed and py.passed
    assert {c.name: _outcome(c) for c in ts.cases} == {c.name: _outcome(c) for c in py.cases}
    assert ts.loop_name == ("agentLoop" if name == "correct" else "agente")


def test_grading_every_twin_is_quick():
    _ts_reports()
    assert _TIMES["typescript"] < 40, f"grading the TypeScript loops took {_TIMES['typescript']:.1f} s"


def test_every_typescript_loop_type_checks():
    """tsx only strips types: tsc (strict, tsconfig.json) checks the loops and the guide's loop
    against the pinned SDK's own types."""
    done = subprocess.run(["npx", "--no-install", "tsc", "-p", "tsconfig.json"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


# ------------------------------------------------------------------------------------ the seed's loop, verbatim


def test_the_exam_guides_loop_prints_its_answer_over_http():
    with running(FakeApp()) as server:
        env = dict(os.environ, ANTHROPIC_BASE_URL=server.base_url, ANTHROPIC_API_KEY="docs_search")
        done = subprocess.run(["npx", "--no-install", "tsx", str(EXAMPLES / "run_seed_loop.ts")], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=60)
        journal = server.journal("docs_search")
    assert done.returncode == 0, done.stderr
    # its own buscar_docs finds nothing, and the model says so (the docs_search scenario, seed 001)
    assert done.stdout.strip() == ("No he encontrado nada en la documentación interna sobre "
                                   "«Cuántos días de vacaciones tengo al año».")
    assert [e.stop_reason for e in journal.steps] == ["tool_use", "end_turn"]
    assert {e.request["model"] for e in journal.steps} == {"claude-sonnet-5-5"}
    assert journal.steps[1].messages[2]["content"][0]["content"] == "Sin resultados para «Cuántos días de vacaciones tengo al año»"


def test_the_verbatim_loop_differs_from_the_graded_one_only_in_its_globals():
    verbatim = (EXAMPLES / "seed_loop.ts").read_text(encoding="utf-8")
    assert "const client = new Anthropic();" in verbatim and "export async function agente(pregunta: string)" in verbatim
    assert "seed 001" not in verbatim.lower() and "semilla" not in verbatim.lower()
    graded = (TS_LOOPS / "seed_loop.ts").read_text(encoding="utf-8")
    body = lambda text: text[text.index("  for (let paso = 0"):]  # noqa: E731
    assert body(graded) == body(verbatim).replace("usos.map(ejecutar)", "usos.map((b) => ejecutar(b, runTool))")


# ------------------------------------------------------------------------------------ the grader's guards


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


CORRECT_IMPORT = f'import {{ agentLoop as correct }} from {json.dumps(str(TS_LOOPS / "correct_loop.ts"))};\n'


def test_hangs_are_timed_out_node_is_restarted_and_the_limit_used_is_named(tmp_path):
    loop = _write(tmp_path, "hangs.mts", CORRECT_IMPORT + """
export async function agentLoop(client: any, prompt: string, tools: any[], runTool: any): Promise<string> {
  if (tools[0]?.name === "get_weather" && prompt.includes("Austin")) while (true) {}   // end_turn: spin forever
  if (tools[0]?.name === "track_package") return await new Promise<string>(() => {});  // never settles
  return correct(client, prompt, tools, runTool);
}
""")
    start = time.perf_counter()
    report = grade_typescript(loop, only=["end_turn", "text_and_tool_use", "failing_tool"], time_limit=1.5)
    assert time.perf_counter() - start < 20
    assert {c.name: c.diagnoses for c in report.cases} == {"end_turn": ["timeout"], "text_and_tool_use": ["timeout"],
                                                          "failing_tool": []}
    assert "after 1.5 s" in report["end_turn"].explanation  # not the case's default 10 s


def _gone(pid: int, wait: float = 5.0) -> bool:
    """Whether process ``pid`` has ended (a zombie counts as ended) within ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        stat = Path(f"/proc/{pid}/stat")
        if stat.exists() and stat.read_text().split(") ")[-1].startswith("Z"):
            return True
        time.sleep(0.05)
    return False


def test_what_a_loop_returns_or_throws_is_reported_as_in_python(tmp_path):
    loop = _write(tmp_path, "odd.mjs", CORRECT_IMPORT + """
export async function agentLoop(client, prompt, tools, runTool) {
  if (prompt.includes("Austin")) return undefined;
  if (tools[0]?.name === "track_package") throw new TypeError("no such thing");
  if (tools[0]?.name === "get_weather") process.exit(3);
  return correct(client, prompt, tools, runTool);
}
""")
    report = grade_typescript(loop, only=["end_turn", "text_and_tool_use", "parallel_tools", "failing_tool"])
    cases = {c.name: c for c in report.cases}
    assert cases["end_turn"].diagnoses == ["returned-non-string"]
    assert "undefined" in cases["end_turn"].explanation
    assert cases["text_and_tool_use"].exception == "TypeError: no such thing"
    assert cases["text_and_tool_use"].diagnoses == ["loop-raised"]
    assert cases["parallel_tools"].exception.startswith("ProcessExit: Node.js exited with code 3")
    assert cases["parallel_tools"].diagnoses == ["exited"]
    assert cases["failing_tool"].passed  # Node.js was started again after the exit


def test_a_loop_outside_the_checkout_finds_the_sdk_and_its_errors(tmp_path):
    """Both module systems: a .ts with no package.json is CommonJS (NODE_PATH), a .mts is ESM
    (the harness's resolve hook); the API error it catches is the SDK's own class."""
    body = """import Anthropic from "@anthropic-ai/sdk";
export async function agentLoop(client: Anthropic, prompt: string): Promise<string> {
  try {
    await client.messages.create({ model: "claude-sonnet-5", max_tokens: 1024, messages: [] });
    return "no error";
  } catch (e) {
    return e instanceof Anthropic.BadRequestError ? `caught ${e.status}` : `other ${e}`;
  }
}
"""
    reports = grade_typescript_many([_write(tmp_path, "cjs.ts", body), _write(tmp_path, "esm.mts", body)],
                                    only=["end_turn"])
    for report in reports:
        case = report.cases[0]
        assert case.returned == "caught 400"
        assert case.diagnoses == ["wrong-answer"]


def test_a_file_that_does_not_compile_names_the_file_and_line(tmp_path):
    bad = _write(tmp_path, "bad.ts", "export async function agentLoop() {\n  const x = ;\n}\n")
    with pytest.raises(TypeScriptError) as raised:
        grade_typescript(bad)
    assert f"{bad}:2:" in str(raised.value) and "Unexpected" in str(raised.value)
    throws = _write(tmp_path, "throws.ts", "const a: number = 1;\nthrow new Error(`boom ${a}`);\n")
    with pytest.raises(TypeScriptError, match=re.escape(f"{throws}:2") + ".*Error: boom 1"):
        grade_typescript(throws)


def test_a_missing_export_names_the_file_the_export_and_what_it_has(tmp_path):
    loop = _write(tmp_path, "other.ts", "export async function myLoop() { return 'x'; }\nexport const n = 1;\n")
    with pytest.raises(TypeScriptError, match=r"other\.ts does not export a function 'agentLoop'; .*: myLoop$"):
        grade_typescript(loop)
    assert grade_typescript(f"{loop}:myLoop", only=["refusal"]).loop_name == "myLoop"


def test_without_node_the_cli_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))  # no node here
    code = cli_main(["grade", str(TS_LOOPS / "correct_loop.ts")])
    err = capsys.readouterr().err
    assert code == 2
    assert "needs Node.js 20.6 or newer" in err and "python3 tasks.py setup" in err and "Traceback" not in err
    assert cli_main(["grade", str(TS_LOOPS / "correct_loop.ts"), "--lang", "es"]) == 2
    assert "hace falta Node.js" in capsys.readouterr().err


def test_without_node_modules_the_error_says_to_run_npm_ci(monkeypatch):
    monkeypatch.setattr(_typescript, "_has_packages", lambda root: False)
    with pytest.raises(TypeScriptError, match=r"python3 tasks.py setup.*npm ci"):
        agentlab.grade(str(TS_LOOPS / "correct_loop.ts"))


def test_grade_takes_a_path_and_refuses_other_files(tmp_path):
    with pytest.raises(TypeError, match="TypeScript/JavaScript"):
        agentlab.grade(str(tmp_path / "loop.py"))
    with pytest.raises(TypeScriptError, match="no such file"):
        agentlab.grade(str(tmp_path / "loop.ts"))
    report = agentlab.grade(TS_LOOPS / "correct_loop.ts", only=["end_turn"])
    assert report.passed and [c.name for c in report.cases] == ["end_turn"]


def test_cli_grades_a_typescript_file(tmp_path, capsys):
    chatty = _write(tmp_path, "chatty.mts", CORRECT_IMPORT + """
export async function agentLoop(client: any, prompt: string, tools: any[], runTool: any): Promise<string> {
  console.log("thinking about", prompt);
  process.stdout.write("no newline");
  return correct(client, prompt, tools, runTool);
}
""")
    assert cli_main(["grade", str(chatty), "--only", "end_turn,refusal", "--json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)  # what the loop printed went to stderr
    assert [c["name"] for c in out["cases"]] == ["end_turn", "refusal"] and out["passed"]
    assert "thinking about What should I wear in Austin today?" in captured.err
    assert cli_main(["grade", f"{_twin('retries-refusal')}:agentLoop", "--only", "refusal"]) == 1
    assert "retries-refusal" in capsys.readouterr().out


# ------------------------------------------------------------------------------------ a hostile loop (issue 11)


FORGE = """
export async function agentLoop(client: any, prompt: string): Promise<string> {
  const seen: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  (process.stdout as any).write = (chunk: any, ...rest: any[]) => { seen.push(String(chunk)); return write(chunk, ...rest); };
  process.stdout.write(`${process.env.AGENTLAB_MARK} {"event":"end"}\\n`);
  process.stdout.write(`${process.env.AGENTLAB_MARK} 5\\n`);
  const fs = await import("node:fs");
  let wrote = 0;
  const links: Record<number, string> = {};
  for (let fd = 3; fd < 1024; fd++) try { links[fd] = fs.readlinkSync(`/proc/self/fd/${fd}`); } catch {}
  for (let fd = 3; fd < 1024; fd++) {  // the grader's pipe: a pipe whose other end is not Node's own (its internal pipes)
    if (!links[fd]?.startsWith("pipe:") || Object.values(links).filter((l) => l === links[fd]).length > 1) continue;
    try { fs.writeSync(fd, `${process.env.AGENTLAB_MARK} {"event":"end","id":0,"returned":{"type":"string","value":"forged"}}\\n5\\n`); wrote++; } catch {}
  }
  const r = await client.messages.create({ model: "claude-sonnet-5", max_tokens: 1024, messages: [{ role: "user", content: prompt }] });
  await new Promise((resolve) => setTimeout(resolve, 50));  // the next case's start line, if it went to stdout
  return `mark=${process.env.AGENTLAB_MARK} env=${Object.keys(process.env).filter((k) => k.includes("MARK")).join(",")} ` +
    `argv=${process.argv.join(" ").includes("AGENTLAB-")} seen=${seen.some((l) => l.includes("AGENTLAB-"))} wrote=${wrote}`;
}
"""


def test_a_loop_cannot_read_or_forge_the_protocol(tmp_path, capsys):
    """The mark is not in the environment or argv, protocol lines do not pass through stdout, and
    lines the loop writes (on stdout, on any fd) are ignored: the grade ends normally."""
    loop = _write(tmp_path, "forge.ts", FORGE)
    assert cli_main(["grade", str(loop), "--only", "end_turn,refusal", "--json"]) == 1
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert [c["diagnoses"] for c in out["cases"]] == [["wrong-answer"], []]  # the refusal case passes either way
    assert "returned 'mark=undefined env= argv=false seen=false wrote=1'" in out["cases"][0]["explanation"]["en"]
    assert "AGENTLAB-" not in captured.err  # what the loop printed, passed through: its forgeries only


def test_a_message_for_another_case_or_malformed_is_ignored(monkeypatch):
    """The Python side: whatever arrives on the protocol pipe that is not the message expected for
    the case running is ignored, never a KeyError or TypeError out of grade()."""
    real = _typescript._Node.next
    junk = [{"event": "end"}, {"event": "end", "id": 999, "returned": {"type": "string", "value": "x"}},
            {"event": "end", "id": "0"}, {"event": "start"}, {"event": "load", "ok": False, "module": 7},
            {"event": "end", "id": 0, "returned": 5}, {"event": 5}, {}]

    def next_with_junk(self, timeout):
        if junk and not getattr(self, "_junked", False):
            self._junked = True
            return junk.pop()
        self._junked = False
        return real(self, timeout)

    monkeypatch.setattr(_typescript._Node, "next", next_with_junk)
    report = grade_typescript(TS_LOOPS / "correct_loop.ts", only=["end_turn", "refusal", "failing_tool"])
    assert report.passed, report.cases
    assert not junk


EXIT = """
export async function agentLoop(client: any, prompt: string): Promise<string> {
  await client.messages.create({ model: "claude-sonnet-5", max_tokens: 1024, messages: [{ role: "user", content: prompt }] });
  if (prompt.includes("SIGNAL")) process.kill(process.pid, "SIGKILL");
  process.exit(0);
}
"""


def test_a_loop_that_ends_node_fails_the_stop_cases_as_exited(tmp_path):
    """process.exit(0) (or a signal) is not the loud stop a stop case wants: nothing is left to report it."""
    stops = [c.name for c in _typescript.CASES if c.expect == "stop"]
    assert len(stops) >= 5
    report = grade_typescript(_write(tmp_path, "exit0.ts", EXIT), only=stops)
    assert {c.name: c.diagnoses for c in report.cases} == {name: ["exited"] for name in stops}
    assert all("it exited with code 0" in c.explanation and "process.exit()" in c.explanation for c in report.cases)
    killed = grade_typescript(_write(tmp_path, "kill.ts", EXIT.replace('prompt.includes("SIGNAL")', "true")),
                              only=stops[:1])
    assert killed.cases[0].diagnoses == ["exited"] and "it was killed by SIGKILL" in killed.cases[0].explanation
    es = grade_typescript(_write(tmp_path, "exit1.ts", "export async function agentLoop() { process.exit(1); }"),
                          only=["refusal"], lang="es")
    assert es.cases[0].diagnoses == ["exited"] and "terminó con el código 1" in es.cases[0].explanation


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (from /proc), any session."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


SPAWN = """
import * as cp from "node:child_process";
import { spawn } from "node:child_process";
import { Worker } from "node:worker_threads";
import { register } from "node:module";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
const attempts: Record<string, () => unknown> = {
  spawn: () => spawn("sleep", ["123"]),
  detached: () => cp.spawn("sleep", ["124"], { detached: true, stdio: ["ignore", "inherit", "inherit"] }).unref(),
  exec: () => cp.exec("sleep 125"),
  execSync: () => cp.execSync("true"),
  fork: () => cp.fork("/dev/null"),
  required: () => createRequire(import.meta.url)("child_process").spawnSync("true"),
  ChildProcess: () => new cp.ChildProcess().spawn({ file: "sleep", args: ["sleep", "126"], stdio: "ignore" } as any),
  worker: () => new Worker("setInterval(() => {}, 1000)", { eval: true }),
  register: () => register("data:text/javascript,export {}"),
  write: () => writeFileSync(WRITE_HERE, "x"),
};
export async function agentLoop(client: any, prompt: string): Promise<string> {
  const got: string[] = [];
  for (const [name, attempt] of Object.entries(attempts)) {
    try { attempt(); got.push("A"); } catch (e: any) { got.push(e.code === "ERR_ACCESS_DENIED" ? "D" : `(${name} ${e.code})`); }
  }
  await client.messages.create({ model: "claude-sonnet-5", max_tokens: 1024, messages: [{ role: "user", content: prompt }] });
  return got.join("");
}
"""


def test_a_loop_cannot_start_processes_or_threads_or_write_files(tmp_path):
    target = tmp_path / "written.txt"
    loop = _write(tmp_path, "spawn.ts", SPAWN.replace("WRITE_HERE", json.dumps(str(target))))
    before = _descendants(os.getpid())
    report = grade_typescript(loop, only=["end_turn"])
    # spawn, detached, exec, execSync, fork, required, ChildProcess, worker, register, write: each Denied
    assert report.cases[0].returned == "D" * 10
    assert not target.exists()
    assert _descendants(os.getpid()) <= before, "a process started by the grading is still running"


def test_killing_the_grader_kills_node(tmp_path):
    """SIGTERM to `agentlab grade` while a loop spins: Node.js dies with it (PR_SET_PDEATHSIG)."""
    loop = _write(tmp_path, "spin.ts", "export async function agentLoop(): Promise<string> { while (true) {} }\n")
    grader = subprocess.Popen([sys.executable, "-m", "agentlab", "grade", str(loop)], cwd=ROOT,
                              env=dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp_path)),  # its scratch dir
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        nodes: set[int] = set()
        while time.monotonic() < deadline and not nodes:
            nodes = {p for p in _descendants(grader.pid)
                     if Path(f"/proc/{p}/comm").exists() and "node" in Path(f"/proc/{p}/comm").read_text()}
            time.sleep(0.1)
        assert nodes, "the grader started no Node.js"
        time.sleep(1.0)  # the case is running
        grader.send_signal(signal.SIGTERM)
        grader.wait(timeout=10)
        assert all(_gone(p) for p in nodes), "Node.js outlived the grader"
    finally:
        if grader.poll() is None:
            grader.kill()


THROW = """
let n = 0;
export async function agentLoop(client: any, prompt: string): Promise<string> {
  await client.messages.create({ model: "claude-sonnet-5", max_tokens: 1024, messages: [{ role: "user", content: prompt }] });
  const odd: any[] = [
    Object.defineProperty(new Error("x"), "cause", { get() { throw new Error("boom"); } }),
    Object.defineProperty(new Error("z"), "name", { get() { throw new Error("namegetter"); } }),
    Object.defineProperty(new Error("m"), "message", { get() { throw new Error("messagegetter"); } }),
    Object.defineProperty(new Error("s"), "stack", { get() { throw new Error("stackgetter"); } }),
    new Proxy({}, { get() { throw new Error("trap"); }, getPrototypeOf() { throw new Error("trap2"); } }),
    { toString() { throw new Error("tostring"); }, [Symbol.toPrimitive]() { throw new Error("prim"); } },
    42,
  ];
  throw odd[n++ % odd.length];
}
"""


def test_errors_whose_properties_throw_are_loop_raised_at_once(tmp_path):
    finishes = [c.name for c in _typescript.CASES if c.expect == "finish"][:7]
    start = time.perf_counter()
    report = grade_typescript(_write(tmp_path, "throwodd.ts", THROW), only=finishes, time_limit=8)
    assert time.perf_counter() - start < 8, "a case waited for its time limit"
    assert [c.diagnoses for c in report.cases] == [["loop-raised"]] * len(finishes)
    assert report.cases[0].exception == "Error: x"


def test_a_huge_output_line_does_not_take_the_graders_memory(tmp_path):
    loop = _write(tmp_path, "flood.ts", """
export async function agentLoop(client: any, prompt: string): Promise<string> {
  const big = "x".repeat(150_000_000);
  process.stdout.write(big);
  process.stderr.write(big);
  const r = await client.messages.create({ model: "claude-sonnet-5", max_tokens: 1024, messages: [{ role: "user", content: prompt }] });
  return "y".repeat(30_000_000);
}
""")
    script = (f"import resource, sys; from agentlab.grader import grade_typescript\n"
              f"before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
              f"r = grade_typescript({str(loop)!r}, only=['end_turn'])\n"
              f"print(before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, r.cases[0].diagnoses)")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    before, after, diagnoses = done.stdout.splitlines()[-1].split(maxsplit=2)
    assert diagnoses.strip() == "['wrong-answer']"
    assert (int(after) - int(before)) / 1024 < 100, f"the grader grew by {(int(after) - int(before)) / 1024:.0f} MB"
    assert len(done.stderr) < 10_000_000  # passed through with a bound


CJS = """
async function agentLoop(client, prompt, tools, runTool) {
  const r = await client.messages.create({ model: "claude-sonnet-5", max_tokens: 1024, tools,
                                          messages: [{ role: "user", content: prompt }] });
  return r.content.filter((b) => b.type === "text").map((b) => b.text).join("");
}
module.exports = { agentLoop };
"""


def test_commonjs_files_are_graded_and_other_suffixes_refused(tmp_path, capsys):
    for name in ("loop.cjs", "loop.cts"):
        assert cli_main(["grade", str(_write(tmp_path, name, CJS)), "--only", "refusal,end_turn", "--json"]) == 1
        out = json.loads(capsys.readouterr().out)
        assert out["cases"][0]["passed"] and out["cases"][1]["steps"] == 1, out  # it ran: one request each
    for name in ("loop.txt", "loop.rb", "loop"):
        assert cli_main(["grade", str(_write(tmp_path, name, "x = 1\n"))]) == 2
        err = capsys.readouterr().err
        assert "only .py files and .ipynb notebooks can be graded" in err and "Traceback" not in err


def test_a_value_returned_is_described_in_typescript_terms(tmp_path):
    loop = _write(tmp_path, "retodd.ts", """
let n = 0;
export async function agentLoop(client: any, prompt: string): Promise<string> {
  await client.messages.create({ model: "claude-sonnet-5", max_tokens: 1024, messages: [{ role: "user", content: prompt }] });
  return [42, undefined, new String("Austin")][n++ % 3] as any;
}
""")
    finishes = [c.name for c in _typescript.CASES if c.expect == "finish"][:3]
    report = grade_typescript(loop, only=finishes)
    texts = [c.explanation for c in report.cases]
    assert "The loop returned a number (42); agentLoop must resolve to a string." in texts[0]
    assert "The loop returned undefined; agentLoop must resolve to a string." in texts[1]
    assert "a String ([String: 'Austin'])" in texts[2]
    assert not any("str subclass" in t or "object:" in t or "agent_loop" in t for t in texts)
    es = grade_typescript(loop, only=finishes[:1], lang="es")
    assert "El bucle devolvió un valor number (42); agentLoop debe resolverse en un string." in es.cases[0].explanation


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "soon"])
def test_the_time_limit_must_be_a_positive_number(value, capsys):
    with pytest.raises(SystemExit) as raised:
        cli_main(["grade", str(TS_LOOPS / "correct_loop.ts"), "--time-limit", value])
    assert raised.value.code == 2
    assert "--time-limit" in capsys.readouterr().err
    with pytest.raises(ValueError, match="positive"):
        grade_typescript(TS_LOOPS / "correct_loop.ts", time_limit=0)


def test_learner_files_are_graded_one_per_node_process(monkeypatch, capsys):
    """grade_typescript_many shares one process between loops: only for the course's own."""
    def shared(*args, **kwargs):
        raise AssertionError("a learner's file graded in a shared Node.js process")

    monkeypatch.setattr(_typescript, "grade_typescript_many", shared)
    monkeypatch.setattr(agentlab.grader, "grade_typescript_many", shared)
    assert cli_main(["grade", str(TS_LOOPS / "correct_loop.ts"), "--only", "end_turn"]) == 0
    assert agentlab.grade(str(TS_LOOPS / "correct_loop.ts"), only=["refusal"]).passed
