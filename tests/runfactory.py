"""The run factory behind the ``runs`` fixture: real runs in real checkouts, reaped by group.

Every process a test needs is started here, so that one teardown reaps them
all: each starts as the leader of its own process group (orphans through
``setsid``, children through ``start_new_session``), and the teardown kills
every group it started with SIGKILL, then waits until each leader is gone
(children are waited for, zombies reaped). Nothing is ever killed by name.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from pidreuse import spawn_orphan_with_pid
from proctools import (
    PYTHON,
    Orphan,
    group_is_gone,
    interpreter_for,
    is_live,
    make_checkout,
    spawn_orphan,
    status,
    wait_for,
)


class OrphanedWorkers(NamedTuple):
    """Two checkouts, each with xdist workers whose controller was killed, and a live run."""

    mine: Path
    lost_workers: set[int]
    """This checkout's workers, orphaned."""
    foreign_workers: set[int]
    """Another checkout's workers, orphaned."""
    intact_members: set[int]
    """This checkout's live run, controller and workers."""


HOLD_TESTS = """
import os, pathlib, time

def _hold(name):
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    pathlib.Path(os.environ["RUNCTX_READY_DIR"], f"{name}-{worker}").touch()
    time.sleep(300)

def test_a():
    _hold("a")

def test_b():
    _hold("b")
"""

RUN_TESTS_SCRIPT = """
import pathlib, sys, time
pathlib.Path(sys.argv[1]).touch()
time.sleep(300)
"""
"""The holder, the suite's one: it touches the file named by its first argument, then holds."""

WORKER_PARENT_SCRIPT = """
import pathlib, subprocess, sys, time
bootstrap = "import sys;exec(eval(sys.stdin.readline()))"
worker = subprocess.Popen([sys.executable, "-u", "-c", bootstrap], stdin=subprocess.PIPE)
code = "import pathlib, time; pathlib.Path(%r).touch(); time.sleep(300)" % sys.argv[1]
worker.stdin.write((repr(code) + "\\n").encode())
worker.stdin.flush()
time.sleep(300)
"""

SLEEPER = "import sys, time; open(sys.argv[1], 'w').close(); time.sleep(300)"

SPIN_SCRIPT = """
import pathlib, sys
pathlib.Path(sys.argv[1]).touch()
while True:
    pass
"""


def clean_env(**extra: str) -> dict[str, str]:
    """The environment for a nested run: without the suite's own pytest settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    env.update(extra)
    return env


def ready_dir(checkout: Path) -> Path:
    """A directory in the checkout where a run's processes say they are up."""
    path = checkout / ".ready"
    path.mkdir(exist_ok=True)
    path.chmod(0o777)
    return path


