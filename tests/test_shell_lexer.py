"""The shell lexer (``shell/lexer.py``), through the commands it lets the parser find.

Quotes, comments and here-documents are read as a shell would (the corpus in
``shellcases``); here: what happens at its limits, unbalanced input and its
step budget.
"""

from __future__ import annotations

import pytest
from shellcases import CWD, found

from runctx.fastpath.prefilter import SCANNED_CHARS, names_found, past_the_window
from runctx.runners.needles import names_of
from runctx.runners.table import BUILTIN_PATTERNS
from runctx.shell.commands import (
    MAX_COMMAND_CHARS,
    MAX_STEPS,
    NOT_READ_KIND,
    REST_SCANNED_CHARS,
    STEPS_SPENT,
    TestInvocation,
    test_invocations,
)


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


def test_words_past_the_step_budget_are_not_read_and_may_run_tests():
    """A test run after MAX_STEPS lexer steps is not parsed: it may start one, and says why.

    The rest is given as an invocation runctx could not read (a live run of
    the checkout is then named in a warning, never passed in silence); a rest
    that names no runner is nothing; a run before the budget is found as ever.
    """
    assert found("a; " * (MAX_STEPS // 8) + "pytest") == [("pytest", CWD, True)]
    past = "a; " * (MAX_STEPS // 3 + 40)  # three steps each (a word, an operator, a blank)
    assert found(past + "pytest") == [(NOT_READ_KIND, CWD, True)]
    (cut,) = test_invocations(past + "pytest -x", CWD)
    assert cut.unread == STEPS_SPENT
    assert cut.argv[0] == "..."
    assert cut.argv[-2:] == ("pytest", "-x")
    assert found(past + "ls") == []  # a short rest is searched: it names no runner
    # a rest longer than runctx searches may start a run, unsearched
    long_rest = "pytest --version; " + "a; " * MAX_STEPS + "ls"
    assert len(long_rest) - MAX_STEPS > REST_SCANNED_CHARS
    assert found(long_rest) == [(NOT_READ_KIND, CWD, True)]
    assert found("pytest; " + "a; " * MAX_STEPS) == [("pytest", CWD, True)]
    # inside ``bash -c``, too: the budget is one for every level
    assert found("bash -c " + repr("a; " * MAX_STEPS + "pytest")) == [(NOT_READ_KIND, CWD, True)]


def test_a_run_after_a_here_document_past_the_pre_filters_window_is_found():
    """An agent writes a file through a large here-document, then runs the tests: a run.

    The pre-filter searches the first SCANNED_CHARS characters; a longer
    command goes on to the parser, which skips the body by one search.
    """
    body = "x = 1  # a line of a generated file that names no runner\n" * (SCANNED_CHARS // 40)
    command = f"cat > gen.py <<'EOF'\n{body}EOF\npytest -q"
    assert SCANNED_CHARS < len(command) < MAX_COMMAND_CHARS
    assert not names_found(command, names_of(BUILTIN_PATTERNS))  # the window holds no name
    assert past_the_window(command)
    assert found(command) == [("pytest", CWD, True)]
    assert found(command.replace("pytest -q", "ls")) == []


def test_long_heredoc_is_skipped_cheaply():
    """A here-document body costs no steps: a run after a large one is still found."""
    body = "line with ; and | and pytest\n" * 8000
    command = f"cat > notes.txt <<'EOF'\n{body}EOF\nmake test"
    assert len(command) < MAX_COMMAND_CHARS
    assert found(command) == [("make-test", CWD, True)]


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
