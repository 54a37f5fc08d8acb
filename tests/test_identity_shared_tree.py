"""Another user's run in this very checkout: foreign, marked shares_tree, and on-shared-tree.

The other user's run is real: started as ``OTHER_UID`` in a checkout of the
suite's uid (root in CI), which may read its cwd. Root only; in CI these fail,
never skip.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hooktools import claude_pre_tool_use, hook_env, reply, run_hook
from proctools import OTHER_UID, VIEWER_UID, make_checkout, run_as
from runfactory import clean_env

from runctx.identity import Verdict
from runctx.scanning import scan, viewpoint

RUNCTX = [sys.executable, "-m", "runctx"]
EXIT_REFUSED = 75
MARKING_SCRIPT = "import pathlib, sys\npathlib.Path(sys.argv[1]).touch()\n"


def the_run(report, pid):
    """The judged run led by ``pid``; fails when there is none."""
    matches = [judged for judged in report.runs if judged.run.pid == pid]
    assert matches, f"no run led by pid {pid}"
    return matches[0]


def runctx(*args, cwd, env=None):
    """``runctx ARGS`` as a process; output decoded whatever other runs' names hold."""
    return subprocess.run(
        [*RUNCTX, *args],
        cwd=cwd,
        env=env if env is not None else hook_env(),
        capture_output=True,
        encoding="utf-8",
        errors="replace",
        check=False,
        timeout=60,
    )


@pytest.fixture
def shared(shared_tmp, runs):
    """A checkout of this uid with a live run of ``OTHER_UID`` in it: (checkout, run).

    Starting a run as another uid needs root: every test using it is ``needs_root``.
    """
    checkout = make_checkout(shared_tmp, "proj")
    return checkout, runs.run_tests_script(checkout, uid=OTHER_UID)


@pytest.mark.needs_root
def test_another_users_run_here_is_foreign_and_shares_the_tree(shared):
    """Foreign (the uid differs), and the judgement and JSON say it shares this checkout."""
    checkout, run = shared
    judged = the_run(scan(viewpoint(cwd=str(checkout))), run.pid)
    assert judged.judgement.verdict is Verdict.FOREIGN
    assert judged.shares_tree
    status = runctx("status", "--json", cwd=checkout)
    entry = next(e for e in json.loads(status.stdout)["runs"] if e["pid"] == run.pid)
    assert entry["foreign"] is True
    assert entry["shares_tree"] is True
    assert entry["root"] == str(checkout)
    assert entry["root_id"] == json.loads(status.stdout)["here"]["root_id"]
    text = runctx("status", cwd=checkout).stdout
    assert "shares this tree" in text
    assert (
        f"Shared tree: 1 foreign run(s) of other users work in this very checkout (pid {run.pid})"
        in text
    )


@pytest.mark.needs_root
def test_another_users_run_in_another_checkout_does_not_share_it(shared, shared_tmp):
    """The same run seen from another checkout is foreign and shares nothing."""
    _checkout, run = shared
    elsewhere = make_checkout(shared_tmp / "elsewhere", "proj")
    judged = the_run(scan(viewpoint(cwd=str(elsewhere))), run.pid)
    assert judged.foreign
    assert not judged.shares_tree


@pytest.mark.needs_root
def test_a_viewer_who_cannot_read_the_cwd_does_not_claim_a_shared_tree(shared):
    """A third user cannot read the run's cwd: foreign by uid, and no shares_tree on a guess."""
    checkout, run = shared
    here = viewpoint(cwd=str(checkout), uid=VIEWER_UID)
    judged = the_run(run_as(VIEWER_UID, scan, here), run.pid)
    assert judged.foreign
    assert not judged.shares_tree
    assert "root unknown: cwd unreadable (denied)" in judged.judgement.reasons


@pytest.mark.needs_root
def test_the_hook_stops_a_run_by_default_and_follows_on_shared_tree(shared):
    """Claude Code's hook denies by default; on-shared-tree = warn lets it run with a note."""
    checkout, run = shared
    payload = claude_pre_tool_use("pytest -x", checkout)
    output = reply(run_hook("claude", payload))["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    reason = output["permissionDecisionReason"]
    assert "another user's run is live in this checkout" in reason
    assert f"pid {run.pid} (run-tests-script" in reason
    for mode, decision in (("ask", "ask"), ("warn", None)):
        (checkout / "pyproject.toml").write_text(f'[tool.runctx]\non-shared-tree = "{mode}"\n')
        output = reply(run_hook("claude", payload))["hookSpecificOutput"]
        assert output.get("permissionDecision") == decision, output
    env = hook_env(RUNCTX_ON_SHARED_TREE="stop")
    output = reply(run_hook("claude", payload, env=env))["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"


@pytest.mark.needs_root
def test_runctx_run_refuses_and_does_not_wait_for_another_users_run(shared):
    """The run command exits 75 by default, even with --wait; warn runs the command."""
    checkout, run = shared
    (checkout / "runtests.py").write_text(MARKING_SCRIPT)
    mark = checkout / "marked"
    command = ["--", sys.executable, "runtests.py", str(mark)]
    for options in ((), ("--wait", "--timeout", "60")):
        done = runctx("run", *options, *command, cwd=checkout)
        assert done.returncode == EXIT_REFUSED, done.stderr
        assert "another user's run is live in this checkout" in done.stderr
        assert f"pid {run.pid}" in done.stderr
        assert not mark.exists()
    done = runctx("run", *command, cwd=checkout, env=hook_env(RUNCTX_ON_SHARED_TREE="warn"))
    assert done.returncode == 0, done.stderr
    assert mark.exists()
    assert "warning only" in done.stderr


@pytest.mark.needs_root
def test_the_plugin_reports_by_default_and_refuses_when_the_checkout_says_stop(shared):
    """The pytest plugin keeps to a warning unless on-shared-tree asks it to stop (exit 75)."""
    checkout, run = shared
    (checkout / "test_here.py").write_text("def test_here():\n    pass\n")

    def session():
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "test_here.py"],
            cwd=checkout,
            env=clean_env(),
            capture_output=True,
            encoding="utf-8",
            errors="replace",
            check=False,
            timeout=120,
        )

    warned = session()
    assert warned.returncode == 0, warned.stdout
    assert "test run(s) of another user are live in this very checkout" in warned.stdout
    (checkout / "pyproject.toml").write_text('[tool.runctx]\non-shared-tree = "stop"\n')
    refused = session()
    assert refused.returncode == EXIT_REFUSED, refused.stdout
    assert f"pid {run.pid}" in refused.stdout + refused.stderr
    assert 'on-shared-tree = "stop"' in refused.stdout + refused.stderr
