"""The pre-filter (``fastpath/prefilter.py``): a cheap no for commands that name no runner.

It finds the table's names as words, from a list that needs no table. Short
names (``R``, ``go``, ``ng``, ``tap``) must not make every command look like a
test run: a name counts where a word can start and end.
"""

from __future__ import annotations

import random
import shlex

import pytest
from shellcases import CASES, CWD

from runctx.fastpath.prefilter import is_probably_test_command
from runctx.runners import RunnerPattern
from runctx.shell.commands import test_invocations

FILLER = "echo '" + "some text " * 900 + "'\n"


class TestPrefilter:
    """is_probably_test_command never says no to a command test_invocations finds a run in."""

    def test_sound_on_the_case_corpus(self):
        """Every command with an invocation in the corpus passes the pre-filter."""
        for command, expected in CASES:
            if expected:
                assert is_probably_test_command(command), command

    def test_sound_on_mangled_runner_words(self):
        """Quotes, backslashes, $'' and line continuations inside runner words do not fool it."""
        rng = random.Random(20240601)  # noqa: S311 - a reproducible corpus, not a secret
        words = [
            "pytest",
            "py.test",
            "run_tests.py",
            "vitest",
            "make test",
            "cargo nextest run",
            "npm run test:unit",
            "python -m unittest",
        ]
        manglers = [
            lambda s: f"'{s}'",
            lambda s: f'"{s}"',
            lambda s: f"$'{s}'",
            lambda s: "\\" + s,
            lambda s: "\\\n" + s,
            lambda s: "''" + s,
        ]
        checked = 0
        for _ in range(400):
            word = rng.choice(words)
            cut = rng.randrange(1, len(word))
            head, tail = word[:cut], word[cut:]
            mangled = rng.choice(manglers)(head) + rng.choice(manglers)(tail)
            command = rng.choice(["{}", "cd x && {}", "bash -c {q}", "echo a; {} -x", "X=$({})"])
            command = command.format(mangled, q=shlex.quote(mangled))
            if test_invocations(command, CWD):
                checked += 1
                assert is_probably_test_command(command), command
        assert checked > 50  # the corpus really exercises the property

    def test_says_no_to_ordinary_commands(self):
        """Commands without any runner name are rejected without parsing."""
        for command in ["git status", "ls -la", "cat README.md | head", "echo hi > x.txt"]:
            assert not is_probably_test_command(command)
            assert test_invocations(command, CWD) == ()

    def test_long_text_takes_the_same_decisions(self):
        """Past the short-text size (searched by regex, not by substring loop) nothing changes."""
        filler = "echo '" + "some text " * 900 + "'\n"
        assert len(filler) > 8192
        for tail, expected in [("py'test' -x", True), ("py\\\ntest", True), ("ls -la", False)]:
            command = filler + tail
            assert is_probably_test_command(command) is expected, tail
            assert bool(test_invocations(command, CWD)) is expected, tail

    def test_custom_table(self):
        """The pre-filter follows the table it is given."""
        table = (RunnerPattern("e2e", programs=("run-e2e",)),)
        assert is_probably_test_command("./run-e2e", table)
        assert not is_probably_test_command("pytest", table)


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
