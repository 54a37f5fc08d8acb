"""The shared policy: one decision from a scan of real runs, and the setting that shapes it."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import attrs
import pytest
from envtools import live_run, shared_worktrees
from nstools import in_own_pid_namespace, sandboxed_run
from proctools import OTHER_UID, PYTHON, make_checkout, run_as

from runctx import policy
from runctx.environment import command_environment
from runctx.policy import Action, Cause, Decision, Mode
from runctx.present.words import MESSAGE_MAX_CHARS, NOTE_MAX_CHARS, cap
from runctx.runners.installers import INSTALLER_PATTERNS
from runctx.scanning import scan, viewpoint
from runctx.settings import BoxMode, BusyRules, settings_for
from runctx.shell.commands import TestInvocation, test_invocations
from runctx.sources.load import Load, MemInfo, Pressure
from runctx.waiting import blocking_runs


def scan_from(directory: Path, **kwargs):
    """A real scan judged from the checkout of ``directory``."""
    return scan(viewpoint(cwd=str(directory)), **kwargs)


def pids(runs) -> set[int]:
    """The pids of judged runs."""
    return {judged.run.pid for judged in runs}


def only(report, *leaders: int):
    """``report`` with no runs but the caller's own and those led by ``leaders``.

    Runs elsewhere on the box (other suites, leftovers whose identity is
    unknown, which count as ours) would change a decision about the run the
    test started; the runs kept are real, judged by a real scan.
    """
    kept = tuple(j for j in report.runs if j.run.is_self or j.run.pid in leaders)
    return attrs.evolve(report, runs=kept)


# --------------------------------------------------------------------------- judge


def test_another_run_of_the_checkout_stops_by_default(world):
    """From the busy checkout, the live run is ours: stop, naming it."""
    decision = policy.decision_for(scan_from(world.busy), Mode.STOP)
    assert decision.action is Action.STOP
    assert world.run.pid in pids(decision.ours)
    assert decision.message.startswith("runctx: refused to start this test run.")
    assert f"pid {world.run.pid} (run-tests-script, running" in decision.message
    assert decision.cause is Cause.SAME_CHECKOUT


@pytest.mark.parametrize(
    ("mode", "action", "words"),
    [
        (Mode.ASK, Action.ASK, "asking before this test run starts"),
        (Mode.WARN, Action.WARN, "this checkout is set to only warn"),
        (Mode.WAIT, Action.WAIT, "runctx run --wait -- COMMAND"),
    ],
)
def test_the_mode_picks_the_action(world, mode, action, words):
    """The mode ask asks, warn warns, wait waits (a hook refuses and says how to wait)."""
    decision = policy.decision_for(scan_from(world.busy), mode)
    assert decision.action is action
    assert decision.mode is mode
    assert words in decision.message


def test_only_foreign_runs_give_a_note_and_never_count_as_ours(world):
    """From the idle checkout the run is foreign: a note, nothing counted as ours."""
    decision = policy.decision_for(only(scan_from(world.idle), world.run.pid), Mode.STOP)
    assert decision.action is Action.NOTE
    assert decision.cause is Cause.NONE
    assert world.run.pid in pids(decision.foreign)
    assert world.run.pid not in pids(decision.ours)
    assert f"pid {world.run.pid} (run-tests-script" in decision.message  # not measured: named
    assert "not this checkout's" in decision.message


def test_nothing_live_is_silent(world):
    """A report with no other run is silent, whatever the mode."""
    empty = only(scan_from(world.busy))
    for mode in Mode:
        decision = policy.decision_for(empty, mode)
        assert decision.action is Action.SILENT
        assert decision.message == ""


def test_a_cd_that_could_not_be_followed_only_warns(world):
    """When the command's directory is a guess, a stop becomes a warning that says why."""
    decision = policy.decision_for(scan_from(world.busy), Mode.STOP, cwd_known=False)
    assert decision.action is Action.WARN
    assert "could not follow a `cd`" in decision.message


