"""A configured runner row for a program the builtin table knows gets that program's options.

A row from ``[tool.runctx]`` or the user's file names a program and the words
that make it a run (``make verify``); it does not spell out how the program
reads its options. When the builtin table has rows for the same program (or
``python -m`` module), the configured row reads that program's options the
way they do: the options that take a value (``make -f FILE``), those whose
value is an optional number (``make -j 4``), and the directory options
(``make -C DIR``, ``mvn -f DIR/pom.xml``), the union over those rows. So
``make -j 4 -C sub verify`` is a ``verify`` run in ``sub``. The row's own
columns (its words, ``not_with``, its ``value_options``) are kept as given.
"""

from __future__ import annotations

from runctx.runners.pattern import RunnerPattern

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


def with_program_options(
    rows: Sequence[RunnerPattern], builtin: Sequence[RunnerPattern]
) -> tuple[RunnerPattern, ...]:
    """``rows``, each given the option grammar of the ``builtin`` rows for its program."""
    return tuple(_with_options(row, builtin) for row in rows)


def _with_options(row: RunnerPattern, builtin: Sequence[RunnerPattern]) -> RunnerPattern:
    known = [
        other
        for other in builtin
        if (row.programs & other.programs or row.modules & other.modules)
        and not other.program_globs
    ]
    if not known:
        return row
    chdirs = frozenset().union(*(other.chdir_options for other in known))
    chdir_files = frozenset().union(*(other.chdir_file_options for other in known))
    numbers = frozenset().union(*(other.number_options for other in known))
    values = frozenset().union(*(other.value_options for other in known)) - chdirs - chdir_files
    return RunnerPattern(
        row.kind,
        role=row.role,
        programs=row.program_order,
        modules=row.modules,
        codes=row.codes,
        path_suffixes=row.path_suffixes,
        subcommand=row.subcommand,
        any_arg=row.any_arg,
        except_args=row.except_args,
        with_options=row.with_options,
        leading_options=row.leading_options,
        not_with=row.not_with,
        not_passed=row.not_passed,
        not_subcommands=row.not_subcommands,
        value_options=(row.value_options | values) - numbers - chdirs - chdir_files,
        number_options=numbers - row.value_options,
        chdir_options=chdirs - row.value_options,
        chdir_file_options=chdir_files - row.value_options,
    )
