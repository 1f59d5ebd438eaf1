"""Importing this module warms the grader up: it runs the reference specimen on every case once,
in this process, so that the SDK's and the fake's first-use costs (client construction, model
classes built on first validation, caches) are paid once in the forkserver that class grading
forks its workers from (``agentlab.grader._class``), not once per submission. Nothing else
imports it.

It calls the in-process harness (``run_case`` and ``judge``), not ``grade()``: should ``grade()``
start a process or a server of its own (an isolated child for learner code), that one must not
be started here, where every worker forked from the server would inherit it.
"""

from __future__ import annotations

import contextlib
import io

from ..loops.specimens import correct_loop
from . import CASES, judge
from ._harness import run_case

with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    for _case in CASES:
        judge(run_case(correct_loop, _case), "en")
