"""The progress store: answers and spaced-repetition cards in SQLite, safe with two writers and
after a crash, and never deleting a learner's file."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from agentlab.quiz import ProgressError, ProgressStore, QuizSession, load_bank

ROOT = Path(__file__).resolve().parent.parent
VALID = Path(__file__).resolve().parent / "quiz_bad_banks" / "valid"
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)

needs_kill = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")


class Clock:
    def __init__(self, start: datetime = T0) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(tmp_path, clock):
    with ProgressStore(tmp_path, user="ana", clock=clock) as s:
        yield s


def rec(store, qid, correct, *, tags=("t1",), missed=None, score=None, topic="basics"):
    missed = (tags[:1] if not correct else ()) if missed is None else missed
    return store.record(qid, topic=topic, correct=correct, score=(1.0 if correct else 0.0) if score is None else score,
                        tags=tags, misconceptions=missed)


def counts(path: Path) -> tuple[int, int, int]:
    """(answers, reviews of question cards, reviews of tag cards) read with plain sqlite3."""
    with sqlite3.connect(path) as db:
        answers = db.execute("SELECT count(*) FROM answers").fetchone()[0]
        q = db.execute("SELECT coalesce(sum(reviews), 0) FROM cards WHERE kind = 'question'").fetchone()[0]
        t = db.execute("SELECT coalesce(sum(reviews), 0) FROM cards WHERE kind = 'tag'").fetchone()[0]
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    return answers, q, t


# =============================================================================== basics


def test_records_every_answer_with_the_clocks_time(store, clock):
    rec(store, "basics-001", False, tags=("t1", "t2"), missed=("t1",))
    clock.now += timedelta(minutes=5)
    r = rec(store, "basics-001", True, tags=("t1", "t2"))
    assert r.answered_at == T0 + timedelta(minutes=5) and r.user == "ana"
    history = store.answers()
    assert [(a.question_id, a.correct, a.score, a.tags, a.misconceptions, a.answered_at) for a in history] == [
        ("basics-001", False, 0.0, ("t1", "t2"), ("t1",), T0),
        ("basics-001", True, 1.0, ("t1", "t2"), (), T0 + timedelta(minutes=5)),
    ]
    assert store.answers("other") == [] and history[0].topic == "basics" and history[0].mode == "practice"
    assert store.tag_misses() == {"t1": 1}


def test_the_file_is_in_wal_mode_under_the_data_dir(store, tmp_path):
    assert store.path == tmp_path / "progress.sqlite3" and store.path.exists()
    assert store.journal_mode == "wal"
    with sqlite3.connect(store.path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_the_data_dir_comes_from_the_env_then_platformdirs(tmp_path, monkeypatch):
    import platformdirs

    from agentlab.quiz import default_data_dir

    monkeypatch.setenv("AGENTLAB_DATA_DIR", str(tmp_path / "env"))
    assert default_data_dir() == tmp_path / "env"
    with ProgressStore(user="x") as s:
        assert s.path == tmp_path / "env" / "progress.sqlite3"
    monkeypatch.delenv("AGENTLAB_DATA_DIR")
    assert default_data_dir() == Path(platformdirs.user_data_dir("agentlab", appauthor=False))


def test_users_are_kept_apart(tmp_path, clock):
    with ProgressStore(tmp_path, user="ana", clock=clock) as ana, ProgressStore(tmp_path, user="ben", clock=clock) as ben:
        rec(ana, "basics-001", False)
        rec(ben, "basics-002", True)
        assert [a.question_id for a in ana.answers()] == ["basics-001"]
        assert [a.question_id for a in ben.answers()] == ["basics-002"]
        assert ana.incorrect_ids() == ["basics-001"] and ben.incorrect_ids() == []
    with ProgressStore(tmp_path, clock=clock) as default:
        assert default.user and default.answers() == []  # the OS user by default


def test_incorrect_ids_follow_the_latest_answer(store, clock):
    rec(store, "q-001", False)
    rec(store, "q-002", False)
    rec(store, "q-003", True, score=1.0)
    rec(store, "q-004", False, score=0.5)  # partial credit is not right yet
    rec(store, "q-001", True)
    assert store.incorrect_ids() == ["q-004", "q-002"]


def test_bad_input(tmp_path, store):
    with pytest.raises(ValueError, match="question q-001: score must be in"):
        store.record("q-001", topic="t", correct=True, score=1.5)
    with pytest.raises(ValueError, match="user must be"):
        ProgressStore(tmp_path, user=" ")
    store.close()
    with pytest.raises(ProgressError, match="closed"):
        store.answers()


# =============================================================================== spaced repetition


def test_due_ranks_by_the_misconceptions_missed_most(store, clock):
    # t-loop is missed 3 times (over two questions), t-cap once; q-ok is answered right: the
    # t-loop questions come first, q-b (missed twice itself) before q-a.
    rec(store, "q-a", False, tags=("t-loop",))
    rec(store, "q-b", False, tags=("t-loop",))
    rec(store, "q-b", False, tags=("t-loop",))
    rec(store, "q-c", False, tags=("t-cap",))
    rec(store, "q-d", False, tags=(), missed=())
    rec(store, "q-ok", True, tags=("t-cap",))
    assert store.tag_misses() == {"t-loop": 3, "t-cap": 1}
    assert store.due(T0) == []  # a miss comes back after the 10-minute step, not at once
    assert store.due_ids(T0 + timedelta(minutes=10)) == ["q-b", "q-a", "q-c", "q-d"]
    later = T0 + timedelta(hours=1)
    due = store.due(later)
    assert [d.question_id for d in due] == ["q-b", "q-a", "q-c", "q-d"]
    assert [(d.tag_misses, d.misses) for d in due] == [(3, 2), (3, 1), (1, 1), (0, 1)]
    assert store.due_ids(later, limit=2) == ["q-b", "q-a"]
    assert "q-ok" not in store.due_ids(T0 + timedelta(days=1))  # a right answer waits days
    assert "q-ok" in store.due_ids(T0 + timedelta(days=60))
    clock.now = later
    assert store.due_ids() == store.due_ids(later)  # default: the store's clock


def test_answering_right_pushes_a_question_back(store, clock):
    rec(store, "q-a", False)
    clock.now = T0 + timedelta(hours=1)
    assert store.due_ids() == ["q-a"]
    rec(store, "q-a", True)
    assert store.due_ids() == []


def test_due_with_a_bank_adds_unseen_questions_on_missed_misconceptions(tmp_path, clock):
    bank = load_bank(VALID, cache=False)
    with ProgressStore(tmp_path, user="ana", clock=clock) as store:
        s = QuizSession(bank, progress=store, seed=0)
        index = [q.id for q in s.questions].index("basics-001")
        s.goto(index)
        s.answer("b")  # misses text-parsing-termination
        rec(store, "gone-001", False, tags=("text-parsing-termination",))  # no longer in the bank
        later = T0 + timedelta(hours=2)
        assert store.due_ids(later) == ["basics-001", "gone-001"] or store.due_ids(later) == ["gone-001", "basics-001"]
        due = store.due(later, bank=bank)
        assert [d.question_id for d in due] == ["basics-001"]  # no other bank question drills that tag
        rec(store, "elsewhere-001", False, tags=("missing-assistant-turn",))  # a miss on that tag
        due = store.due(later, bank=bank)
        ids = [d.question_id for d in due]
        assert ids[0] == "basics-001" and "gone-001" not in ids and "elsewhere-001" not in ids
        # never answered, but they drill the missed missing-assistant-turn
        assert sorted(ids[1:]) == ["basics-002", "bugs-001", "bugs-002"]
        unseen = {d.question_id: d for d in due}["bugs-001"]
        assert (unseen.misses, unseen.tag_misses) == (0, 1)
        assert unseen.due == T0 + timedelta(minutes=10)  # when the tag's card came due
        assert store.due(T0 + timedelta(minutes=5), bank=bank) == []


def test_sessions_record_and_retry_from_the_store(tmp_path, clock):
    bank = load_bank(VALID, cache=False)
    with ProgressStore(tmp_path, user="ana", clock=clock) as store:
        s = QuizSession(bank, progress=store, seed=2)
        while s.current() is not None:
            item = s.current()
            if item.type in ("single", "next_action"):
                s.answer(next(o.id for o in item.options if not o.correct))
            elif item.type == "multiple":
                s.answer(list(item.question.correct_ids))
            s.next()
        assert len(store.answers()) == 3
        assert {a.mode for a in store.answers()} == {"practice"}
        retry = QuizSession(bank, retry_incorrect_from=store, seed=2)
        assert {q.id for q in retry.questions} == {"basics-001", "basics-003"}
        ranked = QuizSession(bank, retry_incorrect_from=store.due(T0 + timedelta(hours=1), bank=bank))
        assert [q.id for q in ranked.questions][:2] in (["basics-001", "basics-003"], ["basics-003", "basics-001"])


# =============================================================================== damaged files


def test_a_corrupted_file_is_a_clear_error_and_is_never_deleted(tmp_path):
    path = tmp_path / "progress.sqlite3"
    garbage = b"this is not a database at all\n" * 200
    path.write_bytes(garbage)
    with pytest.raises(ProgressError) as info:
        ProgressStore(tmp_path, user="ana")
    text = str(info.value)
    assert str(path) in text and "nothing was deleted" in text and "progress.sqlite3.broken" in text
    assert "AGENTLAB_DATA_DIR" in text and info.value.path == path
    assert path.read_bytes() == garbage


def test_a_damaged_page_is_caught_on_open(tmp_path, clock):
    with ProgressStore(tmp_path, user="ana", clock=clock) as store:
        for i in range(300):
            rec(store, f"q-{i:03}", i % 2 == 0, tags=(f"tag-{i % 7}",))
    with sqlite3.connect(tmp_path / "progress.sqlite3") as db:  # fold the WAL in, then damage a page
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = db.execute("PRAGMA page_size").fetchone()[0]
    path = tmp_path / "progress.sqlite3"
    data = bytearray(path.read_bytes())
    assert len(data) > 4 * page
    data[2 * page + 8: 3 * page] = b"\xff" * (page - 8)
    path.write_bytes(bytes(data))
    with pytest.raises(ProgressError, match="cannot be read") as info:
        ProgressStore(tmp_path, user="ana")
    assert str(path) in str(info.value)
    assert path.read_bytes() == bytes(data)


def test_a_file_from_a_newer_agentlab_is_refused(tmp_path):
    with ProgressStore(tmp_path, user="ana"):
        pass
    with sqlite3.connect(tmp_path / "progress.sqlite3") as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(ProgressError, match="newer agentlab"):
        ProgressStore(tmp_path, user="ana")


def test_an_unwritable_folder_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ProgressError, match="cannot create the folder"):
        ProgressStore(blocker / "sub", user="ana")


# =============================================================================== crashes and concurrency

WRITER = textwrap.dedent("""
    import sys, time
    import fsrs
    from datetime import datetime, timezone
    from agentlab.quiz import ProgressStore

    folder, user, count, stall_after, go, label = sys.argv[1:3] + [int(sys.argv[3]), int(sys.argv[4])] + sys.argv[5:7]

    class Stalling(fsrs.Scheduler):
        reviews = 0
        def review_card(self, *args, **kwargs):
            Stalling.reviews += 1
            if stall_after and Stalling.reviews > stall_after:
                print("stalled", flush=True)   # inside the transaction: the answer row is written, not committed
                time.sleep(600)
            return super().review_card(*args, **kwargs)

    store = ProgressStore(folder, user=user, scheduler=Stalling(enable_fuzzing=False), busy_timeout=60)
    if go != "-":
        print("ready", flush=True)
        while not __import__("os").path.exists(go):
            time.sleep(0.001)
    for i in range(count):
        store.record(f"q-{i % 5:03}", topic=label, correct=i % 3 != 0, score=1.0 if i % 3 else 0.0,
                     tags=("shared-tag", f"{user}-tag"), misconceptions=("shared-tag",) if i % 3 == 0 else ())
        if stall_after == 0:
            print(i, flush=True)
        if go != "-":
            time.sleep(0.001)  # a breath between answers, so the two writers overlap for the whole run
    print("done", flush=True)