def test_an_unidentifiable_checkout_only_warns(world, tmp_path):
    """From a directory that does not exist, every run of the user looks ours: only warn."""
    report = scan(viewpoint(cwd=str(tmp_path / "gone")))
    decision = policy.decision_for(report, Mode.STOP)
    assert world.run.pid in pids(decision.ours)
    assert decision.action is Action.WARN
    assert "could not identify the checkout" in decision.message


def test_a_run_waits_only_for_older_runs_of_its_checkout(world, runs):
    """Judged as the younger of two runs, the older one stops it; as the older, nothing does."""
    younger = runs.run_tests_script(world.busy)
    both = (world.run.pid, younger.pid)
    as_younger = policy.decision_for(
        only(scan_from(world.busy, self_pid=younger.pid), *both), Mode.STOP, own_run=True
    )
    as_older = policy.decision_for(
        only(scan_from(world.busy, self_pid=world.run.pid), *both), Mode.STOP, own_run=True
    )
    assert as_younger.action is Action.STOP
    assert pids(as_younger.ours) == {world.run.pid}
    assert younger.pid not in pids(as_older.ours)
    assert as_older.action is not Action.STOP


# --------------------------------------------------------------------------- busy now

QUIET_BOX = {"cpu_pressure": None, "load_per_cpu": None, "memory_available": None}
"""Box thresholds off: the box's own load never decides these tests."""


def test_an_idle_foreign_run_is_not_worth_a_word_and_a_busy_one_is(world):
    """Measured idle on a quiet box: silent; the same run over busy-run-cpu: a note naming it."""
    report = only(scan_from(world.idle, cpu_window=0.05), world.run.pid)
    (judged,) = (j for j in report.runs if j.run.pid == world.run.pid)
    assert judged.run.cpu_now == 0.0
    idle = policy.decision_for(report, Mode.STOP, busy=BusyRules(**QUIET_BOX))
    assert (idle.action, idle.message) == (Action.SILENT, "")
    assert world.run.pid in pids(idle.foreign)
    busy = policy.decision_for(report, Mode.STOP, busy=BusyRules(run_cpu=0, **QUIET_BOX))
    assert busy.action is Action.NOTE
    assert f"pid {world.run.pid} (run-tests-script" in busy.message
    assert "idle now" in busy.message
    assert len(busy.message) <= NOTE_MAX_CHARS


def test_a_refusal_leaves_contention_out_and_a_warning_keeps_it(shared_tmp, runs):
    """Next to a run of this checkout, the deny says nothing of foreign load; a warning does."""
    mine = make_checkout(shared_tmp, "mine")
    ours = runs.run_tests_script(mine)
    theirs = runs.run_tests_script(make_checkout(shared_tmp, "theirs"))
    report = only(scan_from(mine, cpu_window=0.05), ours.pid, theirs.pid)
    every_run_busy = BusyRules(run_cpu=0)
    refused = policy.decision_for(report, Mode.STOP, busy=every_run_busy)
    assert refused.action is Action.STOP
    assert f"pid {ours.pid}" in refused.message
    assert "foreign test run" not in refused.message
    warned = policy.decision_for(report, Mode.WARN, busy=every_run_busy)
    assert warned.action is Action.WARN
    assert f"pid {theirs.pid} (run-tests-script" in warned.message


BUSY_BOX = Load(
    usable_cpus=2,
    load_average=(0.1, 0.1, 0.1),
    cpu_pressure=Pressure(avg10=0.0, avg60=0.0, avg300=0.0),
    memory=MemInfo(total_bytes=1000, available_bytes=50),
)
"""A box with 5% of its memory available: busy under the default thresholds."""


@pytest.mark.parametrize(
    ("box", "action", "words"),
    [
        (BoxMode.OFF, Action.SILENT, ""),
        (BoxMode.WARN, Action.NOTE, "runctx: Box busy: memory available 5% < 10%."),
        (BoxMode.WAIT, Action.WAIT, "`runctx run --wait -- COMMAND`"),
    ],
)
def test_on_busy_box_decides_what_a_busy_box_does(world, box, action, words):
    """With nothing else live, a busy box is silent, a note, or a refusal that says how to wait."""
    report = attrs.evolve(only(scan_from(world.busy)), load=BUSY_BOX)
    decision = policy.decision_for(report, Mode.STOP, busy=BusyRules(on_busy_box=box))
    assert decision.action is action
    assert words in decision.message
    assert (decision.box_action is Action.WAIT) is (box is BoxMode.WAIT)
    assert decision.action is not Action.STOP  # waiting for room can change it
    assert (decision.cause is Cause.BUSY_BOX) is (box is BoxMode.WAIT)
    assert decision.box.reasons == ("memory available 5% < 10%",)


