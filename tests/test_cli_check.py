"""``runctx check`` on real runs: an exit status per outcome, and ``--json`` like status."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest
import scenes
from hooktools import RUNCTX, claude_pre_tool_use, hook_env, reply, run_hook, runctx
from proctools import OTHER_UID, VIEWER_UID, make_checkout, run_as
from schematools import validate

from runctx.cli.check import EXIT_CLEAR, EXIT_FOREIGN, NOT_TOLD, check_text, outcome_of
from runctx.scanning import scan, viewpoint


@pytest.fixture
def two_checkouts(shared_tmp):
    """Ours and a foreign checkout with the same directory name (:func:`scenes.two_checkouts`)."""
    return scenes.two_checkouts(shared_tmp)


def test_another_run_of_ours_exits_3(two_checkouts, runs):
    """A live run of this checkout exits 3 and is named in the text."""
    mine, _theirs = two_checkouts
    ours = runs.run_tests_script(mine)
    result = runctx("check", cwd=mine)
    assert result.returncode == 3, result.stderr
    assert f"pid {ours.pid} (run-tests-script" in result.stdout
    assert result.stderr == ""


@pytest.mark.needs_root  # to run and judge as a uid of its own (see below)
def test_only_foreign_contention_exits_4(two_checkouts, runs):
    """A run of another checkout with the same name exits 4: contention, not a conflict."""
    mine, theirs = two_checkouts
    # Seen by root, a root-owned run elsewhere whose root cannot be known (its cwd could
    # not be read) counts as ours: "only foreign contention" holds on a shared box only
    # for a uid that no other run has. The run and the viewpoint have that uid, so the
    # root is what makes the run foreign.
    foreign = runs.run_tests_script(theirs, uid=VIEWER_UID)
    result = runctx("check", "--uid", str(VIEWER_UID), "-v", cwd=mine)
    assert result.returncode == 4, result.stdout
    assert f"pid {foreign.pid} (run-tests-script" in result.stdout
    assert f"root {theirs} != {mine}" in result.stdout
    quiet = runctx("check", "--uid", str(VIEWER_UID), cwd=mine)  # without -v: idle runs counted
    assert quiet.returncode == 4, quiet.stdout
    # Counted, not named: 1 here, more on a box where other users' runs are idle too.
    counted = re.search(r"\b(\d+) idle foreign test runs?\b", quiet.stdout)
    assert counted, quiet.stdout
    assert int(counted.group(1)) >= 1
    assert f"pid {foreign.pid}" not in quiet.stdout


@pytest.mark.needs_root  # to run and judge as a uid of its own (as above)
def test_ignore_foreign_exits_0_when_only_foreign_runs_are_live(two_checkouts, runs):
    """--ignore-foreign: only foreign contention exits 0, and --json says what was found."""
    mine, theirs = two_checkouts
    runs.run_tests_script(theirs, uid=VIEWER_UID)
    plain = runctx("check", "--uid", str(VIEWER_UID), "--ignore-foreign", cwd=mine)
    assert plain.returncode == 0, plain.stdout
    as_json = runctx("check", "--uid", str(VIEWER_UID), "--ignore-foreign", "--json", cwd=mine)
    report = json.loads(as_json.stdout)
    assert (as_json.returncode, report["check"], report["exit_status"]) == (0, "foreign", 0)


def test_ignore_foreign_still_exits_3_for_a_run_of_this_checkout(ours_and_foreign):
    """--ignore-foreign changes nothing when another run of this very checkout is live."""
    mine, ours = ours_and_foreign.mine, ours_and_foreign.ours
    result = runctx("check", "--ignore-foreign", cwd=mine)
    assert result.returncode == 3
    assert f"pid {ours.pid} " in result.stdout


def test_ours_wins_over_foreign(ours_and_foreign):
    """With both ours and foreign live, the outcome is 3 and both are named (-v)."""
    scene = ours_and_foreign
    mine, ours, foreign = scene.mine, scene.ours, scene.foreign
    result = runctx("check", "-v", cwd=mine)
    assert result.returncode == 3
    assert f"pid {ours.pid} " in result.stdout
    assert f"pid {foreign.pid} " in result.stdout


def test_json_has_the_shape_of_status_plus_the_outcome(ours_and_foreign):
    """Check --json carries every field of status --json, plus check and exit_status."""
    scene = ours_and_foreign
    mine, ours, foreign = scene.mine, scene.ours, scene.foreign
    checked = runctx("check", "--json", cwd=mine)
    status = subprocess.run(
        [*RUNCTX, "status", "--json"],
        cwd=mine,
        capture_output=True,
        text=True,
        errors="backslashreplace",
        check=True,
    )
    report, reference = json.loads(checked.stdout), json.loads(status.stdout)
    assert checked.returncode == 3
    assert set(report) == set(reference) | {"check", "decision", "exit_status"}
    assert report["check"] == "ours"
    assert report["decision"] == "stop"
    assert report["exit_status"] == 3
    assert (report["here"]["root"], report["here"]["uid"]) == (str(mine), os.getuid())
    entries = {entry["pid"]: entry for entry in report["runs"]}
    reference_entries = {entry["pid"]: entry for entry in reference["runs"]}
    assert set(entries[ours.pid]) == set(reference_entries[ours.pid])
    assert entries[ours.pid]["verdict"] == "ours"
    assert entries[foreign.pid]["foreign"] is True


def test_quiet_prints_nothing(two_checkouts, runs):
    """-q keeps the exit status and prints nothing."""
    mine, _theirs = two_checkouts
    runs.run_tests_script(mine)
    result = runctx("check", "-q", cwd=mine)
    assert (result.returncode, result.stdout, result.stderr) == (3, "", "")


def test_a_scan_without_runs_is_clear(two_checkouts):
    """A real scan in which no process starts a test run gives outcome 0 and says so."""
    mine, _theirs = two_checkouts
    report = scan(viewpoint(cwd=str(mine)), patterns=())
    assert report.runs == ()
    assert outcome_of(report) == EXIT_CLEAR
    assert check_text(report).startswith("No other test run")


# -- runctx check and the agent hooks: one decision on the same box ---------------------------


def check_and_hook(checkout: str) -> tuple[int, str | None, str]:
    """``runctx check --ignore-foreign`` and Claude Code's hook for ``pytest -x`` in ``checkout``.

    The exit status of the pre-commit hook's command, the hook's permission
    decision (None: it goes ahead), and what the hook said.
    """
    done = subprocess.run(
        [*RUNCTX, "check", "--ignore-foreign", "--json"],
        cwd=checkout,
        capture_output=True,
        text=True,
        env=hook_env(),
        check=False,
    )
    hook = run_hook("claude", claude_pre_tool_use("pytest -x", checkout), env=hook_env())
    output = reply(hook).get("hookSpecificOutput", {}) if hook.stdout else {}
    assert isinstance(output, dict)
    said = str(output.get("permissionDecisionReason") or output.get("additionalContext") or "")
    return done.returncode, output.get("permissionDecision"), said


def _agree(status: int, decision: str | None) -> None:
    """The pre-commit hook fails exactly when the agent hook refuses or asks."""
    assert status in (0, 3), status
    assert (status == 3) is (decision in ("deny", "ask")), (status, decision)


def test_check_and_the_hook_both_hold_a_second_run_of_this_checkout(two_checkouts, runs):
    """A live run of this checkout, known ours: the hook denies and check exits 3."""
    mine, _theirs = two_checkouts
    ours = runs.run_tests_script(mine)
    status, decision, said = check_and_hook(str(mine))
    _agree(status, decision)
    assert decision == "deny"
    assert f"pid {ours.pid} (run-tests-script" in said


@pytest.mark.needs_root  # another user's run, in a tree of the suite's uid
def test_check_and_the_hook_both_hold_next_to_another_users_run_in_this_tree(shared_tree):
    """Another user's run in this very checkout: the hooks stop it by default, and so does check.

    Before, ``runctx check --ignore-foreign`` passed here (the run is foreign).
    """
    checkout, run = shared_tree
    status, decision, said = check_and_hook(str(checkout))
    _agree(status, decision)
    assert decision == "deny"
    assert f"pid {run.pid} (run-tests-script" in said
    (checkout / "pyproject.toml").write_text('[tool.runctx]\non-shared-tree = "warn"\n')
    status, decision, _said = check_and_hook(str(checkout))
    _agree(status, decision)
    assert status == 0


def _check_and_hook_as_viewer(checkout: str) -> tuple[int, str | None, str]:
    """``check_and_hook`` in this process (the viewer may not reach the suite's interpreter)."""
    from runctx.cli.main import main as runctx_main
    from runctx.fastpath.hook import _reply
    from runctx.hooks.agents import face_of

    for name in [name for name in os.environ if name.startswith("RUNCTX_")]:
        del os.environ[name]
    os.chdir(checkout)
    status = runctx_main(["check", "-q", "--ignore-foreign"])
    agent, kind = face_of("claude")
    answer = _reply(agent, kind, claude_pre_tool_use("pytest -x", checkout))
    output = json.loads(answer)["hookSpecificOutput"] if answer else {}
    said = str(output.get("permissionDecisionReason") or output.get("additionalContext") or "")
    return status, output.get("permissionDecision"), said


@pytest.mark.needs_root  # the leftover and its viewer are another uid: no other test sees it
def test_check_and_the_hook_both_let_a_run_start_next_to_a_leftover_of_unknown_identity(
    shared_tmp, runs
):
    """A leftover whose cwd was deleted inside this checkout: both warn, neither holds.

    Before, ``runctx check`` failed here (it counted the leftover as a run of
    this checkout) while the hooks only warned.
    """
    mine = make_checkout(shared_tmp, "mine")
    doomed = mine / "build" / "doomed"
    doomed.mkdir(parents=True)
    leftover = runs.run_tests_script(doomed, uid=OTHER_UID)
    shutil.rmtree(mine / "build")
    status, decision, said = run_as(OTHER_UID, _check_and_hook_as_viewer, str(mine))
    _agree(status, decision)
    assert status == 0
    assert f"pid {leftover.pid} (" in said
    assert "identity is not fully known" in said


# -- --timeout is wall time: a cut scan says what it could not read ---------------------------


def test_a_scan_cut_by_its_timeout_says_what_it_could_not_read(two_checkouts, runs):
    """``--timeout 0`` cuts the scan at once: the run is not read, and both commands say so."""
    mine, _theirs = two_checkouts
    ours = runs.run_tests_script(mine)
    cut = subprocess.run(
        [*RUNCTX, "status", "--json", "--timeout", "0"],
        cwd=mine,
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(cut.stdout)
    notes = report["visibility"]["notes"]
    assert any(note.startswith("time ran out (--timeout): ") for note in notes), notes
    assert ours.pid not in {entry["pid"] for entry in report["runs"]}
    whole = json.loads(runctx("check", "--json", "--timeout", "60", cwd=mine).stdout)
    assert ours.pid in {entry["pid"] for entry in whole["runs"]}
    assert not any(note.startswith("time ran out") for note in whole["visibility"]["notes"])
    checked = runctx("check", "--timeout", "0", cwd=mine)
    assert "runctx check: time ran out (--timeout)" in checked.stderr


def test_a_scan_cut_by_its_timeout_never_says_nothing_is_live(two_checkouts, runs):
    """Cut before it read the live run of this checkout, check neither exits 0 nor says clear.

    Nor does the table of ``status``: its empty sections say the scan was cut.

    It exits 4 (maybe next to other runs; 0 under ``--ignore-foreign``, as a
    hook that could not decide lets the run start), says it could not tell,
    and its JSON says ``unknown``, as the schema allows.
    """
    mine, _theirs = two_checkouts
    runs.run_tests_script(mine)
    cut = runctx("check", "--timeout", "0", cwd=mine)
    assert cut.returncode == EXIT_FOREIGN, cut.stdout + cut.stderr
    assert cut.stdout.strip() == NOT_TOLD
    assert "No other test run" not in cut.stdout
    let_through = runctx("check", "--timeout", "0", "--ignore-foreign", cwd=mine)
    assert let_through.returncode == EXIT_CLEAR
    assert let_through.stdout.strip() == NOT_TOLD
    report = json.loads(runctx("check", "--json", "--timeout", "0", cwd=mine).stdout)
    validate(report)
    assert (report["check"], report["exit_status"]) == ("unknown", EXIT_FOREIGN)
    assert runctx("check", cwd=mine).returncode == 3  # not cut: the run is found and held
    table = runctx("status", "--timeout", "0", cwd=mine).stdout
    assert "none live" not in table
    assert "Other runs of this checkout: none found before --timeout cut the scan" in table
