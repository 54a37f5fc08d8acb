"""The status table on real runs: one line a run, busiest first, fits the width, paths short."""

from __future__ import annotations

import os
import pty
import re
import select
import sys

import attrs
import pytest
from hooktools import RUNCTX, hook_env, runctx
from livetools import start_npm_test
from proctools import make_checkout
from runfactory import RUN_TESTS_SCRIPT

from runctx.present.text import (
    FOREIGN_SHOWN,
    cut_end,
    cut_middle,
    cut_start,
    report_text,
    shorter_path,
)
from runctx.present.words import owner_name
from runctx.report import CUT_NOTE
from runctx.scanning import scan, viewpoint
from runctx.settings import DEFAULTS

LONG_ARGUMENT = "--an-option-long-enough-to-need-cutting=" + "v" * 150
TEST_ARGUMENT = "tests/test_kept.py"
"""The last word of the long command: what tells two runs of one checkout apart."""
SPIN = "import pathlib, sys\npathlib.Path(sys.argv[1]).touch()\nwhile True:\n    pass\n"


def status(*argv: str, cwd, **env: str) -> str:
    """``runctx status ARGV`` with stdout a pipe; its output."""
    done = runctx("status", *argv, cwd=cwd, env=hook_env(**env))
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def long_run(shared_tmp, runs):
    """A run of another checkout whose command line is long, and a checkout to look from."""
    mine = make_checkout(shared_tmp / "home" / "src", "mine")
    theirs = make_checkout(shared_tmp / "home" / "src", "theirs")
    (theirs / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
    ready = theirs / "ready"
    run = runs.orphan(
        [sys.executable, str(theirs / "run_tests.py"), str(ready), LONG_ARGUMENT, TEST_ARGUMENT],
        theirs,
        ready=ready,
    )
    return mine, theirs, run


def row_of(text: str, pid: int) -> str:
    """The table row of the run ``pid``."""
    return next(line for line in text.splitlines() if line.lstrip().startswith(f"{pid} "))


@pytest.mark.parametrize("columns", [80, 120, 200])
def test_the_table_fits_columns(long_run, columns):
    """With $COLUMNS every row fits; the command is cut in its middle, its last words kept."""
    mine, _theirs, run = long_run
    text = status(cwd=mine, COLUMNS=str(columns))
    row = row_of(text, run.pid)
    assert len(row) <= columns
    assert "…" in row
    assert row.endswith(TEST_ARGUMENT[-8:])
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
    for cut in (cut_end, cut_start, cut_middle):
        assert len(cut(text, width)) <= max(width, 1)
        assert "…" in cut(text, width)
        assert cut("short", 40) == "short"
    assert cut_end(text, width).endswith("…")
    assert cut_start(text, width).startswith("…")


def test_a_middle_cut_keeps_the_program_and_the_last_arguments():
    """``python -m pytest … tests/test_x.py``: both ends stay, the end with the larger share."""
    text = ".venv/bin/python -m pytest " + "--option " * 20 + "tests/test_x.py::test_one"
    cut = cut_middle(text, 40)
    assert len(cut) == 40
    assert cut.startswith(".venv/bin/py")
    assert cut.endswith("tests/test_x.py::test_one")


def test_each_run_takes_one_line_and_v_shows_why(long_run):
    """Without -v a foreign run is its row alone, with a hint; -v adds why it is foreign."""
    mine, _theirs, run = long_run
    text = status(cwd=mine)
    lines = text.splitlines()
    at = lines.index(row_of(text, run.pid))
    assert not lines[at + 1].lstrip().startswith("why:")
    assert "why:" not in text
    assert "runctx status -v" in text
    detailed = status("-v", cwd=mine).splitlines()
    at = detailed.index(row_of("\n".join(detailed), run.pid))
    assert detailed[at + 1].lstrip().startswith("why: ")


def test_foreign_runs_come_busiest_first(shared_tmp, runs):
    """A foreign run that uses a CPU now is listed above an idle one, whatever their pids."""
    mine = make_checkout(shared_tmp, "mine")
    pids = {}
    for name, script in (("busy", SPIN), ("idle", RUN_TESTS_SCRIPT)):
        theirs = make_checkout(shared_tmp, name)
        (theirs / "run_tests.py").write_text(script)
        ready = theirs / "ready"
        pids[name] = runs.orphan(
            [sys.executable, str(theirs / "run_tests.py"), str(ready)], theirs, ready=ready
        ).pid
    text = status(cwd=mine)
    foreign = text[text.index("Foreign runs") :]
    assert foreign.index(f"  {pids['busy']} ") < foreign.index(f"  {pids['idle']} ")


WARMED = (
    "import pathlib, sys, time\n"
    "began = time.process_time()\n"
    "while time.process_time() - began < 0.3:\n"
    "    pass\n"
    "pathlib.Path(sys.argv[1]).touch()\n"
    "time.sleep(600)\n"
)
"""A run that used 0.3 s of CPU, then idles: ranked above a run that used less."""


def _foreign_section(text: str) -> tuple[int, list[str]]:
    """The count in ``Foreign runs (N; ...)`` and the lines under it, up to the blank line."""
    lines = text[text.index("Foreign runs (") :].splitlines()
    total = int(lines[0].removeprefix("Foreign runs (").split(";", 1)[0])
    return total, lines[1 : lines.index("")]


def _listed(section: list[str]) -> list[int]:
    """The pids of the rows of a section (a row starts with its pid)."""
    words = (line.split(maxsplit=1) for line in section)
    return [int(first[0]) for first in words if first and first[0].isdigit()]


def test_past_the_busiest_foreign_runs_the_rest_are_one_line(shared_tmp, runs):
    """Beside more foreign runs than a table lists, the busiest are rows, the rest one line.

    The busy run is listed whatever its pid; the line counts the others by owner
    and checkout and says how to list them all, as ``--all`` does (and the
    watch, with its own hint).
    """
    mine = make_checkout(shared_tmp, "mine")
    idle = [run.pid for run in runs.elsewhere(shared_tmp / "many", FOREIGN_SHOWN + 4)]
    busy = runs.spinner(make_checkout(shared_tmp, "busy")).pid
    total, section = _foreign_section(status(cwd=mine))
    assert total >= len(idle) + 1
    listed = _listed(section)
    assert len(listed) == FOREIGN_SHOWN
    assert listed[0] == busy
    more = [line for line in section if "more" in line]
    assert len(more) == 1, section
    assert more[0].startswith(f"  … and {total - FOREIGN_SHOWN:,} more ("), more
    assert more[0].endswith("; every one: runctx status --all"), more
    mine_left = re.search(rf"([0-9,]+) of {re.escape(owner_name(os.getuid()))}[,;]", more[0])
    assert mine_left is not None, more
    assert int(mine_left[1].replace(",", "")) >= len(idle) - (FOREIGN_SHOWN - 1)
    everything, section = _foreign_section(status("--all", cwd=mine))
    assert set(idle) | {busy} <= set(_listed(section))
    assert len(_listed(section)) == everything
    assert not any(" more (" in line for line in section)
    watched = status("--watch", "--count", "1", cwd=mine)
    assert f"… and {_foreign_section(watched)[0] - FOREIGN_SHOWN:,} more (" in watched
    assert "every one: runctx status --watch --all" in watched
    every_frame = status("--watch", "--count", "1", "--all", cwd=mine)
    assert len(_listed(_foreign_section(every_frame)[1])) > FOREIGN_SHOWN


@pytest.mark.needs_root
def test_a_run_in_this_very_checkout_is_listed_whatever_its_rank(shared_tree, shared_tmp, runs):
    """Another user's run here (it shares the checkout's files) is a row past the busiest too."""
    checkout, theirs = shared_tree
    runs.elsewhere(shared_tmp / "many", FOREIGN_SHOWN + 2, WARMED)
    ranked = _listed(_foreign_section(status("--all", cwd=checkout))[1])
    assert ranked.index(theirs.pid) >= FOREIGN_SHOWN  # the warmed runs used more CPU
    listed = _listed(_foreign_section(status(cwd=checkout))[1])
    assert len(listed) == FOREIGN_SHOWN + 1
    assert listed[-1] == theirs.pid
    assert set(listed) == {*ranked[:FOREIGN_SHOWN], theirs.pid}


def test_the_sections_of_a_cut_scan_count_what_was_found_before_the_cut(shared_tmp, runs):
    """A report whose scan was cut heads each section with what it found before the cut.

    The runs are real and really scanned; only the report's note that the scan
    was cut is added, as a scan cut by its deadline adds it.
    """
    mine = make_checkout(shared_tmp, "mine")
    ours = runs.run_tests_script(mine)
    theirs = runs.run_tests_script(make_checkout(shared_tmp, "theirs"))
    report = scan(viewpoint(cwd=str(mine)), settings=DEFAULTS)
    assert ours.pid in {judged.run.pid for judged in report.ours}
    assert theirs.pid in {judged.run.pid for judged in report.foreign}
    counts = (len(report.ours), len(report.foreign))
    assert f"Other runs of this checkout ({counts[0]}):" in report_text(report)
    notes = (*report.visibility.notes, f"{CUT_NOTE}: 3 processes were not read at all")
    cut = report_text(attrs.evolve(report, visibility=attrs.evolve(report.visibility, notes=notes)))
    before = "found before --timeout cut the scan"
    assert f"Other runs of this checkout ({counts[0]} {before}):" in cut
    assert f"Foreign runs ({counts[1]} {before}; they share the CPUs" in cut


def test_a_terminal_that_reports_no_size_gets_80_columns(long_run, runs):
    """On a pty that says 0x0 (``script``, some CI terminals) the table is fitted to 80 columns."""
    mine, _theirs, run = long_run
    leader, follower = pty.openpty()
    try:
        assert os.get_terminal_size(follower) == (0, 0)
        env = {k: v for k, v in hook_env().items() if k not in {"COLUMNS", "LINES"}}
        process = runs.child(
            [*RUNCTX, "status", "--color", "never"], cwd=mine, stdout=follower, env=env
        )
        os.close(follower)
        follower = -1
        output = read_until_closed(leader).decode().replace("\r\n", "\n")
        assert process.wait(timeout=60) == 0
    finally:
        for fd in (leader, follower):
            if fd >= 0:
                os.close(fd)
    row = row_of(output, run.pid)
    assert 60 < len(row) <= 80
    assert "…" in row


def read_until_closed(fd: int) -> bytes:
    """Everything written to a pty until its last writer closed it (EIO on the leader)."""
    data = b""
    while select.select([fd], [], [], 60)[0]:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: every writer is gone
            break
        if not chunk:
            break
        data += chunk
    return data


def test_a_title_is_shown_as_its_text(shared_tmp, runs):
    """A live ``npm test`` (a title, NUL-padded) shows as ``npm test``, not as quoted words."""
    mine = make_checkout(shared_tmp, "mine")
    run = start_npm_test(runs, make_checkout(shared_tmp, "theirs"))
    row = row_of(status("--wide", cwd=mine), run.pid)
    assert row.endswith(" npm test")
    assert "''" not in row
