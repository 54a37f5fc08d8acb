"""The shell lexer (``shell/lexer.py``), through the commands it lets the parser find.

Quotes, comments and here-documents are read as a shell would (the corpus in
``shellcases``); here: what happens at its limits, unbalanced input and its
step budget.
"""

from __future__ import annotations

import pytest
from shellcases import CWD, found

from runctx.shell.commands import MAX_COMMAND_CHARS, MAX_STEPS, TestInvocation, test_invocations


@pytest.mark.parametrize(
    "command",
    [
        "pytest 'unbalanced",
        'pytest "unbalanced',
        "pytest $(unbalanced",
        "pytest `unbalanced",
        "pytest ${unbalanced",
        "pytest $'unbalanced",
        "pytest )",
        "(pytest",
        "pytest <(",
        "pytest \\",
        "pytest <<",
        "pytest >",
        "cd 'unbalanced && pytest",
    ],
)
def test_unbalanced_input_never_raises_and_falls_back(command):
    """Unbalanced quotes or parentheses fall back to a whitespace split instead of raising."""
    assert [kind for kind, _, _ in found(command)] == ["pytest"]


def test_fallback_split_still_separates_operators():
    """In the whitespace fallback, operator words still end a command."""
    assert found("echo 'x ; pytest -x") == [("pytest", CWD, True)]


# Pathological inputs: each must be read to the lexer's bounds, never raise.
PATHOLOGICAL = [
    "pytest;" + "a;" * 40000,
    "pytest " + "'a' " * 30000,
    "pytest " + "'" * 100001,
    "pytest " + "(" * 100000,
    "pytest " + "$(" * 30000 + ")" * 30000,
    "bash -c " + "'bash -c \"pytest\"'" * 2000,
    "cat > f <<'EOF'\n" + "pytest line\n" * 80000 + "EOF\npytest",
    "pytest " + "\\" * 100000,
    "pytest " + "a" * 1000000,
    "echo " + "a" * 1000000,
    "pytest\n" * 20000,
    "pytest " + "$" * 100000,
    "pytest " + "$'a' " * 20000,
    "pytest <<A\n" * 5000,
    "cd a;" * 20000 + "pytest",
    "pytest|" * 20000,
    "`" * 100000 + "pytest",
    '"' * 100000 + "pytest",
]


@pytest.mark.parametrize("command", PATHOLOGICAL, ids=[c[:24] for c in PATHOLOGICAL])
def test_pathological_input_is_read_to_its_bounds(command):
    """A pathological command never raises: the bounded lexer returns what it read.

    How long that takes is measured by ``make bench`` (worst-case command strings).
    """
    result = test_invocations(command, CWD)
    assert isinstance(result, tuple)
    assert all(isinstance(invocation, TestInvocation) for invocation in result)


def test_words_past_the_step_budget_are_not_read():
    """A test run after MAX_STEPS lexer steps is not looked at, one before is (documented)."""
    assert found("a; " * (MAX_STEPS // 8) + "pytest") == [("pytest", CWD, True)]
    assert found("a; " * MAX_STEPS + "pytest") == []


def test_long_heredoc_is_skipped_cheaply():
    """A here-document body costs no steps: a run after a large one is still found."""
    body = "line with ; and | and pytest\n" * 20000
    command = f"cat > notes.txt <<'EOF'\n{body}EOF\nmake test"
    assert len(command) < MAX_COMMAND_CHARS * 10
    assert found(command[: MAX_COMMAND_CHARS - 20] + "\nEOF\nmake test") == [
        ("make-test", CWD, True)
    ]


@pytest.mark.parametrize(
    "command",
    [
        "uv run --python 3.12 \\\n  pytest -x",
        "uv run --python 3.12 \\\n    --with pytest-cov \\\n    pytest",
        "poetry run \\\n\tpython -m pytest",
        "uv run --python 3.12 \\\n\\\n  pytest",
    ],
)
def test_a_line_continuation_before_an_indented_word_is_a_blank(command):
    """A backslash, a newline and indentation join the lines: no empty word is made."""
    runs = test_invocations(command, CWD)
    assert len(runs) == 1
    assert "" not in runs[0].argv
    assert runs[0].argv[-1] in {"pytest", "-x"}
