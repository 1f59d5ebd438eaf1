"""``jsonschema``, imported lazily and without its slow optional IRI grammar.

Used by the quiz banks (validating a bank against its schema) and by the fake (checking a tool's
``input_schema`` against JSON Schema draft 2020-12, reference section 7 rule 21d). One place, so
both import it the same way; ``import agentlab`` never imports it.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["import_jsonschema"]


def import_jsonschema() -> Any:
    """The ``jsonschema`` module, imported without its optional ``rfc3987_syntax`` checker when
    nothing imported it yet: that module builds a grammar at import (about 0.8-1.5 s, measured with
    ``python -X importtime``; JupyterLab's jupyter-events pulls it in) and only serves the "iri"
    formats, which nothing here asserts (jsonschema does not assert formats by default). Later
    imports of ``rfc3987_syntax`` work as usual.

    Returns:
        the ``jsonschema`` module. Raises ImportError if jsonschema is not installed (it is a
        runtime dependency in ``pyproject.toml``).
    """
    if "jsonschema" in sys.modules or "rfc3987_syntax" in sys.modules:
        import jsonschema
        return jsonschema
    sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]  # makes its import fail fast
    try:
        import jsonschema
    finally:
        del sys.modules["rfc3987_syntax"]
    return jsonschema
