"""Starting the grader's child from the forkserver without re-running the parent's ``__main__``.

multiprocessing re-imports the parent's main script in every spawned or forkserver child
(``init_main_from_path``/``init_main_from_name`` in the preparation data). For the grader that
would run a grading script's top level (``import agentlab.grader``: the cases and their expected
answers) in the child before its audit hook is installed, and cost every grading an import.
:class:`ChildProcess` is ``ForkServerProcess`` with a launcher that sends the same preparation
data without those two keys: CPython 3.10-3.13's ``popen_forkserver.Popen._launch`` otherwise
unchanged (``agentlab.grader._isolate`` uses the stock class on other versions). The child
unpickles this class, so it lives here, in a module the child may import.
"""

from __future__ import annotations

import io
import os
from multiprocessing import context, forkserver, popen_forkserver, reduction, spawn, util
from typing import Any

__all__ = ["ChildProcess"]


class _Popen(popen_forkserver.Popen):
    def _launch(self, process_obj: Any) -> None:
        prep_data = spawn.get_preparation_data(process_obj._name)
        prep_data.pop("init_main_from_path", None)
        prep_data.pop("init_main_from_name", None)
        buf = io.BytesIO()
        context.set_spawning_popen(self)
        try:
            reduction.dump(prep_data, buf)
            reduction.dump(process_obj, buf)
        finally:
            context.set_spawning_popen(None)
        self.sentinel, w = forkserver.connect_to_new_process(self._fds)
        # A duplicate of the data pipe's write end: the child's sentinel of its parent.
        _parent_w = os.dup(w)
        self.finalizer = util.Finalize(self, util.close_fds, (_parent_w, self.sentinel))
        with open(w, "wb", closefd=True) as f:
            f.write(buf.getbuffer())
        self.pid = forkserver.read_signed(self.sentinel)


class ChildProcess(context.ForkServerProcess):
    """A forkserver process whose child does not import the parent's ``__main__``."""

    @staticmethod
    def _Popen(process_obj: Any) -> Any:
        return _Popen(process_obj)
