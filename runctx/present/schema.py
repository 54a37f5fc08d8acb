"""The version of runctx's JSON output, and the JSON Schemas that describe it.

Every JSON document runctx prints for machines (``runctx status --json``,
``runctx check --json``, an error under ``--json``) carries
``"schema_version"``: :data:`SCHEMA_VERSION`. It changes only when a field
that was promised changes meaning or goes away; a field added is no new
version. The schemas ship in the package (``runctx/schemas/``), in JSON
Schema draft 2020-12, and the suite validates real output against them.
"""

from __future__ import annotations

import os

SCHEMA_VERSION = 1
"""The version of the JSON contract (``schema_version`` in every document)."""

SCHEMA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "schemas")
"""Where the schemas are installed: ``runctx/schemas/NAME.schema.json``."""

SCHEMAS = ("report", "error")
"""``report``: ``status --json`` and ``check --json``; ``error``: an error under ``--json``."""


def schema_path(name: str) -> str:
    """The file of the schema called ``name`` (one of :data:`SCHEMAS`)."""
    if name not in SCHEMAS:
        msg = f"no schema called {name!r}; known: {', '.join(SCHEMAS)}"
        raise KeyError(msg)
    return os.path.join(SCHEMA_DIR, f"{name}.schema.json")
