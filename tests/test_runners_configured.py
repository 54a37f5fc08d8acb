"""Configured rows for a builtin program (``runners/configured.py``) read its options."""

from __future__ import annotations

import textwrap

import pytest

from runctx.runners import BUILTIN_PATTERNS, RunnerMatch, RunnerPattern, detect_runner
from runctx.runners.configured import with_program_options
from runctx.runners.walk import resolve_command
from runctx.settings import settings_for
from runctx.shell.commands import test_invocations

VERIFY = RunnerPattern("mk-verify", programs=("make",), subcommand=("verify",))


def _table(*rows: RunnerPattern) -> tuple[RunnerPattern, ...]:
    return (*with_program_options(rows, BUILTIN_PATTERNS), *BUILTIN_PATTERNS)


@pytest.mark.parametrize(
    ("argv", "chdir"),
    [
        (["make", "-j", "4", "verify"], None),
        (["make", "-j4", "verify"], None),
        (["make", "--jobs", "4", "verify"], None),
        (["make", "-l", "2.5", "verify"], None),
        (["make", "-f", "Makefile", "verify"], None),
        (["make", "--file=ci.mk", "verify"], None),
        (["make", "-C", ".", "verify"], "."),
        (["make", "-C", "sub", "-j", "4", "verify"], "sub"),
        (["make", "--directory=../b", "verify"], "../b"),
        (["make", "-C../b", "verify"], "../b"),
        (["make", "-sC", "sub", "verify"], "sub"),
    ],
)
def test_a_configured_make_row_reads_makes_options(argv, chdir):
    """``make -j 4 verify``, ``make -C DIR verify``: the row is found, in the directory named."""
    table = _table(VERIFY)
    resolution = resolve_command(argv, table)
    assert resolution.match == RunnerMatch("mk-verify")
    assert resolution.chdir == chdir


def test_the_rows_own_words_still_decide():
    """The builtin options only let the row see its words: ``make -j 4 lint`` is no verify."""
    table = _table(VERIFY)
    assert detect_runner(["make", "-j", "4", "lint"], table) != RunnerMatch("mk-verify")
    assert detect_runner(["make", "-f", "verify"], table) != RunnerMatch("mk-verify")


def test_a_row_for_an_unknown_program_is_kept_as_it_is():
    """A program the builtin table does not know has no options to take: the row is unchanged."""
    row = RunnerPattern("e2e", programs=("run-e2e",), subcommand=("all",))
    assert with_program_options((row,), BUILTIN_PATTERNS) == (row,)


def test_a_configured_module_row_reads_the_modules_options():
    """``python -m pytest -p no:x smoke``: a row for pytest's module gets pytest's value options."""
    row = RunnerPattern("smoke", modules=("pytest",), subcommand=("smoke",))
    table = _table(row)
    assert detect_runner(["python", "-m", "pytest", "-p", "no:x", "smoke"], table) == RunnerMatch(
        "smoke"
    )
    assert detect_runner(["python", "-m", "pytest", "-p", "no:x", "smoke"], (row,)) is None


def test_the_settings_table_gives_configured_rows_their_programs_options(tmp_path):
    """Through ``[tool.runctx]``, the hook reads ``make -C sub verify`` as a run in ``sub``."""
    (tmp_path / "pyproject.toml").write_text(
        textwrap.dedent(
            """
            [tool.runctx]
            runners = [{ kind = "mk-verify", program = "make", args = ["verify"] }]
            """
        )
    )
    (tmp_path / "sub").mkdir()
    patterns = settings_for(str(tmp_path), environ={}).patterns
    for command, cwd in [
        ("make -j 4 verify", tmp_path),
        ("make -f Makefile verify", tmp_path),
        ("make -C sub verify", tmp_path / "sub"),
    ]:
        found = test_invocations(command, str(tmp_path), patterns, resolve_tasks=False)
        assert [(i.kind, i.cwd) for i in found] == [("mk-verify", str(cwd))], command
