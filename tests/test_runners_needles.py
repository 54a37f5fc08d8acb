"""The table's names for the pre-filter (``runners/needles.py``): a literal that needs no table."""

from __future__ import annotations

from runctx.fastpath.prefilter import BUILTIN_NAMES
from runctx.runners import BUILTIN_PATTERNS, RunnerPattern
from runctx.runners.catalog import names_literal
from runctx.runners.needles import names_of


def test_the_generated_names_are_the_tables():
    """The literal the hook reads is the builtin table's names (regenerate it if this fails)."""
    names = names_of(BUILTIN_PATTERNS)
    assert names == BUILTIN_NAMES, (
        "run `python -m runctx.runners.catalog docs/runners.md` to regenerate:\n"
        + names_literal(names)
    )


def test_a_configured_row_adds_its_names():
    """A user's row brings its program and module names, so the pre-filter finds them."""
    rows = (RunnerPattern("e2e", programs=("run-e2e",), modules=("e2e_runner",)),)
    assert {"run-e2e", "e2e_runner"} <= set(names_of(rows))
