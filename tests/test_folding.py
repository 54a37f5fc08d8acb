"""Folding real processes into runs: authoritative process, members, self, orphans."""

from __future__ import annotations

import os
import signal

from livetools import start_tool, write_node_tests, write_package_json
from proctools import PYTHON, is_live, make_checkout, wait_for
from runfactory import RUN_TESTS_SCRIPT, clean_env, ready_dir

from runctx.scanning import scan, viewpoint
from runctx.sources.procfs import ProcfsSource


def run_with_pid(report, pid):
    """The judged run whose authoritative process is ``pid``."""
    matches = [judged for judged in report.runs if judged.run.pid == pid]
    assert len(matches) <= 1
    return matches[0] if matches else None


def test_an_orphaned_xdist_run_is_one_run_with_its_workers_folded_in(shared_tmp, runs):
    """Pytest -n 2 started orphaned: one run, the controller plus both workers as members."""
    checkout = make_checkout(shared_tmp)
    run = runs.xdist(checkout, workers=2)
    report = scan(viewpoint(cwd=str(checkout)))
    judged = run_with_pid(report, run.pid)
    assert judged is not None, "the orphaned pytest is not a run"
    assert judged.run.kind == "pytest"
    assert not judged.run.is_self
    group = run.members()
    assert len(group) >= 3
    assert set(judged.run.members) == group
    assert judged.run.members[0] == run.pid
    for worker in group - {run.pid}:
        assert run_with_pid(report, worker) is None, "a worker was counted as its own run"
    assert judged.run.root == str(checkout)
    assert not judged.foreign


def test_make_test_folds_the_pytest_it_starts(shared_tmp, runs):
    """Make test -> pytest is one run whose authoritative process is make."""
    checkout = make_checkout(shared_tmp)
    run = runs.make_test(checkout)
    report = scan(viewpoint(cwd=str(checkout)))
    judged = run_with_pid(report, run.pid)
    assert judged is not None
    assert judged.run.kind == "make-test"
    assert set(judged.run.members) == run.members()
    assert len(judged.run.members) >= 2
    assert all(run_with_pid(report, pid) is None for pid in run.members() - {run.pid})


def test_the_suite_itself_is_this_run():
    """The run that contains the calling process is marked self, and contains it."""
    report = scan()
    self_run = report.self_run
    assert self_run is not None, "the suite's own run was not found"
    assert os.getpid() in self_run.run.members
    assert self_run not in report.foreign
    assert self_run not in report.ours


