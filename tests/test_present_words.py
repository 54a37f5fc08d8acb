"""The words every face shares: short notes that name busy foreign runs and count idle ones.

The runs are real (sleeping and spinning runs in real checkouts); each report
is cut down to the runs the test started (``only``), so that other runs on a
shared box never decide what a note names. Who started a run is foreign
text, given as values here: it is escaped on its way into every sentence.
"""

from __future__ import annotations

import os

import attrs
from proctools import make_checkout, wait_for

from runctx.modes import DEFAULT_MODE
from runctx.policy import decision_for
from runctx.present.words import (
    NOTE_MAX_CHARS,
    describe_starter,
    plural,
    same_checkout_lines,
)
from runctx.report import StartedBy
from runctx.scanning import scan, viewpoint
from runctx.settings import BusyRules
from runctx.unknown import Reason, Unknown

QUIET = {"cpu_pressure": None, "load_per_cpu": None, "memory_available": None}
"""Box thresholds off: the box's own load never decides these notes."""


def foreign_note(report, rules):
    """The note a command started next to ``report``'s foreign runs gets, or None."""
    return decision_for(report, DEFAULT_MODE, busy=rules).message or None


def only(report, pids):
    """``report`` with no runs but those led by ``pids``."""
    return attrs.evolve(report, runs=tuple(j for j in report.runs if j.run.pid in pids))


def test_a_note_is_short_and_counts_idle_runs_in_a_few_words(shared_tmp, runs):
    """Twelve idle foreign runs on a busy box: one short note that only counts them."""
    checkout = make_checkout(shared_tmp)
    started = [runs.run_tests_script(make_checkout(shared_tmp / "o", f"p{n}")) for n in range(12)]
    report = scan(viewpoint(cwd=str(checkout)), cpu_window=0.1)
    alone = only(report, {run.pid for run in started})
    assert len(alone.runs) == 12
    always_busy = BusyRules(cpu_pressure=0)
    note = foreign_note(alone, always_busy)
    assert note is not None
    assert len(note) <= NOTE_MAX_CHARS
    assert "+12 idle foreign test runs" in note
    assert not any(f"pid {run.pid}" in note for run in started)
    quiet = BusyRules(**QUIET)
    assert foreign_note(alone, quiet) is None


def test_a_busy_foreign_run_is_named_with_its_cpu_use_now(shared_tmp, runs):
    """A foreign run over busy-run-cpu is named in the note with the CPUs it keeps busy."""
    checkout = make_checkout(shared_tmp)
    spinner = runs.spinner(make_checkout(shared_tmp, "theirs"))
    rules = BusyRules(run_cpu=0.01, **QUIET)
    here = viewpoint(cwd=str(checkout))
    notes: list[str | None] = []

    def named() -> bool:
        alone = only(scan(here, cpu_window=0.1), {spinner.pid})
        notes[:] = [foreign_note(alone, rules)]
        return notes[0] is not None

    wait_for(named, what="a note on the spinning run")
    (note,) = notes
    assert note is not None
    assert f"pid {spinner.pid} (run-tests-script" in note
    assert " CPUs busy now" in note
    assert "not this checkout's" in note
    assert len(note) <= NOTE_MAX_CHARS


def test_who_started_a_run_is_said_escaped_and_short():
    """A session id's first characters, escaped; the detail escaped; nothing for unknown."""
    hostile = StartedBy("claude-code", os.fsdecode(b"\x1b[2J\nFAKE\xff-0123456789"), None)
    assert describe_starter(hostile) == "claude-code session \\x1b[2J\\nFAK…"
    job = StartedBy("github-actions", "42", "org/app: CI\x1b[31m / test")
    assert describe_starter(job) == "github-actions run 42 (org/app: CI\\x1b[31m / test)"
    assert describe_starter(job, detail=False) == "github-actions run 42"
    assert describe_starter(StartedBy("gitlab-ci", "7", None)) == "gitlab-ci job 7"
    assert describe_starter(Unknown(Reason.ABSENT)) is None


def test_one_run_is_said_in_the_singular_and_two_in_the_plural(shared_tmp, runs):
    """One run of this checkout is said in the singular, two in the plural: never run(s)."""
    checkout = make_checkout(shared_tmp, "proj")
    runs.run_tests_script(checkout)
    one = scan(viewpoint(cwd=str(checkout)))
    assert same_checkout_lines(one.ours)[0].startswith(
        "1 other test run of this checkout is live: pid "
    )
    runs.run_tests_script(checkout)
    two = scan(viewpoint(cwd=str(checkout)))
    assert same_checkout_lines(two.ours)[0] == "2 other test runs of this checkout are live:"
    assert "(s)" not in "\n".join(same_checkout_lines(two.ours))


def test_plural_takes_the_noun_the_count_needs():
    """plural(1, ...) is singular; 0 and 2 are plural."""
    assert plural(1, "run", "runs") == "1 run"
    assert plural(0, "run", "runs") == "0 runs"
    assert plural(2, "process is", "processes are") == "2 processes are"
