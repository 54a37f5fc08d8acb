"""The Architecture map of docs/development.md and the tree it maps."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "runctx"
NOT_MAPPED = {"__init__.py", "__main__.py", "py.typed", "__pycache__"}


def mapped_names() -> list[str]:
    """The first column of the map of ``runctx/``: one module or package a line."""
    text = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    section = text.split("\n## Architecture\n", 1)[1]
    block = section.split("```", 2)[1]
    return re.findall(r"^  ([\w.]+/?)\s", block, re.MULTILINE)


def test_the_architecture_map_names_every_top_level_module_and_package_and_no_other():
    """Each module and package directly in runctx/ has its line in the map, and each line exists."""
    on_disk = {
        entry.name + ("/" if entry.is_dir() else "")
        for entry in PACKAGE.iterdir()
        if entry.name not in NOT_MAPPED and (entry.is_dir() or entry.suffix == ".py")
    }
    named = mapped_names()
    assert len(named) == len(set(named)), named
    assert set(named) == on_disk
