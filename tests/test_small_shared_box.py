"""A small shared box: a busy CI job of another user, a person's watcher, an agent, a session.

The whole scene runs on real processes, once per module:

- a CI job of another user (``OTHER_UID``) in a checkout of its own, orphaned
  (a double fork), that keeps more CPUs busy than the box has to spare: one
  spinning process per usable CPU, and one more;
- a person's ``watch -n 600 python -m pytest -q`` in a real tmux pane, in the
  checkout, that ran its tests once and now waits its ten minutes;
- in that checkout: an agent's hook calls for ``pytest``, a pytest session, a
  ``runctx status --watch`` frame, and a typo in ``[tool.runctx]``.

On a box whose other sessions keep the CPUs busy too, a process gets the
share of its session's scheduling group (the kernel's autogroup), however
many processes it runs: the job's session and this suite's are both given a
larger share for the scene (``/proc/PID/autogroup``, as root), so that the job
really keeps more than one CPU busy whatever else the box runs, and the
scene's own commands still get their turn. Everything is killed by process
group (and the tmux server by its socket) at the end.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
from hooktools import claude_pre_tool_use, hook_env, reply, run_hook
from proctools import (
    OTHER_UID,
    PYTHON,
    children_of,
    interpreter_for,
    is_live,
    make_checkout,
    tmux_says,
    wait_for,
)
from readable import shared_tempdir
from require import find, unavailable
from runfactory import RunFactory, clean_env, ready_dir

from runctx import policy
from runctx.busy import box_pressure
from runctx.present.words import foreign_load_hurts, owner_name, split_by_cpu
from runctx.scanning import scan, viewpoint
from runctx.settings import DEFAULTS
from runctx.shell.commands import test_invocations

pytestmark = pytest.mark.needs_root

RUNCTX = [sys.executable, "-m", "runctx"]

CI_JOB = """
import os, pathlib, sys
ready, spinners = sys.argv[1], int(sys.argv[2])
for _ in range(spinners - 1):
    if os.fork() == 0:
        break
pathlib.Path(ready, str(os.getpid())).touch()
while True:
    pass
"""
"""A CI job's ``run_tests.py``: it and its workers each keep one CPU busy."""

WATCHED_TESTS = """
import os, pathlib

def test_once():
    ready = os.environ.get("WATCHED_READY")
    if ready:
        pathlib.Path(ready).touch()
"""

SCENE_PRIORITY = -19
"""The nice value of the job's and the suite's scheduling groups during the scene."""
AUTOGROUP = "/proc/{pid}/autogroup"


class Scene(NamedTuple):
    """What the module's tests look at."""

    checkout: Path
    job: int
    pane: int


def _autogroup_nice(pid: int) -> int | None:
    """The nice value of the scheduling group of ``pid`` (``/autogroup-42 nice 0``).

    None where the process is in no autogroup of its own: a kernel without
    them has no file, and a process of the kernel's default group (the first
    process's session, as in some CI containers) reads an empty one. The scene
    then leaves every priority alone.
    """
    try:
        with open(AUTOGROUP.format(pid=pid)) as file:
            fields = file.read().split()
    except OSError:
        return None
    return int(fields[-1]) if fields else None


def _set_autogroup_nice(pid: int, nice: int) -> None:
    """Give the scheduling group of ``pid`` that nice value, where it is in one."""
    if _autogroup_nice(pid) is None:
        return
    with contextlib.suppress(FileNotFoundError), open(AUTOGROUP.format(pid=pid), "w") as file:
        file.write(str(nice))


def _ci_job(runs: RunFactory, base: Path) -> int:
    """The other user's CI job, spinning on one CPU more than the box has: its pid."""
    checkout = make_checkout(base / "ci" / "builds", "proj")
    (checkout / "run_tests.py").write_text(CI_JOB)
    (checkout / "run_tests.py").chmod(0o644)
    ready = ready_dir(checkout) / f"job-{uuid.uuid4().hex}"
    ready.mkdir()
    ready.chmod(0o777)
    spinners = len(os.sched_getaffinity(0)) + 1
    argv = [interpreter_for(OTHER_UID), "run_tests.py", str(ready), str(spinners)]
    job = runs.orphan(argv, checkout, uid=OTHER_UID, env=clean_env(CI="true"))
    wait_for(lambda: len(list(ready.iterdir())) >= spinners, what="the CI job's workers to spin")
    return job.pid