def face_decides(invocations, **options):
    """``policy.decide`` as a face calls it: with the settings of each checkout, read once."""
    checkouts = {here: settings_for(here.root) for here, _ in policy.viewpoints(invocations)}
    return policy.decide(invocations, checkouts=checkouts, **options)


@pytest.mark.parametrize(
    ("mode", "box", "action", "cause", "same", "room"),
    [
        (Mode.WAIT, BoxMode.OFF, Action.WAIT, Cause.SAME_CHECKOUT, Action.WAIT, Action.SILENT),
        (Mode.WAIT, BoxMode.WAIT, Action.WAIT, Cause.SAME_CHECKOUT, Action.WAIT, Action.WAIT),
        (Mode.STOP, BoxMode.WAIT, Action.STOP, Cause.SAME_CHECKOUT, Action.STOP, Action.WAIT),
        (Mode.ASK, BoxMode.WAIT, Action.WAIT, Cause.BUSY_BOX, Action.ASK, Action.WAIT),
        (Mode.WARN, BoxMode.WAIT, Action.WAIT, Cause.BUSY_BOX, Action.WARN, Action.WAIT),
        (Mode.WARN, BoxMode.OFF, Action.WARN, Cause.NONE, Action.WARN, Action.SILENT),
    ],
)
def test_one_decision_says_what_to_do_and_what_to_wait_for(  # noqa: PLR0913, PLR0917 - a row
    world, mode, box, action, cause, same, room
):
    """The firmest rule wins; a wait says whether it waits for this checkout, for room, or both."""
    report = attrs.evolve(scan_from(world.busy), load=BUSY_BOX)
    decision = policy.decision_for(report, mode, busy=BusyRules(on_busy_box=box))
    assert (decision.action, decision.cause) == (action, cause)
    assert (decision.same_action, decision.box_action) == (same, room)
    if action is Action.WAIT:
        assert "runctx run --wait -- COMMAND" in decision.message  # what a hook says instead


DECIDE = """
import json, sys
from runctx import policy
from runctx.roots import checkout_root
from runctx.settings import settings_for
from runctx.shell.commands import test_invocations
from runctx.unknown import Unknown
cwd = sys.stdin.read()
settings = settings_for(checkout_root(cwd))  # what a face reads, once, and passes down
decision = policy.decide(test_invocations("pytest -x", cwd), settings=settings)
windows = [None if isinstance(r.cpu_window, Unknown) else r.cpu_window for r in decision.reports]
print(json.dumps({"action": decision.action.value, "windows": windows}))
"""


@pytest.mark.needs_root  # a pid namespace with its own /proc: no other run on the box counts
@pytest.mark.parametrize(
    ("where", "action", "sampled"),
    [("nowhere", "silent", False), ("mine", "stop", False), ("theirs", "note", True)],
)
def test_a_hook_samples_cpu_use_only_when_a_foreign_run_is_live(
    shared_tmp, runs, where, action, sampled
):
    """A window next to a foreign run only: none next to nothing or this checkout's run."""
    mine = make_checkout(shared_tmp, "mine")
    (mine / "pyproject.toml").write_text('[tool.runctx]\nbusy-run-cpu = 0\nforeign-note = "busy"\n')
    theirs = make_checkout(shared_tmp / "other", "mine")
    started = {"nowhere": [], "mine": [sandboxed_run(mine)], "theirs": [sandboxed_run(theirs)]}
    found = in_own_pid_namespace(runs, started[where], [PYTHON, "-c", DECIDE], str(mine), cwd=mine)
    (answer,) = found["replies"]
    assert answer["code"] == 0, answer["stderr"]
    decided = json.loads(answer["stdout"])
    assert decided["action"] == action
    (window,) = decided["windows"]
    assert (window is not None) is sampled


