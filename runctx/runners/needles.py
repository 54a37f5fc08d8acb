"""The names the pre-filter looks for: every program, module and code name of a table.

The hook's path for a command that is not a test run asks one question, "does
the command name a runner at all?" (:mod:`runctx.fastpath.prefilter`), and must
not pay for building the runner table to ask it. The pre-filter holds the
builtin table's names as a literal
(:data:`runctx.fastpath.prefilter.BUILTIN_NAMES`), derived from
:data:`runctx.runners.table.BUILTIN_PATTERNS` by :func:`names_of`: the test
suite checks that the two agree, and ``python -m runctx.runners.catalog``
writes the literal anew after the table changes. Rows of the user's own are
added by :func:`names_of`.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from runctx.runners.pattern import RunnerPattern


APART = frozenset({"git", "docker", "podman", "nerdctl", "docker-compose", "podman-compose"})
"""Programs of the table the pre-filter looks for with a command word of theirs, not alone:
``git`` with ``commit`` or ``push`` (:func:`runctx.fastpath.prefilter.names_git_hook`), a
container engine with ``run`` or ``up`` (:func:`~runctx.fastpath.prefilter.names_compose_run`)."""


def names_of(patterns: Iterable[RunnerPattern]) -> tuple[str, ...]:
    """Every program, module and code name of ``patterns``, sorted, each once.

    A program glob gives one literal part with a ``*`` on each side where it
    may run on into other text: ``*_test`` stays ``*_test``, ``*run_tests*``
    stays so, ``test_*.py`` gives ``test_*`` (a word starting so). A row of
    any program (``*``) is named by its options instead (``--gtest_*``).
    """
    found: set[str] = set()
    for pattern in patterns:
        found.update(pattern.programs, pattern.modules, pattern.codes)
        found.update(_glob_needle(glob) for glob in pattern.program_globs)
        if "*" in pattern.program_globs:  # any program: its options name it
            found.update(_glob_needle(option) for option in pattern.with_options)
    found.discard("*")
    return tuple(sorted(found - APART))


def _glob_needle(glob: str) -> str:
    """The part of a glob every match contains, starred where the match may go on."""
    parts = glob.split("*")
    if len(parts) == 1:
        return glob
    if parts[0]:
        return parts[0] + "*"
    if parts[-1] and len(parts) == 2:  # noqa: PLR2004 - ``*suffix``
        return "*" + parts[-1]
    middle = max(parts, key=len)
    return f"*{middle}*" if middle else "*"
