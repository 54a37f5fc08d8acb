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


def test_every_attrs_record_takes_the_one_repr_and_says_what_attrs_would():
    """No record class has attrs compile a repr (the dearest of its methods to make).

    Each inherits :class:`runctx.record_base.Record`'s, which writes what the
    compiled one would: the class's name, each field shown by its own setting.
    """
    import importlib
    import pkgutil

    import attrs

    import runctx
    from runctx.record_base import Record

    records = []
    for module in pkgutil.walk_packages(runctx.__path__, "runctx."):
        if module.name.endswith("__main__"):  # runs the command line
            continue
        loaded = importlib.import_module(module.name)
        records += [
            value
            for value in vars(loaded).values()
            if isinstance(value, type) and attrs.has(value) and value.__module__ == module.name
        ]
    assert len(records) > 40
    assert [cls for cls in records if cls.__repr__ is not Record.__repr__] == []

    @attrs.frozen(repr=False)
    class Shown(Record):
        kept: int
        hidden: str = attrs.field(repr=False)
        told: str = attrs.field(repr=lambda value: f"<{len(value)} chars>")

    @attrs.frozen
    class Compiled:
        kept: int
        hidden: str = attrs.field(repr=False)
        told: str = attrs.field(repr=lambda value: f"<{len(value)} chars>")

    assert repr(Shown(1, "x", "abc")) == "Shown(kept=1, told=<3 chars>)"
    assert repr(Shown(1, "x", "abc")).removeprefix("Shown") == repr(
        Compiled(1, "x", "abc")
    ).removeprefix("Compiled")
