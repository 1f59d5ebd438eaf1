"""Importing this module warms the grader up: it grades the reference specimen on every case once,
so that the SDK's and the fake's first-use costs (client construction, model classes built on
first validation, caches) are paid once in the forkserver that class grading forks its workers
from (``agentlab.grader._class``), not once per submission. Nothing else imports it.

If ``grade()`` ever keeps a process or a pool alive between calls (a warm child for learner code),
that one must not be started here: every worker forked from the server would share it.
Warm only what stays in the grading process then."""

from __future__ import annotations

import contextlib
import io

from . import grade
from ..loops.specimens import correct_loop

with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    grade(correct_loop, lang="en")