class RunFactory:
    """Starts real processes for one test (or one module) and reaps them all at the end."""

    def __init__(self) -> None:
        """Nothing started yet."""
        self._orphans: list[tuple[Orphan, bool]] = []
        self._children: list[subprocess.Popen] = []
        self._zombies: list[int] = []

    # -- the primitives -----------------------------------------------------------

    def orphan(  # noqa: PLR0913 - each is a knob of the process started
        self,
        argv: Sequence[str],
        cwd: Path,
        *,
        uid: int | None = None,
        env: dict[str, str] | None = None,
        executable: str | None = None,
        ready: Path | None = None,
    ) -> Orphan:
        """``argv`` in ``cwd`` as an orphaned group leader (optionally as ``uid``).

        With ``ready``, returns once the process created that file.
        """
        started = spawn_orphan(argv, cwd, uid=uid, env=env, executable=executable)
        self._orphans.append((started, True))
        if ready is not None:
            wait_for(ready.exists, what=f"{argv[0]} (pid {started.pid}) to write {ready.name}")
        return started

    def with_pid(
        self, pid: int, argv: Sequence[str], cwd: Path, env: dict[str, str] | None = None
    ) -> Orphan:
        """``argv`` as an orphan that the kernel gave exactly ``pid`` (needs root)."""
        started = spawn_orphan_with_pid(pid, argv, cwd, env)
        self._orphans.append((started, os.getpgid(started.pid) == started.pid))
        return started

    def child(self, argv: Sequence[str], *, ready: Path | None = None, **popen) -> subprocess.Popen:
        """``argv`` as a child of the suite (so it folds into the suite's run), in its own group.

        With ``ready``, returns once the child created that file; fails at once
        when the child exits before.
        """
        process = subprocess.Popen(argv, start_new_session=True, **popen)
        self._children.append(process)
        if ready is not None:

            def up() -> bool:
                if process.poll() is not None:
                    msg = f"child {process.pid} exited with {process.returncode} before {ready}"
                    raise AssertionError(msg)
                return ready.exists()

            wait_for(up, what=f"child {process.pid} to write {ready.name}")
        return process

    def zombie(self) -> int:
        """A child that has exited and is not reaped yet: a real zombie, reaped at teardown."""
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            os._exit(0)
        self._zombies.append(pid)
        wait_for(lambda: status(pid) == "zombie", what=f"pid {pid} to become a zombie")
        return pid

    def adopt(self, pid: int) -> Orphan:
        """A process a started one put in a session of its own (``pty.fork``): reaped too."""
        adopted = Orphan(pid)
        self._orphans.append((adopted, os.getpgid(pid) == pid))
        return adopted

    def kill(self, process: subprocess.Popen | Orphan) -> None:
        """Kill one started process's group now, and wait until no member is left."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        if isinstance(process, subprocess.Popen):
            process.wait()
        wait_for(lambda: group_is_gone(process.pid), what=f"group {process.pid} to die")

    def reap(self) -> None:
        """Kill every group started, wait until no member is left, reap every zombie."""
        groups = [started.pid for started, leads in self._orphans if leads]
        groups += [process.pid for process in self._children]
        for started, leads_group in self._orphans:
            if not leads_group:  # its pid names another process's group: kill it alone
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(started.pid, signal.SIGKILL)
        for pgid in groups:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, signal.SIGKILL)
        for process in self._children:
            process.wait()
        for started, _ in self._orphans:
            wait_for(lambda pid=started.pid: not is_live(pid), what=f"pid {started.pid} to die")
        for pgid in groups:
            wait_for(lambda pgid=pgid: group_is_gone(pgid), what=f"group {pgid} to die")
        for pid in self._zombies:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
        self._orphans.clear()
        self._children.clear()
        self._zombies.clear()

    # -- runs -------------------------------------------------------------------------

    def sleeper(self, ready: Path, *extra: str | bytes, cwd: Path | None = None):
        """A child python that writes ``ready`` once up, then sleeps (``extra``: more argv)."""
        return self.child([PYTHON, "-c", SLEEPER, str(ready), *extra], ready=ready, cwd=cwd)

    def run_tests_script(
        self, checkout: Path, *, uid: int | None = None, env: dict[str, str] | None = None
    ) -> Orphan:
        """An orphaned ``python run_tests.py`` that holds until killed.

        Optionally as ``uid``, and with ``env`` as its whole environment
        (what it inherited: who started it).
        """
        (checkout / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
        (checkout / "run_tests.py").chmod(0o644)
        python = PYTHON if uid is None else interpreter_for(uid)
        ready = ready_dir(checkout) / f"run-tests-{uuid.uuid4().hex}"
        argv = [python, "run_tests.py", str(ready)]
        environment = clean_env() if env is None else env
        return self.orphan(argv, checkout, uid=uid, env=environment, ready=ready)

    def elsewhere(self, base: Path, count: int, script: str = RUN_TESTS_SCRIPT) -> list[Orphan]:
        """``count`` orphaned ``python run_tests.py`` of ``script``, each in a checkout of its own.

        The checkouts are made in ``base``.
        """
        started = []
        for number in range(count):
            theirs = make_checkout(base, f"theirs{number}")
            (theirs / "run_tests.py").write_text(script)
            ready = ready_dir(theirs) / f"elsewhere-{uuid.uuid4().hex}"
            argv = [PYTHON, "run_tests.py", str(ready)]
            started.append(self.orphan(argv, theirs, env=clean_env(), ready=ready))
        return started

    def spinner(self, checkout: Path) -> Orphan:
        """An orphaned ``python run_tests.py`` that keeps one CPU busy until killed."""
        (checkout / "run_tests.py").write_text(SPIN_SCRIPT)
        ready = ready_dir(checkout) / f"spinning-{uuid.uuid4().hex}"
        argv = [PYTHON, "run_tests.py", str(ready)]
        return self.orphan(argv, checkout, env=clean_env(), ready=ready)

    def xdist(self, checkout: Path, workers: int = 2, *, name: str = "") -> Orphan:
        """An orphaned ``python -m pytest -n N`` whose tests hold until killed.

        With ``name``, its workers say they are up in a directory of their own
        and the runctx plugin is off, so that several such runs can share one
        checkout.
        """
        tests = checkout / "tests"
        tests.mkdir(exist_ok=True)
        (tests / "test_hold.py").write_text(HOLD_TESTS)
        ready = ready_dir(checkout)
        argv = [PYTHON, "-m", "pytest", "-n", str(workers), "-q", "-p", "no:cacheprovider"]
        if name:
            ready = ready / name
            ready.mkdir()
            argv += ["-p", "no:runctx"]
        env = clean_env(RUNCTX_READY_DIR=str(ready))
        run = self.orphan([*argv, "tests"], checkout, env=env)
        wait_for(
            lambda: len(list(ready.glob("[ab]-gw*"))) >= min(workers, 2),
            what="the xdist workers to start their tests",
        )
        return run

    def make_test(self, checkout: Path) -> Orphan:
        """An orphaned ``make test`` whose recipe runs a holding pytest."""
        tests = checkout / "tests"
        tests.mkdir(exist_ok=True)
        (tests / "test_hold.py").write_text(HOLD_TESTS)
        (checkout / "Makefile").write_text(
            "test:\n\t$(PYTHON) -m pytest -q -p no:cacheprovider tests -k test_a\n"
        )
        ready = ready_dir(checkout)
        make = shutil.which("make")
        assert make is not None, "make is needed for this test"
        run = self.orphan(
            ["make", "test", f"PYTHON={PYTHON}"],
            checkout,
            env=clean_env(RUNCTX_READY_DIR=str(ready)),
            executable=make,
        )
        wait_for((ready / "a-main").exists, what="make test to reach its test")
        return run

    def worker_parent(self, checkout: Path, *, uid: int | None = None) -> Orphan:
        """An orphaned ``run_tests.py`` that starts one xdist-style worker child (as ``uid``)."""
        (checkout / "run_tests.py").write_text(WORKER_PARENT_SCRIPT)
        (checkout / "run_tests.py").chmod(0o644)
        python = PYTHON if uid is None else interpreter_for(uid)
        ready = ready_dir(checkout) / f"worker-{uuid.uuid4().hex}"
        argv = [python, "run_tests.py", str(ready)]
        return self.orphan(argv, checkout, uid=uid, env=clean_env(), ready=ready)

    def orphaned_workers(self, parent: Path) -> OrphanedWorkers:
        """Under ``parent``: this checkout's and another's orphaned workers, and a live run here."""
        mine = make_checkout(parent, "proj")
        theirs = make_checkout(parent / "other", "proj")
        lost = self.xdist(mine, workers=2, name="lost")
        intact = self.xdist(mine, workers=2, name="intact")
        foreign = self.xdist(theirs, workers=2, name="foreign")
        scene = OrphanedWorkers(
            mine=mine,
            lost_workers=lost.members() - {lost.pid},
            foreign_workers=foreign.members() - {foreign.pid},
            intact_members=intact.members(),
        )
        for controller in (lost, foreign):
            os.kill(controller.pid, signal.SIGKILL)
            wait_for(lambda pid=controller.pid: not is_live(pid), what="the controller to die")
        return scene
