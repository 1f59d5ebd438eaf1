"""``jsonschema``, imported fast (one job: the import; shared by the quiz banks and the fake).

``jsonschema._format`` (imported by ``jsonschema`` and by ``jsonschema.validators`` alike) imports
the optional ``rfc3987_syntax`` when installed, which builds a Lark grammar at import: 1.3-1.9 s
here, on the first tool-bearing request of a process (``python -X importtime``). It only serves
the ``iri``/``iri-reference`` format checks, which no quiz bank uses and which the fake's
generator meets by construction (it emits ``https://example.com/...`` for them).
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["import_jsonschema"]


def import_jsonschema() -> Any:
    """The ``jsonschema`` module, imported without its optional ``rfc3987_syntax`` checker when
    nothing imported either yet (then ``format: iri`` is not asserted by this process's
    ``FormatChecker``s, as when ``rfc3987_syntax`` is not installed). Later imports of
    ``rfc3987_syntax`` itself work as usual. Raises ImportError when jsonschema is missing."""
    if "jsonschema" in sys.modules or "rfc3987_syntax" in sys.modules:
        import jsonschema
        return jsonschema
    sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]  # makes its import fail fast
    try:
        import jsonschema
    finally:
        del sys.modules["rfc3987_syntax"]
    return jsonschema
