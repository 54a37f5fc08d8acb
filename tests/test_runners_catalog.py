"""The README's runner list and docs/runners.md match the runner table."""

from __future__ import annotations

from pathlib import Path

from runctx.runners import BUILTIN_PATTERNS, RUNNER_KINDS
from runctx.runners.catalog import full_list, listed, short_list

ROOT = Path(__file__).resolve().parent.parent
REGENERATE = "run `python -m runctx.runners.catalog README.md docs/runners.md`"


def test_the_readme_lists_every_kind_of_the_table():
    """The README's generated list is the table's, one line per kind, in table order."""
    text = listed((ROOT / "README.md").read_text())
    assert text == short_list(BUILTIN_PATTERNS), REGENERATE
    kinds = [line.split("`")[1] for line in text.splitlines()]
    assert kinds == list(RUNNER_KINDS)


def test_docs_list_every_spelling_of_the_table():
    """docs/runners.md lists every program and module of every row."""
    text = listed((ROOT / "docs" / "runners.md").read_text())
    assert text == full_list(BUILTIN_PATTERNS), REGENERATE
    for pattern in BUILTIN_PATTERNS:
        # a worker known by its path is listed by that path
        names = pattern.path_suffixes or (*pattern.programs, *pattern.modules)
        for name in names:
            assert f"`{name}" in text or f"m {name}" in text or f"…{name}" in text, name