def _watcher(tmux: str, socket: str, checkout: Path, base: Path) -> int:
    """A person's ``watch -n 600 pytest`` in a tmux pane of the checkout, after its first run."""
    (checkout / "test_watched.py").write_text(WATCHED_TESTS)
    ready = base / f"watched-{uuid.uuid4().hex}"
    # a person's terminal: no CI or agent variables (tmux adds TMUX and TMUX_PANE)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/"),
        "TERM": "xterm",
        "LANG": "C.UTF-8",
        "WATCHED_READY": str(ready),
    }
    command = f"watch -n 600 {shlex.quote(PYTHON)} -m pytest -q -p no:cacheprovider"
    tmux_says(
        tmux,
        socket,
        *("new-session", "-d", "-s", "w", "-x", "120", "-y", "30", "-c", str(checkout), command),
        env=env,
    )
    pane = int(tmux_says(tmux, socket, "display-message", "-p", "-t", "w", "#{pane_pid}"))
    wait_for(ready.exists, timeout=120, what="the watched pytest to run once")
    wait_for(lambda: not children_of(pane), timeout=120, what="its first run to end")
    return pane


@pytest.fixture(scope="module")
def scene() -> Iterator[Scene]:
    """The box: the busy CI job, the person's watcher, the checkout they share the box with."""
    tmux = find("tmux")
    if tmux is None:
        unavailable("tmux is not installed")
    base = shared_tempdir("runctx-test-")
    runs = RunFactory()
    socket = f"runctx-test-{uuid.uuid4().hex[:12]}"
    ours = os.getpid()
    priority = _autogroup_nice(ours)
    pane = None
    try:
        checkout = make_checkout(base / "home" / "ana" / "src", "proj")
        pane = _watcher(tmux, socket, checkout, base)
        runs.adopt(pane)  # the pane's process group is reaped with the others
        job = _ci_job(runs, base)
        if priority is not None:  # in the kernel's default group, the job is not raised above us
            _set_autogroup_nice(job, SCENE_PRIORITY)
            _set_autogroup_nice(ours, SCENE_PRIORITY)
        yield Scene(checkout=checkout, job=job, pane=pane)
    finally:
        if priority is not None:
            _set_autogroup_nice(ours, priority)
        subprocess.run(
            [tmux, "-L", socket, "kill-server"], capture_output=True, check=False, timeout=30
        )
        if pane is not None:
            wait_for(lambda: not is_live(pane), what=f"the tmux pane {pane} to end")
        runs.reap()
        subprocess.run(["rm", "-rf", str(base)], check=False, timeout=60)


def _job_hurts(scene: Scene) -> bool:
    """Whether the job, measured as the hook measures it, leaves ``pytest`` too few CPUs."""
    here = viewpoint(cwd=str(scene.checkout))
    report = scan(here, cpu_window=policy.DEFAULT_WINDOW_SECONDS, cpu_of=policy.measures_cpu)
    busy, _ = split_by_cpu(report.foreign, DEFAULTS.busy)
    job = [judged for judged in busy if judged.run.pid == scene.job]
    return bool(job) and foreign_load_hurts(report, job, wanted=1.0)


def _box_busy(scene: Scene) -> bool:
    """Whether the box crosses a default busy-box threshold now, as a session's header reads it."""
    report = scan(viewpoint(cwd=str(scene.checkout)))
    return bool(box_pressure(report.load, DEFAULTS.busy).reasons)


def _agent_asks(scene: Scene, session: str) -> str:
    """What the agent's hook tells an agent session about ``pytest`` in the checkout."""
    payload = claude_pre_tool_use("pytest", scene.checkout)
    payload["session_id"] = session
    env = hook_env()
    del env["RUNCTX_NOTE_ONCE"]  # said once, as for anyone: that is under test
    output = reply(run_hook("claude", payload, env=env))["hookSpecificOutput"]
    assert isinstance(output, dict)
    assert "permissionDecision" not in output, output  # not held, and never "allow"
    context = output["additionalContext"]
    assert isinstance(context, str)
    return context


def test_the_job_really_takes_more_cpus_than_the_box_can_spare(scene):
    """The scene is what it claims: the job leaves a ``pytest`` fewer CPUs than it will use."""
    wait_for(lambda: _job_hurts(scene), timeout=30, what="the CI job to keep the box busy")