""")


def writer(folder: Path, user: str, count: int, *, stall_after: int = 0, go: str = "-", label: str = "t") -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.Popen([sys.executable, "-c", WRITER, str(folder), user, str(count), str(stall_after), go, label],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)


@needs_kill
def test_a_writer_killed_mid_transaction_leaves_only_complete_answers(tmp_path):
    # Each answer reviews 3 cards (the question, two tags): stalling after 3 * 4 reviews kills
    # the 5th answer between its INSERT and its COMMIT.
    proc = writer(tmp_path, "ana", 10, stall_after=12)
    try:
        assert proc.stdout.readline().strip() == "stalled", proc.stderr.read()
        with sqlite3.connect(tmp_path / "progress.sqlite3", timeout=0.2) as db:  # the writer holds the lock
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                db.execute("BEGIN IMMEDIATE")
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    assert (tmp_path / "progress.sqlite3-wal").exists()  # killed before any clean close
    assert counts(tmp_path / "progress.sqlite3") == (4, 4, 8)
    with ProgressStore(tmp_path, user="ana") as store:
        assert [a.question_id for a in store.answers()] == ["q-000", "q-001", "q-002", "q-003"]
        store.record("q-004", topic="t", correct=True, score=1.0)  # and it keeps working
    assert counts(tmp_path / "progress.sqlite3")[0] == 5


@needs_kill
@pytest.mark.parametrize("delay", [0.05, 0.2, 0.4])
def test_a_writer_killed_at_any_moment_never_leaves_half_an_answer(tmp_path, delay):
    proc = writer(tmp_path, "ana", 100000)
    try:
        assert proc.stdout.readline().strip() == "0", proc.stderr.read()
        time.sleep(delay)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
        proc.stdout.close()
        proc.stderr.close()
    answers, question_reviews, tag_reviews = counts(tmp_path / "progress.sqlite3")
    assert answers >= 1 and question_reviews == answers and tag_reviews == 2 * answers
    with ProgressStore(tmp_path, user="ana") as store:
        assert len(store.answers()) == answers


def test_two_processes_writing_at_once_lose_nothing(tmp_path):
    go = tmp_path / "go"
    n = 100
    procs = [writer(tmp_path / "data", "ana", n, go=str(go), label=label) for label in ("first", "second")]
    for p in procs:  # both are up, their store open, waiting for the go
        assert p.stdout.readline().strip() == "ready"
    go.write_text("go")
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        outs.append(out)
        assert p.returncode == 0, err
    assert all(out.rstrip().endswith("done") for out in outs)
    answers, question_reviews, tag_reviews = counts(tmp_path / "data" / "progress.sqlite3")
    assert (answers, question_reviews, tag_reviews) == (2 * n, 2 * n, 2 * 2 * n)
    with ProgressStore(tmp_path / "data", user="ana") as store:
        assert len(store.answers()) == 2 * n
        # both processes moved the same cards: every review of both is in the shared tag's count
        assert store.tag_misses()["shared-tag"] == 2 * sum(1 for i in range(n) if i % 3 == 0)
        with sqlite3.connect(store.path) as db:
            assert db.execute("SELECT reviews FROM cards WHERE kind = 'tag' AND key = 'shared-tag'").fetchone()[0] == 2 * n
        writers = [a.topic for a in store.answers()]
        switches = sum(1 for x, y in zip(writers, writers[1:]) if x != y)
        assert writers.count("first") == writers.count("second") == n
        # They must have overlapped at least once (how often depends on the machine's load, so no more is asked).
        assert switches >= 1, "the two writers never took turns: they did not overlap"


def test_two_stores_in_one_process_interleave(tmp_path, clock):
    a = ProgressStore(tmp_path, user="ana", clock=clock)
    b = ProgressStore(tmp_path, user="ana", clock=clock)
    try:
        for i in range(10):
            rec(a if i % 2 else b, "q-001", i % 2 == 0)
        assert len(a.answers()) == len(b.answers()) == 10
    finally:
        a.close()
        b.close()
    assert counts(tmp_path / "progress.sqlite3") == (10, 10, 10)
