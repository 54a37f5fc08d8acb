"""docs/runners.md's generated runner list matches the runner table."""

from __future__ import annotations

from pathlib import Path

from runctx.runners import BUILTIN_PATTERNS, RUNNER_KINDS
from runctx.runners.catalog import full_list, listed

ROOT = Path(__file__).resolve().parent.parent
REGENERATE = "run `python -m runctx.runners.catalog docs/runners.md`"


def test_docs_list_every_kind_of_the_table_in_table_order():
    """The generated list is the table's, one line per kind, in table order."""
    text = listed((ROOT / "docs" / "runners.md").read_text())
    assert text == full_list(BUILTIN_PATTERNS), REGENERATE
    kinds = [line.split("`")[1] for line in text.splitlines()]
    assert kinds == list(RUNNER_KINDS)


def test_docs_list_every_spelling_of_the_table():
    """docs/runners.md lists every program and module of every row."""
    text = listed((ROOT / "docs" / "runners.md").read_text())
    for pattern in BUILTIN_PATTERNS:
        # a worker known by its path is listed by that path
        names = pattern.path_suffixes or (*pattern.programs, *pattern.modules)
        for name in names:
            assert f"`{name}" in text or f"m {name}" in text or f"…{name}" in text, name


def test_the_generator_rewrites_only_the_text_between_the_markers(tmp_path):
    """``python -m runctx.runners.catalog FILE`` puts the table's list between the markers."""
    from runctx.runners.catalog import BEGIN, END, main

    document = tmp_path / "runners.md"
    document.write_text(f"# Before\n\n{BEGIN}\n\n- stale\n\n{END}\n\nAfter\n")
    assert main([str(document)]) == 0
    text = document.read_text()
    assert listed(text) == full_list(BUILTIN_PATTERNS)
    assert text.startswith(f"# Before\n\n{BEGIN}\n")
    assert text.endswith(f"{END}\n\nAfter\n")
