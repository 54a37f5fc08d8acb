"""``runctx stop`` on real runs: stops its own, refuses anything not known to be ours."""

from __future__ import annotations

import json

import pytest
from hooktools import runctx
from nstools import in_child_pid_namespace
from proctools import OTHER_UID, PYTHON, argv_of, is_live, make_checkout, wait_for
from runfactory import clean_env, ready_dir
from scenes import two_checkouts


def test_stops_its_own_run_with_every_member(shared_tmp, runs):
    """A run of this checkout (pytest -n 2) is stopped: the controller and every worker."""
    checkout = make_checkout(shared_tmp)
    run = runs.xdist(checkout, workers=2)
    members = run.members()
    assert len(members) >= 3
    result = runctx("stop", "--json", "--grace", "5", str(run.pid), cwd=checkout)
    assert result.returncode == 0, result.stderr
    (outcome,) = json.loads(result.stdout)
    assert outcome["status"] == "stopped"
    assert outcome["run"]["verdict"] == "ours"
    signalled = {entry["pid"] for entry in outcome["signalled"]}
    assert members <= signalled
    assert outcome["signalled"][0] == {"pid": run.pid, "signal": "SIGTERM"}
    for pid in members:
        wait_for(lambda pid=pid: not is_live(pid), what=f"member {pid} to be gone")


def test_text_output_says_what_was_done(shared_tmp, runs):
    """Without --json, stop says which run it stopped and with which signals."""
    checkout = make_checkout(shared_tmp)
    run = runs.run_tests_script(checkout)
    result = runctx("stop", str(run.pid), cwd=checkout)
    assert result.returncode == 0
    assert result.stdout.startswith(f"runctx: stopped pid {run.pid} (run-tests-script")
    assert "SIGTERM to 1" in result.stdout
    wait_for(lambda: not is_live(run.pid), what="the run to be gone")


def test_a_member_pid_is_refused_with_the_run_to_name(shared_tmp, runs):
    """A worker's pid is not a run's pid: refused (4), naming the run, nothing signalled."""
    checkout = make_checkout(shared_tmp)
    run = runs.worker_parent(checkout)
    (worker,) = run.members() - {run.pid}
    result = runctx("stop", str(worker), cwd=checkout)
    assert result.returncode == 4
    assert f"member of run {run.pid}" in result.stderr
    assert f"runctx stop {run.pid}" in result.stderr
    assert is_live(worker)
    assert is_live(run.pid)


def test_refuses_a_run_of_another_checkout_with_the_same_name(shared_tmp, runs):
    """A run in b/proj is foreign to a/proj: refused with the root reason, left live."""
    mine, theirs = two_checkouts(shared_tmp)
    run = runs.run_tests_script(theirs)
    result = runctx("stop", "--grace", "0", str(run.pid), cwd=mine)
    assert result.returncode == 4
    assert f"root {theirs} != {mine}" in result.stderr
    assert is_live(run.pid)


@pytest.mark.needs_root
def test_refuses_another_users_run_in_the_same_checkout(shared_tmp, runs):
    """Root refuses a run of another uid even in its own checkout: the uid differs."""
    checkout = make_checkout(shared_tmp)
    run = runs.run_tests_script(checkout, uid=OTHER_UID)
    result = runctx("stop", "--grace", "0", str(run.pid), cwd=checkout)
    assert result.returncode == 4
    assert f"uid {OTHER_UID} != 0" in result.stderr
    assert is_live(run.pid)


SELF_STOPPER = """
import os, pathlib, subprocess, sys, time
out = pathlib.Path(sys.argv[1])
command = [sys.executable, "-m", "runctx", "stop", "--grace", "0", str(os.getpid())]
done = subprocess.run(command, capture_output=True, text=True, errors="backslashreplace")
out.write_text(f"{done.returncode}\\n{done.stderr}")
time.sleep(300)
"""


def test_never_stops_the_run_it_belongs_to(shared_tmp, runs):
    """Stop called from inside a run of this checkout, naming that run, refuses it."""
    checkout = make_checkout(shared_tmp)
    (checkout / "run_tests.py").write_text(SELF_STOPPER)
    out = ready_dir(checkout) / "self-stop"
    run = runs.orphan([PYTHON, "run_tests.py", str(out)], checkout, env=clean_env())
    wait_for(lambda: out.exists() and out.read_text(), what="the stop inside the run")
    status, message = out.read_text().split("\n", 1)
    assert int(status) == 4
    assert "the run this command belongs to" in message
    assert is_live(run.pid)


def test_a_pid_that_is_no_test_run_is_left_alone(shared_tmp, runs):
    """A plain process is not a run: exit 3, and it is not signalled."""
    checkout = make_checkout(shared_tmp)
    sleeper = runs.orphan(["/bin/sleep", "300"], checkout)
    wait_for(lambda: argv_of(sleeper.pid)[:1] == ["/bin/sleep"], what="sleep to be exec'd")
    result = runctx("stop", str(sleeper.pid), cwd=checkout)
    assert result.returncode == 3
    assert f"no live test run has pid {sleeper.pid}" in result.stderr
    assert is_live(sleeper.pid)


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


# -- --orphans ------------------------------------------------------------------------------


def test_stop_orphans_ends_this_checkouts_orphaned_workers_and_nothing_else(shared_tmp, runs):
    """Orphaned xdist workers of this checkout are stopped; a live run and foreign orphans stay."""
    mine, lost_workers, foreign_workers, intact_members = runs.orphaned_workers(shared_tmp)
    assert all(is_live(pid) for pid in lost_workers | foreign_workers)

    done = runctx("stop", "--orphans", "--grace", "5", cwd=mine)

    assert done.returncode == 0, done.stderr
    for pid in lost_workers:
        wait_for(lambda pid=pid: not is_live(pid), what=f"worker {pid} to be gone")
        assert f"stopped pid {pid} (pytest-xdist-worker" in done.stdout
    assert done.stdout.count("runctx: stopped pid ") == len(lost_workers), done.stdout
    assert all(is_live(pid) for pid in intact_members | foreign_workers)


def test_with_no_orphan_it_says_so_and_exits_0(shared_tmp, runs):
    """A checkout without orphaned runs (a setsid runner is none): nothing signalled, exit 0."""
    mine = make_checkout(shared_tmp)
    run = runs.run_tests_script(mine)
    done = runctx("stop", "--orphans", cwd=mine)
    assert (done.returncode, done.stderr) == (0, "")
    assert "no orphaned run of this checkout is live; nothing stopped" in done.stdout
    assert json.loads(runctx("stop", "--orphans", "--json", cwd=mine).stdout) == []
    assert is_live(run.pid)


@pytest.mark.parametrize("args", [(), ("--orphans", "123")])
def test_stop_needs_pids_or_orphans_but_not_both(shared_tmp, args):
    """``runctx stop`` alone, or with PIDs and --orphans, is a usage error (exit 2)."""
    done = runctx("stop", *args, cwd=make_checkout(shared_tmp))
    assert done.returncode == 2
    assert "give the PID of a run, or --orphans" in done.stderr
