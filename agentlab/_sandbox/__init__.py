"""The child side of isolated grading (``agentlab.grader._isolate`` is the parent side).

Learner code runs in a child process started from a forkserver that has preloaded this
package, ``anthropic`` and ``httpx2``. Nothing here imports ``agentlab.fake`` or
``agentlab.grader``: the fake, the scenarios, the cases and their expected answers stay in the
parent, and the child is refused the files and imports that hold them (``child.FORBIDDEN_PACKAGES``).

- :mod:`~agentlab._sandbox.wire`: the framing both sides speak over the pipe (a JSON header and
  raw bytes; never pickle from child to parent).
- :mod:`~agentlab._sandbox.child`: the child's entry point: limits, the audit hook, the pipe
  transport for ``httpx2`` (sync and async), the ``run_tool`` stub, running one case.
"""
