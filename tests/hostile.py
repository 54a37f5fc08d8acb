"""Foreign text as a hostile neighbour writes it, and a JSON parser as strict as serde_json."""

from __future__ import annotations

import json
import os

HOSTILE_ARG = "\x1b]0;pwned\x07\x1b[2J\x1b[31m"
HOSTILE_PATH = os.fsdecode(b"/tmp/x\x1b[2Jy\nFAKE: line\xff\xfe")


def strict_json(data: bytes) -> object:
    """Parse ``data`` as a strict parser would: UTF-8 only, no lone surrogate in any string."""
    value = json.loads(data.decode("utf-8"))

    def walk(item: object) -> None:
        if isinstance(item, str):
            item.encode("utf-8")  # a lone surrogate raises here, as serde_json refuses it
        elif isinstance(item, dict):
            for key, inner in item.items():
                walk(key)
                walk(inner)
        elif isinstance(item, list):
            for inner in item:
                walk(inner)

    walk(value)
    return value