# --------------------------------------------------------------------------- decide


def test_decide_follows_each_invocation_to_its_checkout(world):
    """Runs in two checkouts: the firmest decision wins and both are described."""
    command = f"cd {world.idle} && pytest; cd {world.busy} && pytest"
    invocations = test_invocations(command, str(world.base))
    assert [Path(i.cwd) for i in invocations] == [world.idle, world.busy]
    decision = face_decides(invocations)
    assert decision.action is Action.STOP
    assert world.run.pid in pids(decision.ours)
    assert "refused to start" in decision.message
    assert "foreign test run" in decision.message
    assert len(decision.reports) == 2


def test_decide_leaves_runctx_run_to_itself(world):
    """An invocation that goes through ``runctx run`` is not judged by the hook."""
    invocation = TestInvocation(
        "pytest", ("runctx", "run", "--wait", "--", "pytest"), str(world.busy)
    )
    assert policy.delegated(invocation)
    assert policy.decide([invocation]) == policy.SILENT


def test_decide_uses_the_mode_given_over_the_setting(world):
    """An explicit mode (``runctx run --mode``) wins over the checkout's setting."""
    invocations = test_invocations("pytest", str(world.busy))
    assert face_decides(invocations, mode=Mode.WARN).action is Action.WARN


def test_combine_keeps_the_firmest():
    """Several decisions combine to the firmest action, its message first, every message once."""
    note = Decision(Action.NOTE, message="a")
    stop = Decision(Action.STOP, message="b")
    combined = policy.combine([note, stop, note])
    assert combined.action is Action.STOP
    assert combined.message == "b\n\na"
    assert policy.combine([]) == policy.SILENT


def test_combined_notes_keep_every_fact_within_the_cap():
    """Notes combined: each note's first line is kept, long ones share the room, under the cap."""
    short = Decision(Action.NOTE, message="runctx: short fact.\nsome detail")
    long = Decision(Action.NOTE, message="runctx: " + "long fact " * 60)
    combined = policy.combine([short, long])
    assert combined.action is Action.NOTE
    assert len(combined.message) <= NOTE_MAX_CHARS
    first, second = combined.message.split("\n")
    assert first == "runctx: short fact."
    assert second.startswith("runctx: long fact long fact")
    roomy = policy.combine([short, Decision(Action.NOTE, message="runctx: other fact.")])
    assert roomy.message == "runctx: short fact.\nruntx: other fact.\nsome detail".replace(
        "runtx", "runctx"
    )


def test_long_messages_are_cut_below_the_agents_limit():
    """A message longer than the agents take is cut, and says where to see all."""
    cut = cap("x" * 20000, MESSAGE_MAX_CHARS)
    assert len(cut) <= MESSAGE_MAX_CHARS
    assert cut.endswith("`runctx status` shows all runs)")


def test_summary_is_the_first_line():
    """A decision's summary is the first line of its message."""
    assert Decision(Action.STOP, message="one\ntwo").summary == "one"


def _judge_a_leftover(pid: int, mine: str) -> dict[str, object]:
    """How a scan, the policy and the waiting order treat the run ``pid`` from ``mine``."""
    report = scan(viewpoint(cwd=mine))
    judged = next(j for j in report.runs if j.run.pid == pid)
    decision = policy.decision_for(report, Mode.STOP)
    [invocation] = test_invocations("pytest -x", mine)
    return {
        "verdict": judged.judgement.verdict.value,
        "counted as ours": judged in report.ours,
        "action": decision.action.value,
        "message": decision.message,
        "blocks": judged in blocking_runs(report),
        "decide": policy.decide([invocation]).action.value,
    }


