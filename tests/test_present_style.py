"""Colour: only on a terminal by default, NO_COLOR honoured, the flag wins, text stays escaped."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys

import pytest
from hooktools import hook_env

from runctx.present.output import styled_bytes
from runctx.present.style import ROLES, Span, line, use_color

RUNCTX = [sys.executable, "-m", "runctx"]
SGR = re.compile(rb"\x1b\[[0-9;]*m")


@pytest.mark.parametrize(
    ("choice", "terminal", "environ", "expected"),
    [
        ("auto", True, {}, True),
        ("auto", False, {}, False),
        ("auto", True, {"NO_COLOR": "1"}, False),
        ("auto", True, {"NO_COLOR": ""}, True),  # set but empty: no effect (no-color.org)
        ("auto", True, {"TERM": "dumb"}, False),
        ("always", False, {"NO_COLOR": "1"}, True),  # the flag wins over the variable
        ("never", True, {}, False),
    ],
)
def test_colour_is_decided_by_the_flag_the_terminal_and_no_color(
    choice, terminal, environ, expected
):
    """--color, whether stdout is a terminal, NO_COLOR and TERM=dumb decide, in that order."""
    assert use_color(choice, is_terminal=terminal, environ=environ) is expected


def test_a_span_carries_no_escape_of_its_own_even_coloured():
    """Text with an escape sequence in it is written escaped; only the role's SGR is raw."""
    data = styled_bytes([line(Span("x\x1b[2Jy\n", "ours"), " plain")], "utf-8", color=True)
    assert SGR.sub(b"", data) == b"x\\x1b[2Jy\\n plain"
    assert data.startswith(f"\x1b[{ROLES['ours']}m".encode())


def status_on_a_terminal(cwd, *argv: str, **env: str) -> bytes:
    """``runctx status ARGV`` with a pty for stdout; what it wrote."""
    leader, follower = pty.openpty()
    try:
        process = subprocess.Popen(
            [*RUNCTX, "status", *argv],
            cwd=cwd,
            stdout=follower,
            stderr=subprocess.PIPE,
            env=hook_env(**env),
        )
        os.close(follower)
        seen = b""
        while True:
            ready, _, _ = select.select([leader], [], [], 60)
            assert ready, seen
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the writer closed the terminal
                chunk = b""
            if not chunk:
                break
            seen += chunk
        assert process.wait(timeout=60) == 0
        return seen
    finally:
        os.close(leader)


def test_a_terminal_gets_colour_and_no_color_takes_it_away(checkout):
    """On a terminal the headings are coloured; NO_COLOR=1 gives the same text without."""
    coloured = status_on_a_terminal(checkout)
    assert SGR.search(coloured)
    plain = status_on_a_terminal(checkout, NO_COLOR="1")
    assert not SGR.search(plain)
    assert b"\x1b" not in plain


def test_a_pipe_gets_no_colour_unless_asked(checkout):
    """Piped, the table has no escape at all; --color=always colours it anyway."""
    piped = subprocess.run(
        [*RUNCTX, "status"], cwd=checkout, capture_output=True, env=hook_env(), check=True
    )
    assert b"\x1b" not in piped.stdout
    asked = subprocess.run(
        [*RUNCTX, "status", "--color=always"],
        cwd=checkout,
        capture_output=True,
        env=hook_env(NO_COLOR="1"),
        check=True,
    )
    assert SGR.search(asked.stdout)