def _watcher_named_once(context: str, scene: Scene) -> None:
    """One line names the watcher as a person's; nothing calls anything a leftover to stop."""
    named = [line for line in context.splitlines() if f"pid {scene.pane}" in line]
    assert len(named) == 1, context
    assert f"pid {scene.pane} re-runs this checkout's tests on change" in named[0]
    assert "`watch -n 600`, a person's, started from tmux pane %" in named[0]
    assert "leftover" not in context.replace("not a leftover", ""), context
    assert "runctx stop" not in context, context


NOTE_TRIES = 3
"""Calls, and sessions, tried until the hook measures the job over the line (its window is
0.1 s: a loaded box may hide the job from one window)."""


def _facts(context: str) -> set[str]:
    """What a note on contention names: each busy run's pid, each threshold the box is over."""
    facts = set()
    for line in context.splitlines():
        if line.startswith("Busy foreign"):
            facts |= {f"pid {pid}" for pid in re.findall(r"pid (\d+) \(", line)}
            facts |= {f"{more} more" for more in re.findall(r"(\d+) more busy", line)}
        if line.startswith("Box busy: "):
            facts |= {reason.split()[0] for reason in line[len("Box busy: ") :].split(", ")}
    return facts


def test_the_agent_gets_one_line_on_the_watcher_and_the_busy_note_once(scene):
    """The watcher in one line, never a leftover, never to stop; the job's note said once.

    A session asks until the note comes (the hook's window saw the job over
    the line), then once more: the note is not said again, unless it has news
    (a busy run or a threshold it did not name: other work on this box may
    bring some; then another session is tried).
    """
    quiet = None
    for _ in range(NOTE_TRIES):
        wait_for(lambda: _job_hurts(scene), timeout=30, what="the CI job to keep the box busy")
        session = f"scene-{uuid.uuid4().hex}"
        told = [_agent_asks(scene, session)]
        while "Busy foreign" not in told[-1] and len(told) < NOTE_TRIES:
            told.append(_agent_asks(scene, session))
        told.append(_agent_asks(scene, session))
        for context in told:
            _watcher_named_once(context, scene)
        noted, after = told[-2], told[-1]
        if "Busy foreign" not in noted:
            continue
        assert f"pid {scene.job} (run-tests-script, {owner_name(OTHER_UID)}" in noted, noted
        assert noted.splitlines()[0].startswith(f"runctx: pid {scene.pane} re-runs"), noted
        if "Busy foreign" in after:  # said again: only with a fact it had not named
            assert _facts(after) - _facts(noted), (noted, after)
            continue
        quiet = after
        break
    assert quiet is not None, f"no session was told the note once and then nothing more: {told}"
    assert len(quiet.splitlines()) == 1, quiet  # the watcher's line alone


@pytest.mark.parametrize(
    "unmeasured",
    [{"essentials_only": True}, {"cpu_window": None}],
    ids=["first-pass", "pass-after-a-hold"],
)
def test_a_pass_that_measures_no_cpu_says_no_note_whatever_it_cannot_measure(scene, unmeasured):
    """A pass that measures no CPU names no foreign run as busy.

    The hook's first pass, and its optional pass after a hold (whose words
    never name a foreign run). When time runs out on a busy box the first
    pass's answer is the hook's, for every command: a note there would call
    every foreign run busy, every time.
    """
    invocations = test_invocations("pytest", str(scene.checkout))
    first = policy.decide(invocations, **unmeasured)
    assert first.action is policy.Action.NOTE  # the watcher's line
    assert f"pid {scene.pane} re-runs" in first.message
    assert "Busy foreign" not in first.message
    assert "not known" not in first.message


def _orphaned_session(runs: RunFactory, checkout: Path, *args: str) -> tuple[int, str]:
    """``python -m pytest ARGS`` started in ``checkout`` as a person's other terminal would.

    Orphaned (a double fork) so that it is no member of this suite's run;
    its exit status and output come back through files.
    """
    out = checkout / f".session-{uuid.uuid4().hex}"
    line = " ".join(shlex.quote(word) for word in [PYTHON, "-m", "pytest", *args])
    script = f"{line} >{out}.out 2>&1; echo $? >{out}.tmp && mv {out}.tmp {out}.status"
    env = clean_env()
    for name in [name for name in env if name.startswith("RUNCTX_")]:
        del env[name]
    session = runs.orphan(["/bin/sh", "-c", script], checkout, env=env)
    with contextlib.suppress(OSError):  # a session of its own (it may have ended): the job's share
        _set_autogroup_nice(session.pid, SCENE_PRIORITY)
    status = Path(f"{out}.status")
    wait_for(status.exists, timeout=120, what="the pytest session to end")
    return int(status.read_text()), Path(f"{out}.out").read_text()


