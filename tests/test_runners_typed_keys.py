"""Lines typed into a terminal and entered (``runners/typed_keys.py``), read from argv text."""

from __future__ import annotations

import pytest

from runctx.runners.typed_keys import typed_lines


@pytest.mark.parametrize(
    ("args", "lines"),
    [
        (["send-keys", "-t", "0", "pytest -x", "Enter"], ("pytest -x",)),
        (["send-keys", "-t", "0", "pytest -x", "enter"], ("pytest -x",)),  # names ignore case
        (["send", "pytest", "Space", "-x", "C-m"], ("pytest -x",)),
        (["send-keys", "-t0", "pytest", "C-j"], ("pytest",)),  # the value glued to -t
        (["send-keys", "-Rt", "0", "pytest", "KPEnter"], ("pytest",)),  # a cluster ending in -t
        (["send-keys", "a", "Enter", "b"], ("a",)),  # b is typed, not entered
        (["send-keys", "pytest", "C-c", "ls", "Enter"], ("ls",)),  # the interrupt drops pytest
        (["send-keys", "Escape", "Up", "F5", "M-x", "pytest", "Enter"], ("pytest",)),
        (["send-keys", "Makefile", "Enter"], ("Makefile",)),  # no key has that name: text
        (["send-keys", "-l", "pytest", "Enter"], ()),  # -l: "Enter" is text too
        (["send-keys", "-H", "6c", "73", "0a"], ("ls",)),
        (["send-keys", "-H", "6c", "73", "0d"], ("ls",)),
        (["send-keys", "-X", "cancel"], ()),
        (["send-keys", "pytest", ";", "send-keys", "Enter"], ("pytest",)),
        (["-L", "sock", "send-keys", "pytest", "Enter"], ("pytest",)),
        (["new", "-d", "pytest"], None),  # starts a command: read as a wrapper
        (["-V"], None),
    ],
)
def test_tmux_enters_the_lines_ended_by_enter(args, lines):
    """Text and key names are typed; a line runs once Enter (or C-m, C-j) ends it."""
    assert typed_lines("tmux", args) == lines


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("pytest\\n", ("pytest",)),
        ("pytest\\r", ("pytest",)),
        ("pytest^M", ("pytest",)),
        ("pytest\\015", ("pytest",)),
        ("pytest", ()),
        ("pytest^C\\n", ()),
        ("cd sub\\npytest\\n", ("cd sub", "pytest")),
    ],
)
def test_screen_stuff_enters_the_lines_its_escapes_end(text, lines):
    """``screen -X stuff`` types its text with the escapes decoded; a newline enters."""
    assert typed_lines("screen", ["-S", "t", "-X", "stuff", text]) == lines


def test_a_screen_command_that_types_nothing_is_not_read():
    """A command that types no keys is left to the wrapper table (None), not taken for none."""
    assert typed_lines("screen", ["-dmS", "t", "pytest"]) is None
    assert typed_lines("screen", ["-S", "t", "-X", "quit"]) is None
    assert typed_lines("vim", ["pytest"]) is None
