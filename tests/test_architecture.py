"""The Architecture map of docs/development.md and the tree it maps."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

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


def _records() -> list[type]:
    """Every attrs class defined in ``runctx/``."""
    import importlib
    import pkgutil

    import attrs

    import runctx

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
    return records


def test_every_attrs_record_takes_the_one_repr_and_says_what_attrs_would():
    """No record class has attrs compile a repr (the dearest of its methods to make).

    Each inherits :class:`runctx.record_base.Record`'s, which writes what the
    compiled one would: the class's name, each field shown by its own setting.
    """
    import attrs

    from runctx.record_base import Record

    assert [cls for cls in _records() if cls.__repr__ is not Record.__repr__] == []

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


COMPARED_PER_PROCESS = {"ProcIdentity", "Inherited", "Unknown"}
"""The records a scan compares or hashes per process: they keep attrs' compiled methods."""


def test_records_compare_by_the_one_eq_and_hash_but_those_a_scan_compares_per_process():
    """No record has attrs compile ``__eq__`` and ``__hash__`` but those a scan calls per process.

    The others inherit :class:`runctx.record_base.Record`'s, which decide what
    the compiled ones would: equal only to a record of the very same class with
    equal compared fields, fields with ``eq=False`` or ``hash=False`` left out.
    """
    import attrs

    from runctx.record_base import Record

    records = _records()
    shared = {
        cls.__name__
        for cls in records
        if cls.__eq__ is Record.__eq__ and cls.__hash__ is Record.__hash__
    }
    compiled = {cls.__name__ for cls in records} - shared
    assert compiled == COMPARED_PER_PROCESS
    assert len(shared) > 40

    @attrs.frozen(repr=False, eq=False)
    class Shared(Record):
        kept: int
        ignored: str = attrs.field(eq=False)
        unhashed: list[int] = attrs.field(factory=list, hash=False)

    @attrs.frozen(repr=False, eq=False)
    class Twin(Record):
        kept: int
        ignored: str = attrs.field(eq=False)
        unhashed: list[int] = attrs.field(factory=list, hash=False)

    @attrs.frozen
    class Compiled:
        kept: int
        ignored: str = attrs.field(eq=False)
        unhashed: list[int] = attrs.field(factory=list, hash=False)

    for cls in (Shared, Compiled):
        assert cls(1, "a", [1]) == cls(1, "b", [1])
        assert (cls(1, "a", [1]) != cls(1, "b", [1])) is False
        assert cls(1, "a", [1]) != cls(2, "a", [1])
        assert cls(1, "a", [1]) != cls(1, "a", [2])
        assert hash(cls(1, "a", [1])) == hash(cls(1, "b", [2]))
        assert len({cls(1, "a"), cls(1, "b"), cls(2, "a")}) == 2
        assert cls(1, "a") != (1, "a")
        assert cls(1, "a").__eq__((1, "a")) is NotImplemented
    assert Shared(1, "a") != Twin(1, "a")

    @attrs.frozen(repr=False, eq=False)
    class Empty(Record):
        pass

    @attrs.frozen(repr=False, eq=False)
    class One(Record):
        only: tuple[int, ...]

    assert Empty() == Empty()
    assert hash(Empty()) == hash(Empty())
    assert One((1,)) == One((1,))
    assert One((1,)) != One((2,))
    assert hash(One((1,))) == hash(One((1,)))
    assert Shared(1, "a").__eq__(Twin(1, "a")) is NotImplemented

    @attrs.frozen(repr=False, eq=False)
    class Keyed(Record):
        word: str = attrs.field(eq=str.lower)

    with pytest.raises(TypeError, match="no eq_key"):
        _ = Keyed("A") == Keyed("a")
