"""Roots compared as directories across mount namespaces; pids only in our pid namespace.

Real runs in their own mount namespaces (``unshare --mount`` plus a bind mount
only they see) and real commands in a child pid namespace that still sees this
``/proc`` (``unshare --pid --fork``). Root only; in CI these fail, never skip.
"""

from __future__ import annotations

import json
import os
import shlex

import pytest
from nstools import (
    child_pid_namespace_argv,
    in_child_pid_namespace,
    mount_namespace,
    start_run_in_mount_namespace,
)
from proctools import PYTHON, is_live, make_checkout, wait_for
from runfactory import clean_env

from runctx.identity import Verdict
from runctx.scanning import scan, viewpoint
from runctx.sources.psutil import PsutilSource
from runctx.unknown import Reason, Unknown


def the_run(report, pid):
    """The judged run led by ``pid``; fails when there is none."""
    matches = [judged for judged in report.runs if judged.run.pid == pid]
    assert matches, f"no run led by pid {pid}"
    return matches[0]


@pytest.mark.needs_root
def test_this_checkout_bind_mounted_elsewhere_is_ours(shared_tmp, runs):
    """A run in its own mount namespace, in this checkout mounted at another path, is ours."""
    mine = make_checkout(shared_tmp, "proj")
    twin = shared_tmp / "elsewhere" / "bind"
    twin.mkdir(parents=True)
    run = start_run_in_mount_namespace(runs, mine, twin, shared_tmp / "ready")
    assert mount_namespace(run.pid) != mount_namespace(os.getpid())
    judged = the_run(scan(viewpoint(cwd=str(mine))), run.pid)
    assert judged.judgement.verdict is Verdict.OURS
    assert judged.run.root == str(twin)  # shown as the run names it
    assert judged.run.root.directory_id == viewpoint(cwd=str(mine)).root.directory_id
    assert f"root {twin} == {mine} (the same directory)" in judged.judgement.reasons
    seen_from_the_twin_path = the_run(scan(viewpoint(cwd=str(twin))), run.pid)
    assert seen_from_the_twin_path.foreign  # here, that path is an empty directory


@pytest.mark.needs_root
def test_another_directory_behind_this_checkouts_path_is_foreign(shared_tmp, runs):
    """An impostor: another checkout mounted over this checkout's path, in another namespace."""
    mine = make_checkout(shared_tmp, "proj")
    other = make_checkout(shared_tmp / "other", "proj")
    run = start_run_in_mount_namespace(runs, other, mine, shared_tmp / "ready")
    judged = the_run(scan(viewpoint(cwd=str(mine))), run.pid)
    assert judged.run.root == str(mine)  # the same path text...
    assert judged.foreign  # ...and another directory
    assert judged.judgement.verdict is Verdict.FOREIGN
    assert (
        f"root {mine} != {mine} (another directory behind the same path)"
        in judged.judgement.reasons
    )
    assert the_run(scan(viewpoint(cwd=str(other))), run.pid).judgement.verdict is Verdict.OURS


@pytest.mark.needs_root
def test_the_psutil_source_says_it_cannot_see_into_another_mount_namespace(shared_tmp, runs):
    """The psutil source reads path text only: another mount namespace's run has no known root."""
    mine = make_checkout(shared_tmp, "proj")
    twin = shared_tmp / "elsewhere" / "bind"
    twin.mkdir(parents=True)
    run = start_run_in_mount_namespace(runs, mine, twin, shared_tmp / "ready")
    judged = the_run(scan(viewpoint(cwd=str(mine)), source=PsutilSource()), run.pid)
    assert isinstance(judged.run.root, Unknown)
    assert judged.run.root.reason is Reason.OTHER_NAMESPACE
    assert judged.judgement.verdict is Verdict.UNKNOWN  # never foreign on a guess
    assert the_run(scan(viewpoint(cwd=str(mine))), run.pid).judgement.verdict is Verdict.OURS


# Inside the child namespace: make an innocent process that has the run's number
# there, then ask runctx to stop that number. Only this process forks in that
# namespace, so the pid counter steered through ns_last_pid gives the innocent
# exactly that number.
STOP_PROBE = """
import json, os, subprocess, sys
target = int(sys.argv[1])
with open("/proc/sys/kernel/ns_last_pid", "w") as knob:
    knob.write(str(target - 1))
innocent = subprocess.Popen(["sleep", "300"])
stop = [sys.executable, "-m", "runctx", "stop", "--grace", "0", str(target)]
done = subprocess.run(stop, capture_output=True, text=True, errors="replace")
alive = innocent.poll() is None
innocent.kill()
innocent.wait()
print(json.dumps({"innocent": innocent.pid, "status": done.returncode,
                  "stderr": done.stderr, "innocent_lived": alive}))
"""