def _runctx_lines(output: str) -> list[str]:
    """The lines runctx wrote into a session's output."""
    return [line for line in output.splitlines() if line.lstrip().startswith("runctx")]


def test_a_pytest_session_there_prints_at_most_two_runctx_lines(scene, runs):
    """The plugin's header line and summary line, nothing more, at the default verbosity."""
    status, output = _orphaned_session(
        runs, scene.checkout, "-p", "no:cacheprovider", "test_watched.py"
    )
    assert status == 0, output
    said = _runctx_lines(output)
    assert 1 <= len(said) <= 2, output  # the watcher is named: there is something to say
    named = [line for line in said if f"pid {scene.pane}" in line]
    assert named, output
    assert any("a watcher (`watch -n 600`)" in line for line in named), output
    assert "leftover" not in output.replace("not a leftover", ""), output
    assert "runctx stop" not in output


def test_a_typo_in_tool_runctx_lets_pytest_run_with_a_warning(scene, runs):
    """A misspelt key: the session runs its tests, says what is wrong where, exits as it would."""
    pyproject = scene.checkout / "pyproject.toml"
    before = pyproject.read_text()
    pyproject.write_text(before + '\n[tool.runctx]\non-same-chekout = "stop"\n')
    try:
        status, output = _orphaned_session(
            runs, scene.checkout, "-p", "no:cacheprovider", "test_watched.py"
        )
    finally:
        pyproject.write_text(before)
    assert status == 0, output
    assert "1 passed" in output
    warned = [line for line in _runctx_lines(output) if "on-same-chekout" in line]
    assert len(warned) == 1, output
    assert "pyproject.toml" in warned[0]
    assert re.search(r"pyproject\.toml:\d+|line \d+", warned[0]), warned[0]


def _columns(header: str) -> dict[str, int]:
    return {name: header.index(name) for name in ("PID", "CPU NOW", "OWNER")}


def _cpu_now(row: str, columns: dict[str, int]) -> float:
    """The CPU NOW of a table row: -1 when it was not measured."""
    text = row[columns["CPU NOW"] : columns["OWNER"]].strip().lstrip("+")
    with contextlib.suppress(ValueError):
        return float(text)
    return -1.0


