"""The scenes the tests are set in, built one way: real checkouts and real runs in them.

The scene most tests need is two checkouts of one name, ``a/proj`` (mine) and
``b/proj`` (theirs): a run in one is foreign to the other by root alone, the
bug runctx exists to make impossible (only the directory *name* compared).
:func:`two_checkouts` makes the checkouts; :func:`two_checkouts_with_runs`
adds live, orphaned runs in them (the ``world`` and ``foreign_run`` fixtures
of ``conftest.py`` share one per module, for tests that only read it).
"""

from __future__ import annotations

from pathlib import Path

import attrs
from proctools import Orphan, make_checkout
from runfactory import RunFactory


def two_checkouts(base: Path, name: str = "proj") -> tuple[Path, Path]:
    """Two real git checkouts named ``name``, in ``base/a`` and ``base/b``: (mine, theirs)."""
    return make_checkout(base / "a", name), make_checkout(base / "b", name)


@attrs.frozen
class TwoCheckouts:
    """Two same-named checkouts and the live runs started in them."""

    mine: Path
    """``a/proj``: where the test looks from."""
    theirs: Path
    """``b/proj``: foreign to ``mine`` by root alone."""
    foreign: Orphan
    """A live ``run_tests.py`` run in ``theirs``."""
    ours: Orphan | None
    """A live ``run_tests.py`` run in ``mine``, when the scene asked for one."""


def two_checkouts_with_runs(base: Path, runs: RunFactory, *, ours: bool = False) -> TwoCheckouts:
    """:func:`two_checkouts`, a live run in ``theirs`` and, with ``ours``, one in ``mine``."""
    mine, theirs = two_checkouts(base)
    own = runs.run_tests_script(mine) if ours else None
    return TwoCheckouts(mine, theirs, runs.run_tests_script(theirs), own)