@pytest.mark.needs_root
def test_stop_from_a_child_pid_namespace_signals_nothing(shared_tmp, runs):
    """Stop where /proc is the parent namespace's: refused, and the same-numbered process lives."""
    checkout = make_checkout(shared_tmp, "proj")
    run = runs.run_tests_script(checkout)
    probe = shared_tmp / "probe.py"
    probe.write_text(STOP_PROBE)
    for source in ("procfs", "psutil"):
        done = in_child_pid_namespace(
            runs,
            [PYTHON, str(probe), str(run.pid)],
            checkout,
            env=clean_env(RUNCTX_SOURCE=source),
        )
        assert done.returncode == 0, done.stderr
        outcome = json.loads(done.stdout)
        assert outcome["innocent"] == run.pid  # the same number, another process
        assert outcome["status"] == 4, outcome
        assert "another pid namespace" in outcome["stderr"]
        assert outcome["innocent_lived"]
        assert is_live(run.pid)


@pytest.mark.needs_root
def test_wait_from_a_child_pid_namespace_refuses_with_a_reason(shared_tmp, runs):
    """Wait and run --wait where /proc is another pid namespace's: refused, saying why."""
    checkout = make_checkout(shared_tmp, "proj")
    run = runs.run_tests_script(checkout)
    wait = [PYTHON, "-m", "runctx", "wait", "--timeout", "30"]
    waited = in_child_pid_namespace(runs, wait, checkout)
    assert waited.returncode == 1, waited.stderr
    assert "cannot wait" in waited.stderr
    assert "another pid namespace" in waited.stderr
    run_wait = [PYTHON, "-m", "runctx", "run", "--wait", "--timeout", "30", "--"]
    ran = in_child_pid_namespace(runs, [*run_wait, PYTHON, "run_tests.py"], checkout)
    assert ran.returncode == 75, ran.stderr
    assert "another pid namespace" in ran.stderr
    assert is_live(run.pid)


SESSION_TESTS = """
def test_nothing():
    pass
"""


def _session_in_child_pid_namespace(runs, checkout, mode, out):
    """An orphaned pytest session, pid 1 of its own pid namespace, that sees this /proc.

    It writes its output to ``out`` and, once it ended, its exit status to
    ``out.status``: the file the test waits for.
    """
    pytest_argv = [PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_session.py"]
    session = child_pid_namespace_argv([*pytest_argv, f"--runctx={mode}", "--runctx-timeout=20"])
    status = out.with_name(out.name + ".status")
    shell = (
        f"{shlex.join(session)} > {shlex.quote(str(out))} 2>&1; "
        f"echo $? > {shlex.quote(str(status))}"
    )
    runs.orphan(["sh", "-c", shell], checkout, env=clean_env(), executable="/bin/sh")
    return status


@pytest.mark.needs_root
def test_the_plugin_never_takes_its_own_session_for_another_run(shared_tmp, runs):
    """A session whose pids are not /proc's finds itself through NSpid: refuse and wait go ahead."""
    checkout = make_checkout(shared_tmp, "proj")
    (checkout / "test_session.py").write_text(SESSION_TESTS)
    for mode in ("refuse", "wait"):
        out = shared_tmp / f"session-{mode}.txt"
        status = _session_in_child_pid_namespace(runs, checkout, mode, out)
        wait_for(status.exists, 120, f"the {mode} session to end")
        text = out.read_text(errors="replace")
        assert status.read_text().strip() == "0", text
        assert "1 passed" in text


@pytest.mark.needs_root
def test_the_plugin_refuses_to_wait_where_pids_are_not_its_own(shared_tmp, runs):
    """--runctx=wait next to a live run, where /proc is another namespace's: exit 75, said why."""
    checkout = make_checkout(shared_tmp, "proj")
    (checkout / "test_session.py").write_text(SESSION_TESTS)
    run = runs.run_tests_script(checkout)
    out = shared_tmp / "session.txt"
    status = _session_in_child_pid_namespace(runs, checkout, "wait", out)
    wait_for(status.exists, 120, "the session to end")
    text = out.read_text(errors="replace")
    assert status.read_text().strip() == "75", text
    assert "another pid namespace" in text
    assert is_live(run.pid)