def test_a_watch_frame_shows_one_line_a_run_busiest_first(scene):
    """``runctx status --watch``: one line per run, foreign runs sorted by CPU now."""
    done = subprocess.run(
        [*RUNCTX, "status", "--watch", "--count", "1"],
        cwd=scene.checkout,
        capture_output=True,
        text=True,
        env=hook_env(COLUMNS="200"),
        check=True,
        timeout=120,
    )
    frame = done.stdout
    assert "why:" not in frame
    assert "shares its environment" not in frame
    (job,) = [line for line in frame.splitlines() if re.match(rf"\s*\+?\s*{scene.job}\s", line)]
    (watcher,) = [
        line for line in frame.splitlines() if re.match(rf"\s*\+?\s*{scene.pane}\s", line)
    ]
    assert "(watch)" in watcher
    foreign = frame.split("Foreign runs", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    header, rows = foreign[0], [row for row in foreign[1:] if re.match(r"\s*\+?\s*\d+\s", row)]
    assert job in rows
    columns = _columns(header)
    shown = [_cpu_now(row, columns) for row in rows]
    assert shown == sorted(shown, reverse=True), "\n".join(foreign)
    assert len(rows) + 1 >= len(foreign) - 1  # every other line is at most the hint below


def test_a_note_with_no_fact_not_told_already_is_not_said_again(tmp_path):
    """A busy run that calmed down, a threshold no longer crossed: nothing new, nothing said."""
    from runctx.said import said_before

    where = str(tmp_path / "state")
    told = "here /src/proj\nbusy 41\nbusy 42\nover CPU"
    assert said_before("claude-code:s1", told, directory=where) is False
    assert said_before("claude-code:s1", "here /src/proj\nbusy 41", directory=where) is True
    assert said_before("claude-code:s1", told, directory=where) is True
    assert said_before("claude-code:s1", "here /src/proj\nbusy 43", directory=where) is False
    assert said_before("claude-code:s1", "here /src/proj\nbusy 42", directory=where) is False
    assert said_before("claude-code:s1", "here /src/other\nbusy 42", directory=where) is False


# --------------------------------------------------------------------------- docs/api.md


def _plugin_words(text: str) -> str:
    """The plugin's words in ``text``, with what changes from run to run replaced."""
    text = re.sub(r"\bpid \d+", "pid PID", text)
    text = re.sub(r"\b\d+(?:m\d\ds|h\d\dm|s)\b", "AGE", text)
    text = re.sub(r"\([a-z-]+, running AGE, \d+ process(?:es)?\)", "(RUN)", text)
    text = re.sub(r"pid PID \([a-z-]+, [^),]+\)", "pid PID (KIND, OWNER)", text)
    text = re.sub(r"\b\d+\.\d CPUs busy now", "N CPUs busy now", text)
    text = re.sub(r"owned by \S+, ", "owned by OWNER, ", text)
    text = re.sub(r"busy now: [^\[\n]*\[", "busy now: REASONS [", text)
    text = re.sub(r"\bseen at [^\]]+\]", "seen at WHEN]", text)
    text = re.sub(r"\(\d+ samples?: [^)]*\)", "(SAMPLES)", text)
    text = re.sub(
        r"\b\d+ of \d+ samples \((?:[^()]|\([^()]*\))*\)", "N of M samples (REASONS)", text
    )
    text = re.sub(r"box busy: [^;]*;", "box busy: REASONS;", text)
    text = re.sub(r"Box busy: .*\.$", "Box busy: REASONS.", text, flags=re.MULTILINE)
    text = re.sub(r"box busy \(start\): .*$", "box busy (start): REASONS", text, flags=re.MULTILINE)
    return re.sub(r"\b\d+ idle foreign test runs?\b", "N idle foreign test runs", text)


def _without_the_box(text: str) -> str:
    """``text`` with every word on the box's pressure left out (a box under every threshold)."""
    text = text.replace(" box busy: REASONS;", "").replace("; box busy in N of M samples", "")
    return "\n".join(line for line in text.splitlines() if "ox busy" not in line)


def _runctx_said(output: str) -> str:
    """What runctx wrote into a session's output: its lines, and its section under ``-v``."""
    lines = output.splitlines()
    said = [line for line in lines if line.startswith("runctx:")]
    heading = [n for n, line in enumerate(lines) if re.match(r"-+ runctx -+$", line)]
    if heading:
        end = next(n for n in range(heading[0], len(lines)) if lines[n].startswith("Slowness"))
        said += lines[heading[0] : end + 1]
    return "\n".join(said)


@pytest.mark.parametrize("verbosity", ["", "-v"])
def test_the_plugins_example_in_api_md_is_what_a_session_prints(scene, runs, verbosity):
    """docs/api.md: a session next to a person's run of its checkout and the busy CI job."""
    from test_doc_examples import blocks, run_in_a_terminal

    (shown,) = blocks("api.md", f"$ pytest{' ' + verbosity if verbosity else ''}\n")
    checkout = make_checkout(scene.checkout.parent / f"other{verbosity}", "proj")
    (checkout / "test_it.py").write_text(WATCHED_TESTS)
    person, master = run_in_a_terminal(checkout, runs)
    try:
        wait_for(lambda: _job_hurts(scene), timeout=30, what="the CI job to keep the box busy")
        # The example's box is busy when the session starts: CPU pressure and the load
        # average are averages, which take a while to rise on a box that was quiet.
        wait_for(lambda: _box_busy(scene), timeout=90, what="the box to cross a threshold")
        args = ["-p", "no:cacheprovider", *([verbosity] if verbosity else []), "test_it.py"]
        status, output = _orphaned_session(runs, checkout, *args)
    finally:
        os.close(master)
    assert status == 0, output
    assert f"pid {person} " in output
    assert f"pid {scene.job} " in output, output
    printed = _plugin_words(_runctx_said(output))
    pytests_own = ("$ ", "=", "...")  # the command, pytest's heading, what pytest says between
    documented = _plugin_words(
        "\n".join(line for line in shown.splitlines() if not line.startswith(pytests_own))
    )
    if "ox busy" not in printed:  # a box under every threshold: the example's box words go
        documented = _without_the_box(documented)
    assert printed == documented
