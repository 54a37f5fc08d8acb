"""The pre-filter finds the table's names as words, from a list that needs no table.

Short names (``R``, ``go``, ``ng``, ``tap``) must not make every command look
like a test run: a name counts where a word can start and end.
"""

from __future__ import annotations

import pytest

from runctx.runners import BUILTIN_PATTERNS
from runctx.runners.needles import generated_literal, names_of
from runctx.shell.commands import test_invocations
from runctx.shell.prefilter import BUILTIN_NAMES, is_probably_test_command

FILLER = "echo '" + "some text " * 900 + "'\n"


def test_the_generated_names_are_the_tables():
    """The literal the hook reads is the builtin table's names (regenerate it if this fails)."""
    names = names_of(BUILTIN_PATTERNS)
    assert names == BUILTIN_NAMES, (
        "run `python -m runctx.runners.needles` to regenerate:\n" + generated_literal(names)
    )


@pytest.mark.parametrize(
    "command",
    [
        "cat README.md | head",
        "git log --grep google",
        "echo a long string",
        "grep -rn tapas src/",
        "ls ./labels",
        "pip install pytest-cov",
        "cat tests/test_api.py",
        "vim jest.config.js",
        "git diff -- pytest.ini",
        "vim pkg/foo_test.go",
    ],
)
def test_a_name_inside_another_word_is_not_found(command):
    """``README`` holds ``R``, ``google`` holds ``go``: neither is a word of its own."""
    assert not is_probably_test_command(command)
    assert not is_probably_test_command(FILLER + command)


@pytest.mark.parametrize(
    "command",
    [
        "R CMD check .",
        "go test ./...",
        "ng test",
        "python -mpytest",
        "X=$(pytest)",
        "bash -c 'pytest -x'",
        'py"test" -x',
        "printf 'cd a\\npytest\\n' | sh",
        "/abs/.venv/bin/pytest",
        "(cd sub;pytest)",
        "npx jest",
        "make.exe test",
        "./build/unit_tests --gtest_brief",
        "gdb --args build/uv_run_tests_a",
    ],
)
def test_a_name_as_a_word_is_found_in_short_and_long_text(command):
    """Wherever a word starts and ends, the name is found, by loop and by regex alike."""
    assert is_probably_test_command(command)
    assert is_probably_test_command(FILLER + command)
    assert test_invocations(FILLER + command, "/w") == test_invocations(command, "/w")
