"""The learner's progress: every answer, and spaced repetition, in one SQLite file.

::

    from agentlab.quiz import ProgressStore, QuizSession
    store = ProgressStore()                       # <user data dir>/progress.sqlite3, the OS user
    session = QuizSession(bank, progress=store)   # every answer is recorded
    store.due()                                   # questions to resurface now, worst misconceptions first

Where: ``data_dir`` if given, else ``$AGENTLAB_DATA_DIR``, else
``platformdirs.user_data_dir("agentlab")``; one file for every user name on the machine, each
row under its user (default: the OS user).

Safety: each answer is ONE transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``: the answer row and
every card it moves), in WAL mode with ``synchronous=FULL`` and a ``busy_timeout``, so two
kernels or processes can record at once (the second waits for the first) and a process killed
mid-answer leaves the file as it was before that answer. A damaged file is never deleted: the
store raises :class:`ProgressError` naming the file and how to start afresh.

Spaced repetition (`fsrs <https://pypi.org/project/fsrs/>`_): one card per question and one per
misconception tag. A question's card is rated Good when answered right, Hard for partial
credit, Again when wrong; a tag's card Again when the learner picked a wrong option carrying it
(or got the question wrong and it carried no option tag), Good when a question with that tag was
answered right, Hard when a question with that tag was answered wrong for another reason.
:meth:`ProgressStore.due` ranks the due questions by how often the learner missed their
misconceptions, then by how often they missed the question itself.
"""

from __future__ import annotations

import getpass
import json
import os
import sqlite3
import time
import threading
import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Iterable

__all__ = ["DATA_DIR_ENV", "DB_NAME", "AnswerRecord", "DueItem", "ProgressError", "ProgressStore", "default_data_dir",
           "default_scheduler"]

DATA_DIR_ENV = "AGENTLAB_DATA_DIR"
"""Environment variable naming the folder of the progress file."""
DB_NAME = "progress.sqlite3"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS answers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user TEXT NOT NULL,
    question_id TEXT NOT NULL,
    topic TEXT NOT NULL,
    correct INTEGER NOT NULL,
    score REAL NOT NULL,
    tags TEXT NOT NULL,
    misconceptions TEXT NOT NULL,
    mode TEXT NOT NULL,
    answered_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS answers_by_user_question ON answers (user, question_id);
CREATE TABLE IF NOT EXISTS cards (
    user TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('question', 'tag')),
    key TEXT NOT NULL,
    topic TEXT,
    tags TEXT NOT NULL DEFAULT '[]',
    card TEXT NOT NULL,
    due TEXT NOT NULL,
    reviews INTEGER NOT NULL DEFAULT 0,
    misses INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (user, kind, key)
);
"""


class ProgressError(RuntimeError):
    """The progress file cannot be used: damaged, from a newer agentlab, busy or unreadable.

    Attributes:
        path: the file.
    """

    def __init__(self, message: str, path: Path) -> None:
        self.path = path
        super().__init__(message)


@dataclass(frozen=True)
class AnswerRecord:
    """One recorded answer."""

    id: int
    user: str
    question_id: str
    topic: str
    correct: bool
    score: float
    tags: tuple[str, ...]
    misconceptions: tuple[str, ...]
    mode: str
    answered_at: datetime


@dataclass(frozen=True)
class DueItem:
    """A question to resurface, with why it ranks where it does."""

    question_id: str
    topic: str | None
    due: datetime
    misses: int
    """Times this question was answered wrong."""
    tag_misses: int
    """Times the learner missed this question's misconceptions (summed over its tags)."""
    tags: tuple[str, ...]


def default_data_dir() -> Path:
    """``$AGENTLAB_DATA_DIR``, else ``platformdirs.user_data_dir("agentlab")``."""
    env = os.environ.get(DATA_DIR_ENV)
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_data_dir("agentlab", appauthor=False))


def default_scheduler() -> Any:
    """The fsrs scheduler the store uses: fsrs's default parameters, one 10-minute learning (and
    relearning) step and no fuzzing. A question missed comes back after 10 minutes; one answered
    right the first time graduates at once and comes back in days (fsrs's own default steps, 1
    and 10 minutes, would bring a right answer back within the hour)."""
    import fsrs

    step = (timedelta(minutes=10),)
    return fsrs.Scheduler(learning_steps=step, relearning_steps=step, enable_fuzzing=False)