@pytest.mark.needs_root  # the leftover and its viewer are another uid: no other test sees it
def test_a_run_of_unknown_identity_is_named_but_never_refused_for(shared_tmp, runs):
    """A leftover whose cwd was deleted inside this checkout counts as ours in words only."""
    mine = make_checkout(shared_tmp, "mine")
    doomed = mine / "build" / "doomed"
    doomed.mkdir(parents=True)
    leftover = runs.run_tests_script(doomed, uid=OTHER_UID)
    shutil.rmtree(mine / "build")
    seen = run_as(OTHER_UID, _judge_a_leftover, leftover.pid, str(mine))
    assert seen["verdict"] == "unknown"
    assert seen["counted as ours"]
    assert seen["action"] == Action.WARN.value
    assert f"pid {leftover.pid} (" in seen["message"]
    assert "identity is not fully known" in seen["message"]
    assert not seen["blocks"]
    assert seen["decide"] == Action.WARN.value


# --------------------------------------------------------------------------- environments


@pytest.fixture(scope="module")
def worktrees(tmp_path_factory):
    """Worktrees ``a`` and ``b`` of one repository on one venv (``a`` installed editable)."""
    return shared_worktrees(tmp_path_factory.mktemp("policy-envs"))


def venv_of(worktrees):
    """The shared venv as a command in ``b`` finds it (``b/.venv/bin/python``: a link to it)."""
    link = worktrees.b / ".venv"
    if not link.exists():
        link.symlink_to(worktrees.venv)
    return command_environment("pip:install", [".venv/bin/python", "-m", "pip"], str(worktrees.b))


@pytest.mark.parametrize(
    ("mode", "action"), [(Mode.STOP, Action.STOP), (Mode.ASK, Action.ASK), (Mode.WARN, Action.WARN)]
)
def test_a_change_to_a_live_runs_environment_takes_the_checkouts_mode(
    worktrees, runs, mode, action
):
    """``pip install -e .`` in ``b`` beside ``a``'s run on the venv: stop, ask or warn, named."""
    run = live_run(runs, worktrees.a, worktrees.venv)
    report = only(scan_from(worktrees.b), run.pid)
    change = TestInvocation("pip:install", ["pip", "install", "-e", "."], str(worktrees.b))
    decision = policy.environment_change_decision(report, change, venv_of(worktrees), mode)
    assert decision.action is action
    assert pids(decision.environment) == {run.pid}
    assert f"pid {run.pid} (pytest" in decision.message
    assert f"in {worktrees.a}" in decision.message


def test_a_change_nobody_imports_from_or_that_cannot_be_told_is_silent(worktrees, runs):
    """No run on the environment, an unknown environment, a system prefix: silent."""
    report = only(scan_from(worktrees.b))
    change = TestInvocation("pip:install", ["pip", "install", "-e", "."], str(worktrees.b))
    environment = venv_of(worktrees)
    assert policy.environment_change_decision(report, change, environment, Mode.STOP).action is (
        Action.SILENT
    )
    run = live_run(runs, worktrees.a, worktrees.venv)
    report = only(scan_from(worktrees.b), run.pid)
    assert policy.environment_change_decision(report, change, None, Mode.STOP) == policy.SILENT
    system = attrs.evolve(environment, kind="system")
    assert policy.environment_change_decision(report, change, system, Mode.STOP) == policy.SILENT


def test_a_test_run_is_warned_only_of_runs_of_other_checkouts_on_its_environment(worktrees, runs):
    """From ``b``, ``a``'s run on the venv is named (a note, going ahead); from ``a``, not."""
    run = live_run(runs, worktrees.a, worktrees.venv)
    environment = venv_of(worktrees)
    from_b = policy.shared_environment_decision(only(scan_from(worktrees.b), run.pid), environment)
    assert from_b.action is Action.NOTE
    assert from_b.cause is Cause.NONE
    assert len(from_b.message) <= NOTE_MAX_CHARS
    assert pids(from_b.environment) == {run.pid}
    from_a = policy.shared_environment_decision(only(scan_from(worktrees.a), run.pid), environment)
    assert from_a == policy.SILENT


