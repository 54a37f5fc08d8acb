"""Lookups built once per runner table: by program, module and code.

Building an index walks the whole table; a scan asks it once per distinct
argv, the hook once per simple command. (The pre-filter's names are
:mod:`runctx.runners.needles`'.) Indexes are cached by the identity of
the table tuple, so pass the same tuple on every call.
"""

from __future__ import annotations

from runctx.runners.pattern import glob
from runctx.runners.wrappers import JAVAS, LUAS, NODES, PERLS, PHPS, RUBIES, SHELLS, WRAPPERS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from runctx.runners.pattern import RunnerPattern


class Index:
    """The rows of one table by program basename, ``python -m`` module and ``-c`` code."""

    __slots__ = ("by_code", "by_module", "by_program", "first_words", "globbed")

    def __init__(self, patterns: Sequence[RunnerPattern]) -> None:
        """Index ``patterns`` (rows keep their order within each key)."""
        by_program: dict[str, list[RunnerPattern]] = {}
        by_module: dict[str, list[RunnerPattern]] = {}
        by_code: dict[str, list[RunnerPattern]] = {}
        globbed: list[RunnerPattern] = []
        for pattern in patterns:
            if pattern.program_globs:
                globbed.append(pattern)
            for name in pattern.programs:
                by_program.setdefault(name, []).append(pattern)
            for name in pattern.modules:
                by_module.setdefault(name, []).append(pattern)
            for text in pattern.codes:
                by_code.setdefault(text, []).append(pattern)
        self.by_program = {k: tuple(v) for k, v in by_program.items()}
        self.by_module = {k: tuple(v) for k, v in by_module.items()}
        self.by_code = {k: tuple(v) for k, v in by_code.items()}
        self.globbed = tuple(globbed)
        # argv[0] basenames worth a closer look (python* is checked by prefix).
        self.first_words = frozenset(
            {*by_program, *WRAPPERS, *SHELLS, *NODES, *RUBIES, *JAVAS, *PHPS, *LUAS, *PERLS}
            | {"eval"}
        )


_INDEXES: dict[int, tuple[Sequence[RunnerPattern], Index]] = {}
_MAX_CACHED = 16  # a handful of tables per process at most


def index_for(patterns: Sequence[RunnerPattern]) -> Index:
    """The index of ``patterns``, cached by identity for tuples (built once per table)."""
    if not isinstance(patterns, tuple):
        return Index(patterns)
    hit = _INDEXES.get(id(patterns))
    if hit is not None and hit[0] is patterns:
        return hit[1]
    index = Index(patterns)
    if len(_INDEXES) >= _MAX_CACHED:
        _INDEXES.clear()
    _INDEXES[id(patterns)] = (patterns, index)
    return index


CHECKER_PARTS = frozenset(
    {"linter", "phpcs", "phpcbf", "phpstan", "psalm", "eslint", "stylelint", "rubocop", "mypy"}
)
"""Parts of a name that name a checker, not a module under test (``run-linter-tests``)."""
VERB_PARTS = frozenset(
    {
        *("lint", "format", "fmt", "style", "typecheck", "types", "build", "compile"),
        *("list", "gen", "generate", "clean"),
    }
)
"""Parts of a name ending in ``tests`` that say what is done to them (``compile_tests``)."""


def says_it_runs_no_test(name: str) -> bool:
    """Whether ``name``, named for tests, says it checks, builds or lists them instead.

    Split on ``-``, ``_`` and ``.``: a part names a checker
    (:data:`CHECKER_PARTS`: ``run-phpstan-tests``), or the last part is
    ``tests`` and another says what is done to them (:data:`VERB_PARTS`:
    ``build_tests``, ``list-tests``). A singular ``format_test`` is the test
    of a module named so, and ``build-and-test`` does both.
    """
    parts = name.lower().replace("_", "-").replace(".", "-").split("-")
    if "and" in parts:
        return False
    if not CHECKER_PARTS.isdisjoint(parts):
        return True
    return parts[-1] == "tests" and not VERB_PARTS.isdisjoint(parts[:-1])


def globbed_rows(index: Index, base: str) -> tuple[RunnerPattern, ...]:
    """The rows whose program globs match the basename ``base`` (``unit_tests``).

    None for a name that says it runs no test (:func:`says_it_runs_no_test`).
    """
    if not index.globbed or says_it_runs_no_test(base):
        return ()

    return tuple(row for row in index.globbed if any(glob(base, p) for p in row.program_globs))
