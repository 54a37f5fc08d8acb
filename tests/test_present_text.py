"""The status table on real runs: it fits the width, --wide shows all, paths are short."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hooktools import hook_env
from livetools import start_npm_test
from proctools import make_checkout

from runctx.present.text import cut_end, cut_start, shorter_path

RUNCTX = [sys.executable, "-m", "runctx"]
LONG_ARGUMENT = "--an-option-long-enough-to-need-cutting=" + "v" * 150


def status(*argv: str, cwd, **env: str) -> str:
    """``runctx status ARGV`` with stdout a pipe; its output."""
    done = subprocess.run(
        [*RUNCTX, "status", *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=hook_env(**env),
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def long_run(shared_tmp, runs):
    """A run of another checkout whose command line is long, and a checkout to look from."""
    mine = make_checkout(shared_tmp / "home" / "src", "mine")
    theirs = make_checkout(shared_tmp / "home" / "src", "theirs")
    (theirs / "run_tests.py").write_text(
        "import pathlib, sys, time\npathlib.Path(sys.argv[1]).touch()\ntime.sleep(300)\n"
    )
    ready = theirs / "ready"
    run = runs.orphan(
        [sys.executable, str(theirs / "run_tests.py"), str(ready), LONG_ARGUMENT],
        theirs,
        ready=ready,
    )
    return mine, theirs, run


def row_of(text: str, pid: int) -> str:
    """The table row of the run ``pid``."""
    return next(line for line in text.splitlines() if line.lstrip().startswith(f"{pid} "))


@pytest.mark.parametrize("columns", [80, 120, 200])
def test_the_table_fits_columns(long_run, columns):
    """With $COLUMNS every table row fits it; the command is cut at its end with an ellipsis."""
    mine, _theirs, run = long_run
    text = status(cwd=mine, COLUMNS=str(columns))
    row = row_of(text, run.pid)
    assert len(row) <= columns
    assert row.endswith("…")
    header = next(line for line in text.splitlines() if "COMMAND" in line and "PID" in line)
    assert len(header) <= columns


def test_wide_shows_the_whole_command(long_run):
    """--wide keeps every word of the command, whatever the width."""
    mine, _theirs, run = long_run
    assert LONG_ARGUMENT in row_of(status("--wide", cwd=mine, COLUMNS="80"), run.pid)


def test_a_pipe_without_columns_gets_the_whole_table(long_run):
    """Piped, with no $COLUMNS, nothing is cut (what grep and less expect)."""
    mine, _theirs, run = long_run
    assert LONG_ARGUMENT in row_of(status(cwd=mine), run.pid)


def test_paths_are_shown_from_home_and_from_the_run_checkout(long_run, shared_tmp):
    """The root as ~/src/theirs, the script as run_tests.py: the shorter spelling is shown."""
    mine, theirs, run = long_run
    row = row_of(status("--wide", cwd=mine, HOME=str(shared_tmp / "home")), run.pid)
    assert "~/src/theirs" in row
    assert " run_tests.py " in row
    assert str(theirs) not in row
    exact = row_of(status("--wide", cwd=mine, HOME="/nonexistent-home"), run.pid)
    assert str(theirs) in exact


def test_shorter_path_prefers_the_shortest_spelling():
    """Relative to the checkout, from home, or as it is: whichever is shortest."""
    assert shorter_path("/h/a/src/p/.venv/bin/x", home="/h/a", checkout="/h/a/src/p") == (
        ".venv/bin/x"
    )
    assert shorter_path("/h/a/other/y", home="/h/a", checkout="/h/a/src/p") == "~/other/y"
    assert shorter_path("/h/a/src/p", home="/h/a", checkout="/h/a/src/p") == "."
    assert shorter_path("/h/ab/z", home="/h/a", checkout=None) == "/h/ab/z"
    assert shorter_path("/x", home=None, checkout="/") == "/x"


@pytest.mark.parametrize("width", [1, 2, 5, 40])
def test_cuts_keep_to_the_width_and_mark_what_was_cut(width):
    """A cut text is at most ``width`` characters and shows an ellipsis where it was cut."""
    text = "abcdefghij" * 5
    assert len(cut_end(text, width)) <= max(width, 1)
    assert cut_end(text, width).endswith("…")
    assert cut_start(text, width).startswith("…")
    assert cut_end("short", 40) == "short"


def test_a_title_is_shown_as_its_text(shared_tmp, runs):
    """A live ``npm test`` (a title, NUL-padded) shows as ``npm test``, not as quoted words."""
    mine = make_checkout(shared_tmp, "mine")
    run = start_npm_test(runs, make_checkout(shared_tmp, "theirs"))
    row = row_of(status("--wide", cwd=mine), run.pid)
    assert row.endswith(" npm test")
    assert "''" not in row