def test_the_environment_note_keeps_its_pid_next_to_a_busy_foreign_run(
    worktrees, runs, monkeypatch, tmp_path
):
    """A test run in ``b`` next to a busy foreign run: the note cut for room still names ``a``'s.

    Both notes share :data:`NOTE_MAX_CHARS`; the one about the code the
    runs import comes first, and names the run before the environment's path.
    """
    run = live_run(runs, worktrees.a, worktrees.venv)
    runs.spinner(make_checkout(tmp_path, "busy-elsewhere"))
    monkeypatch.setenv("PATH", f"{worktrees.venv / 'bin'}:{os.environ['PATH']}")
    invocations = test_invocations("python -m pytest -x", str(worktrees.b))
    decision = face_decides(invocations, environments=True)
    assert decision.action is Action.NOTE
    assert len(decision.message) <= NOTE_MAX_CHARS
    first = decision.message.splitlines()[0]
    assert f"another checkout (pid {run.pid}) imports from this command's environment" in first


def test_decide_judges_test_runs_and_changes_of_one_command(worktrees, runs, monkeypatch, tmp_path):
    """``pip install -e . && python -m pytest`` in ``b``: the firmest of both, both words said.

    Under the user's settings no run and no box is busy: on a shared box a
    note on its load would take the room the words under test need.
    """
    quiet = tmp_path / "config.toml"
    quiet.write_text(
        "busy-run-cpu = 4096\nbusy-box-cpu-pressure = false\n"
        "busy-box-load-per-cpu = false\nbusy-box-memory-available = false\n"
    )
    monkeypatch.setenv("RUNCTX_CONFIG", str(quiet))
    run = live_run(runs, worktrees.a, worktrees.venv)
    monkeypatch.setenv("PATH", f"{worktrees.venv / 'bin'}:{os.environ['PATH']}")
    command = "pip install -e . && python -m pytest -x"
    invocations = test_invocations(command, str(worktrees.b))
    changes = test_invocations(command, str(worktrees.b), INSTALLER_PATTERNS)
    monkeypatch.setenv("RUNCTX_ON_ENVIRONMENT_CHANGE", "ask")
    decision = face_decides(invocations, changes=changes, environments=True)
    assert decision.action is Action.ASK
    assert run.pid in pids(decision.environment)
    assert "changes" in decision.message
    assert f"environment too, {worktrees.venv} (a venv)" in decision.message


# --------------------------------------------------------------------------- quiet by default


def test_a_note_on_foreign_load_weighs_what_the_run_will_use_and_is_said_once(
    shared_tmp, runs, tmp_path
):
    """A spinning foreign run: a note for a run that wants every CPU, none for one that fits.

    The same note to the same listener is said once, until what it says changes.
    """
    mine = make_checkout(shared_tmp, "mine")
    spinner = runs.spinner(make_checkout(shared_tmp, "theirs"))
    report = only(scan_from(mine, cpu_window=0.3, cpu_of=policy.measures_cpu), spinner.pid)
    usable = report.load.usable_cpus
    assert isinstance(usable, int)
    rules = BusyRules(run_cpu=0.01, cpu_pressure=None, load_per_cpu=None, memory_available=None)
    wants_all = policy.decision_for(report, Mode.STOP, busy=rules, wanted=float(usable))
    assert wants_all.action is Action.NOTE
    assert f"pid {spinner.pid} (run-tests-script" in wants_all.message
    fits = policy.decision_for(report, Mode.STOP, busy=rules, wanted=0.0)
    assert fits.action is Action.SILENT  # one spinning process never fills every CPU
    told: list[str] = []

    def said(fingerprint: str) -> bool:
        from runctx.said import said_before

        told.append(fingerprint)
        return said_before("claude-code:sess", fingerprint, directory=str(tmp_path / "state"))

    first = policy.decision_for(report, Mode.STOP, busy=rules, wanted=float(usable), said=said)
    again = policy.decision_for(report, Mode.STOP, busy=rules, wanted=float(usable), said=said)
    assert first.action is Action.NOTE
    assert again.action is Action.SILENT
    assert told[0] == told[1]
    assert str(spinner.pid) in told[0]


def test_run_mode_warn_says_the_flag_set_it(world):
    """``runctx run --mode warn`` is not told that the checkout is set to only warn."""
    invocations = test_invocations("pytest -x", str(world.busy))
    flagged = policy.decide(invocations, mode=Mode.WARN)
    assert flagged.action is Action.WARN
    assert "--mode warn" in flagged.summary
    assert "this checkout is set" not in flagged.summary
