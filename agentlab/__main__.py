"""``python -m agentlab``: the same as the ``agentlab`` command."""

from .cli import main

raise SystemExit(main())