def test_a_plain_child_runner_folds_into_this_run(shared_tmp, runs):
    """A runner started as a plain child of the suite is a member of the suite's run."""
    checkout = make_checkout(shared_tmp)
    (checkout / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
    ready = ready_dir(checkout) / "child"
    child = runs.child([PYTHON, "run_tests.py", str(ready)], ready=ready, cwd=checkout)
    report = scan(viewpoint(cwd=str(checkout)))
    assert run_with_pid(report, child.pid) is None
    assert report.self_run is not None
    assert child.pid in report.self_run.run.members


def test_a_worker_whose_runner_died_is_reported_as_an_orphaned_run(shared_tmp, runs):
    """Kill the runner only: its worker is reparented and becomes its own, orphaned run."""
    checkout = make_checkout(shared_tmp)
    run = runs.worker_parent(checkout)
    workers = run.members() - {run.pid}
    assert len(workers) == 1
    (worker,) = workers
    before = scan(viewpoint(cwd=str(checkout)))
    assert worker in run_with_pid(before, run.pid).run.members
    os.kill(run.pid, signal.SIGKILL)
    wait_for(lambda: not is_live(run.pid), what="the runner to die")
    after = scan(viewpoint(cwd=str(checkout)))
    judged = run_with_pid(after, worker)
    assert judged is not None, "the orphaned worker was dropped"
    assert judged.run.orphaned
    assert judged.run.kind == "pytest-xdist-worker"
    assert judged.run.root == str(checkout)


class KillsDuringScan(ProcfsSource):
    """The real /proc source, which kills one real process just before reading its owner."""

    def __init__(self, victim: int) -> None:
        """Kill ``victim`` (by its pid) the first time its owner is read."""
        super().__init__()
        self.victim = victim
        self.killed = False

    def with_owner(self, record, viewer_uid=None, *, inherited=False, climb=None):
        """Kill the victim first when this is its record, then read as usual."""
        if record.pid == self.victim and not self.killed:
            self.killed = True
            os.kill(self.victim, signal.SIGKILL)
            wait_for(lambda: not is_live(self.victim), what="the victim to die")
        return super().with_owner(record, viewer_uid, inherited=inherited, climb=climb)


def test_a_run_whose_runner_exits_during_the_scan_is_not_reported(shared_tmp, runs):
    """An authority that exits mid-scan is dropped, never shown with an unknown identity."""
    checkout = make_checkout(shared_tmp)
    run = runs.run_tests_script(checkout)
    source = KillsDuringScan(run.pid)
    report = scan(viewpoint(cwd=str(checkout)), source=source)
    assert source.killed
    assert run_with_pid(report, run.pid) is None
    assert all(run.pid not in judged.run.members for judged in report.runs)


def test_members_of_a_run_whose_runner_exits_during_the_scan_are_seen(shared_tmp, runs):
    """Make dies mid-scan: the pytest it started lives on and is reported as its own run."""
    checkout = make_checkout(shared_tmp)
    run = runs.make_test(checkout)
    children = run.members() - {run.pid}
    source = KillsDuringScan(run.pid)
    report = scan(viewpoint(cwd=str(checkout)), source=source)
    assert source.killed
    assert run_with_pid(report, run.pid) is None
    survivors = [j for j in report.runs if j.run.pid in children]
    assert len(survivors) == 1
    assert survivors[0].run.kind == "pytest"
    assert survivors[0].run.root == str(checkout)
    assert survivors[0].judgement.verdict.value == "ours"


SCRIPT_WITH_WORKERS = """
import pathlib, subprocess, sys, time
bootstrap = "import sys;exec(eval(sys.stdin.readline()))"
for n in range(2):
    worker = subprocess.Popen([sys.executable, "-u", "-c", bootstrap], stdin=subprocess.PIPE)
    code = "import pathlib, time; pathlib.Path(%r).touch(); time.sleep(300)" % f"{sys.argv[1]}{n}"
    worker.stdin.write((repr(code) + "\\n").encode())
    worker.stdin.flush()
time.sleep(300)
"""


def test_workers_of_a_controller_that_is_no_runner_belong_to_its_run(shared_tmp, runs):
    """pytest.main() in a script: its workers are the script's own run, never contention."""
    checkout = make_checkout(shared_tmp)
    ready = checkout / "worker-"
    script = runs.orphan([PYTHON, "-c", SCRIPT_WITH_WORKERS, str(ready)], checkout)
    wait_for(lambda: all((checkout / f"worker-{n}").exists() for n in range(2)))
    workers = script.members() - {script.pid}
    assert len(workers) == 2
    here = viewpoint(cwd=str(checkout))
    as_the_script = scan(here, self_pid=script.pid)
    seen = [j for j in as_the_script.runs if j.run.pid in workers]
    assert len(seen) == 2
    assert all(j.run.is_self and not j.run.orphaned for j in seen)
    assert not set(workers) & {j.run.pid for j in as_the_script.ours}
    as_a_stranger = scan(here)
    assert not any(j.run.is_self for j in as_a_stranger.runs if j.run.pid in workers)
    assert not any(j.run.orphaned for j in as_a_stranger.runs if j.run.pid in workers)


# -- orphaned: reparented after the process that started it exited ------------------------

ORPHANING_PARENT = """
import subprocess, sys, time, pathlib
child = subprocess.Popen([sys.executable, "run_tests.py", sys.argv[1]])
while not pathlib.Path(sys.argv[1]).exists():
    time.sleep(0.02)
if sys.argv[2] == "exit":
    sys.exit(0)
time.sleep(300)
"""


def started_by_a_parent(runs, checkout, *, parent_exits: bool):
    """A runner started by a parent in the parent's session; the parent exits or stays."""
    (checkout / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
    (checkout / "start.py").write_text(ORPHANING_PARENT)
    ready = ready_dir(checkout) / "runner"
    mode = "exit" if parent_exits else "stay"
    starter = runs.orphan([PYTHON, "start.py", str(ready), mode], checkout, env=clean_env())
    wait_for(ready.exists, what="the runner to start")
    (runner,) = (pid for pid in starter.members() if pid != starter.pid)
    if parent_exits:
        wait_for(lambda: not is_live(starter.pid), what="the starter to exit")
    return runner


def test_a_runner_is_orphaned_exactly_when_the_process_that_started_it_is_gone(shared_tmp, runs):
    """A runner whose starter exited (it kept the starter's session) is orphaned; else not."""
    lost = started_by_a_parent(runs, make_checkout(shared_tmp, "lost"), parent_exits=True)
    kept = started_by_a_parent(runs, make_checkout(shared_tmp, "kept"), parent_exits=False)
    report = scan(viewpoint(cwd=str(shared_tmp)))
    assert run_with_pid(report, lost).run.orphaned
    assert not run_with_pid(report, kept).run.orphaned


def test_a_run_that_started_its_own_session_is_not_called_an_orphan(shared_tmp, runs):
    """A setsid runner under init may have meant to be there: it is not called orphaned."""
    checkout = make_checkout(shared_tmp)
    run = runs.run_tests_script(checkout)
    assert not run_with_pid(scan(viewpoint(cwd=str(checkout))), run.pid).run.orphaned


def test_orphaned_xdist_workers_are_each_an_orphaned_run(shared_tmp, runs):
    """Pytest -n 2 whose controller is killed: each worker is a run of its own, orphaned."""
    checkout = make_checkout(shared_tmp)
    run = runs.xdist(checkout, workers=2, name="lost")
    workers = run.members() - {run.pid}
    os.kill(run.pid, signal.SIGKILL)
    wait_for(lambda: not is_live(run.pid), what="the controller to die")
    report = scan(viewpoint(cwd=str(checkout)))
    for worker in workers:
        judged = run_with_pid(report, worker)
        assert judged is not None
        assert judged.run.orphaned
        assert judged.run.kind == "pytest-xdist-worker"


def test_a_titled_npm_exec_under_another_folds_both_into_the_run_below(shared_tmp, runs):
    """An ``npm exec`` whose child is an ``npm exec`` over ``node --test``: the outer one tops."""
    checkout = make_checkout(shared_tmp)
    write_node_tests(checkout, 1)
    write_package_json(checkout, {})
    run = start_tool(runs, checkout, ["npx", "-c", "exec npx -c 'node --test'"], holders=1)
    group = run.members()
    titled = [pid for pid in group if _cmdline(pid).rstrip("\0") == "npm exec"]
    assert len(titled) == 2, [_cmdline(pid) for pid in group]  # sh exec'd into the inner npx
    report = scan(viewpoint(cwd=str(checkout)))
    seen = [judged for judged in report.runs if set(judged.run.members) & group]
    assert [(judged.run.pid, judged.run.kind) for judged in seen] == [(run.pid, "node-test")]
    assert set(seen[0].run.members) == group


def _cmdline(pid):
    with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
        return cmdline.read().decode(errors="replace")