def _default_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name in this environment (some containers)
        return "learner"


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)


def _stamp(moment: datetime) -> str:
    return _utc(moment).strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")  # fixed width: sorts as text


def _parse(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp)


class ProgressStore:
    """Every answer of a learner, and their spaced-repetition cards, in SQLite.

    Args:
        data_dir: the folder of ``progress.sqlite3`` (default: :func:`default_data_dir`);
            created if missing.
        user: whose progress (default: the OS user name).
        clock: returns the current time as a datetime (default: now, UTC); naive values are UTC.
        scheduler: an ``fsrs.Scheduler`` (default: :func:`default_scheduler`, reproducible).
        busy_timeout: seconds to wait for another process's write before giving up.

    Raises:
        ProgressError: the file is damaged or not a progress file (the message names it and
            says how to start afresh), from a newer agentlab, or cannot be opened.
    """

    def __init__(self, data_dir: str | os.PathLike[str] | None = None, *, user: str | None = None,
                 clock: Callable[[], datetime] | None = None, scheduler: Any = None,
                 busy_timeout: float = 30.0) -> None:
        import fsrs

        self._fsrs = fsrs
        self.data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
        self.path = self.data_dir / DB_NAME
        self.user = user if user is not None else _default_user()
        if not isinstance(self.user, str) or not self.user.strip():
            raise ValueError(f"user must be a non-empty name, not {self.user!r}")
        self._clock = clock or (lambda: datetime.now(timezone.utc))
        self._scheduler = scheduler if scheduler is not None else default_scheduler()
        self._busy_timeout = float(busy_timeout)
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._open()

    # ---------------------------------------------------------------- connection

    def _damaged(self, detail: str) -> ProgressError:
        return ProgressError(
            f"the progress file {self.path} cannot be read ({detail}). Your answers are still in it: nothing was "
            f"deleted. To start afresh, move it aside (for example rename it to {self.path.name}.broken, with its "
            f"-wal and -shm files if any) and agentlab creates a new one; or point {DATA_DIR_ENV} at another folder.",
            self.path)

    def _wrap(self, exc: sqlite3.Error) -> ProgressError:
        text = str(exc)
        if isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text):
            return ProgressError(f"the progress file {self.path} stayed busy for {self._busy_timeout:g} s "
                                 f"(another kernel or process is writing it): {text}; try again", self.path)
        if isinstance(exc, sqlite3.OperationalError) and "readonly" in text:
            return ProgressError(f"cannot write the progress file {self.path}: {text} (check its permissions, or set "
                                 f"{DATA_DIR_ENV} to a writable folder)", self.path)
        if isinstance(exc, sqlite3.OperationalError) and "unable to open" in text:
            return ProgressError(f"cannot open the progress file {self.path}: {text} (check the folder exists and "
                                 f"is writable, or set {DATA_DIR_ENV})", self.path)
        return self._damaged(text)

    def _journal_mode_wal(self, conn: sqlite3.Connection) -> str:
        """Switch ``conn`` to WAL and return the journal mode SQLite reports. Two processes opening
        a new file at once can get "database is locked" here at once, without SQLite calling its busy
        handler (the switch needs an exclusive lock), so it is retried, with short growing pauses,
        for up to the busy timeout; other errors are raised at once."""
        deadline = time.monotonic() + self._busy_timeout
        pause = 0.005
        while True:
            try:
                return conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            except sqlite3.OperationalError as exc:
                text = str(exc)
                if ("locked" not in text and "busy" not in text) or time.monotonic() >= deadline:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 0.1)

    def _open(self) -> None:
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ProgressError(f"cannot create the folder {self.data_dir} for the progress file: {exc} "
                                f"(set {DATA_DIR_ENV} to a writable folder)", self.path) from exc
        conn = None
        try:
            conn = sqlite3.connect(self.path, timeout=self._busy_timeout, isolation_level=None,
                                   check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000)}")
            mode = self._journal_mode_wal(conn)
            conn.execute("PRAGMA synchronous = FULL")
            check = conn.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise self._damaged(f"integrity check: {check}")
            conn.execute("BEGIN IMMEDIATE")
            try:
                for statement in _SCHEMA.split(";"):  # not executescript(): it would COMMIT first
                    if statement.strip():
                        conn.execute(statement)
                row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
                if row is None:
                    conn.execute("INSERT INTO meta (key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
                elif int(row[0]) > SCHEMA_VERSION:
                    raise ProgressError(f"the progress file {self.path} was written by a newer agentlab (format "
                                        f"{row[0]}, this one reads {SCHEMA_VERSION}): upgrade agentlab", self.path)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        except ProgressError:
            if conn is not None:
                conn.close()
            raise
        except (sqlite3.Error, ValueError) as exc:
            if conn is not None:
                conn.close()
            raise self._wrap(exc) if isinstance(exc, sqlite3.Error) else self._damaged(str(exc)) from exc
        self.journal_mode = mode
        self._conn = conn

    def close(self) -> None:
        """Close the file (the store cannot be used after)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> ProgressStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise ProgressError(f"the progress store of {self.path} is closed", self.path)
        return self._conn

    def _read(self, sql: str, params: Iterable[Any] = ()) -> list[tuple]:
        with self._lock:
            try:
                return self._db().execute(sql, tuple(params)).fetchall()
            except sqlite3.Error as exc:
                raise self._wrap(exc) from exc

    # ---------------------------------------------------------------- writing

    def _now(self, now: datetime | None = None) -> datetime:
        return _utc(now if now is not None else self._clock())

    def _rating(self, score: float) -> Any:
        Rating = self._fsrs.Rating
        return Rating.Good if score >= 1 else (Rating.Hard if score > 0 else Rating.Again)

    def _review(self, conn: sqlite3.Connection, kind: str, key: str, rating: Any, now: datetime, *, missed: bool,
                topic: str | None = None, tags: tuple[str, ...] = ()) -> None:
        row = conn.execute("SELECT card FROM cards WHERE user = ? AND kind = ? AND key = ?",
                           (self.user, kind, key)).fetchone()
        if row is None:
            card = self._fsrs.Card(card_id=zlib.crc32(f"{kind}:{key}".encode()) or 1, due=now)
        else:
            card = self._fsrs.Card.from_dict(json.loads(row[0]))
        card, _log = self._scheduler.review_card(card, rating, now)
        conn.execute(
            "INSERT INTO cards (user, kind, key, topic, tags, card, due, reviews, misses) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?) "
            "ON CONFLICT (user, kind, key) DO UPDATE SET topic = coalesce(excluded.topic, topic), tags = excluded.tags, "
            "card = excluded.card, due = excluded.due, reviews = reviews + 1, misses = misses + excluded.misses",
            (self.user, kind, key, topic, json.dumps(list(tags)), json.dumps(card.to_dict()), _stamp(card.due),
             int(missed)))

    def record(self, question_id: str, *, topic: str, correct: bool, score: float, tags: Iterable[str] = (),
               misconceptions: Iterable[str] = (), mode: str = "practice", now: datetime | None = None) -> AnswerRecord:
        """Record one answer and move its cards, in one transaction.

        Args:
            question_id, topic: the question answered.
            correct, score: the verdict (score in [0, 1]).
            tags: the question's misconception tags.
            misconceptions: the tags the learner's answer hit (see :attr:`Feedback.misconceptions`).
            mode: ``"practice"`` or ``"exam"``.
            now: when (default: the store's clock).

        Raises:
            ValueError: a score outside [0, 1].
            ProgressError: the file stayed busy or is damaged.
        """
        if not 0 <= float(score) <= 1:
            raise ValueError(f"question {question_id}: score must be in [0, 1], not {score!r}")
        tags, misconceptions = tuple(dict.fromkeys(tags)), tuple(dict.fromkeys(misconceptions))
        moment = self._now(now)
        with self._lock:
            conn = self._db()
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    cur = conn.execute(
                        "INSERT INTO answers (user, question_id, topic, correct, score, tags, misconceptions, mode, "
                        "answered_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (self.user, question_id, topic, int(bool(correct)), float(score), json.dumps(list(tags)),
                         json.dumps(list(misconceptions)), mode, _stamp(moment)))
                    self._review(conn, "question", question_id, self._rating(score), moment, missed=not correct,
                                 topic=topic, tags=tags)
                    Rating = self._fsrs.Rating
                    for tag in dict.fromkeys(tags + misconceptions):
                        if tag in misconceptions:
                            rating, missed = Rating.Again, True
                        else:
                            rating, missed = (Rating.Good if correct else Rating.Hard), False
                        self._review(conn, "tag", tag, rating, moment, missed=missed)
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise self._wrap(exc) from exc
        return AnswerRecord(id=cur.lastrowid, user=self.user, question_id=question_id, topic=topic,
                            correct=bool(correct), score=float(score), tags=tags, misconceptions=misconceptions,
                            mode=mode, answered_at=moment)

    # ---------------------------------------------------------------- reading

    def answers(self, question_id: str | None = None) -> list[AnswerRecord]:
        """This user's answers, oldest first (only ``question_id``'s if given)."""
        sql = ("SELECT id, user, question_id, topic, correct, score, tags, misconceptions, mode, answered_at "
               "FROM answers WHERE user = ?")
        params: list[Any] = [self.user]
        if question_id is not None:
            sql += " AND question_id = ?"
            params.append(question_id)
        rows = self._read(sql + " ORDER BY id", params)
        return [AnswerRecord(id=r[0], user=r[1], question_id=r[2], topic=r[3], correct=bool(r[4]), score=r[5],
                             tags=tuple(json.loads(r[6])), misconceptions=tuple(json.loads(r[7])), mode=r[8],
                             answered_at=_parse(r[9])) for r in rows]

    def incorrect_ids(self) -> list[str]:
        """Questions whose latest answer scored below 1, most recent first."""
        rows = self._read(
            "SELECT question_id, score FROM answers WHERE id IN (SELECT max(id) FROM answers WHERE user = ? "
            "GROUP BY question_id) ORDER BY id DESC", (self.user,))
        return [r[0] for r in rows if r[1] < 1]

    def tag_misses(self) -> dict[str, int]:
        """How often the learner missed each misconception tag (tags never missed are left out)."""
        rows = self._read("SELECT key, misses FROM cards WHERE user = ? AND kind = 'tag' AND misses > 0 "
                          "ORDER BY misses DESC, key", (self.user,))
        return {k: m for k, m in rows}

    def due(self, now: datetime | None = None, *, bank: Any = None, limit: int | None = None) -> list[DueItem]:
        """The questions to resurface at ``now`` (default: the store's clock), ranked.

        A question is due when its card is due. Ranking: the misses of its misconception tags
        (summed), then its own misses, then the earliest due, then the id. With ``bank``, ids no
        longer in the bank are dropped, and questions never answered that drill a missed tag
        whose card is due are added (their own misses are 0).
        """
        moment = self._now(now)
        stamp = _stamp(moment)
        tag_rows = self._read("SELECT key, misses, due FROM cards WHERE user = ? AND kind = 'tag'", (self.user,))
        tag_misses = {k: m for k, m, _ in tag_rows}
        tag_due = {k: d for k, m, d in tag_rows if m > 0 and d <= stamp}
        items: dict[str, DueItem] = {}
        known: set[str] = set()
        for key, topic, tags_json, due, misses in self._read(
                "SELECT key, topic, tags, due, misses FROM cards WHERE user = ? AND kind = 'question'", (self.user,)):
            known.add(key)
            if due > stamp or (bank is not None and key not in bank):
                continue
            tags = tuple(json.loads(tags_json))
            if bank is not None:
                tags = tuple(dict.fromkeys(tags + bank.question(key).tags))
            items[key] = DueItem(question_id=key, topic=topic, due=_parse(due), misses=misses,
                                 tag_misses=sum(tag_misses.get(t, 0) for t in tags), tags=tags)
        if bank is not None and tag_due:
            for q in bank.questions:
                hit = [t for t in q.tags if t in tag_due]
                if q.id in known or not hit:
                    continue
                items[q.id] = DueItem(question_id=q.id, topic=q.topic, due=_parse(min(tag_due[t] for t in hit)),
                                      misses=0, tag_misses=sum(tag_misses.get(t, 0) for t in q.tags), tags=q.tags)
        ranked = sorted(items.values(), key=lambda d: (-d.tag_misses, -d.misses, d.due, d.question_id))
        return ranked if limit is None else ranked[:limit]

    def due_ids(self, now: datetime | None = None, *, bank: Any = None, limit: int | None = None) -> list[str]:
        """:meth:`due` as question ids (ranked), e.g. for ``QuizSession(retry_incorrect_from=...)``."""
        return [d.question_id for d in self.due(now, bank=bank, limit=limit)]
