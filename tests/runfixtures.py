"""Real test runs in real checkouts, for the tests that need one live."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from proctools import PYTHON, Orphan, spawn_orphan, wait_for

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

WORKER_PARENT_SCRIPT = """
import pathlib, subprocess, sys, time
bootstrap = "import sys;exec(eval(sys.stdin.readline()))"
worker = subprocess.Popen([sys.executable, "-u", "-c", bootstrap], stdin=subprocess.PIPE)
code = "import pathlib, time; pathlib.Path(%r).touch(); time.sleep(300)" % sys.argv[1]
worker.stdin.write((repr(code) + "\\n").encode())
worker.stdin.flush()
time.sleep(300)
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


def start_xdist_run(checkout: Path, workers: int = 2) -> Orphan:
    """An orphaned ``python -m pytest -n N`` whose tests hold until killed."""
    tests = checkout / "tests"
    tests.mkdir(exist_ok=True)
    (tests / "test_hold.py").write_text(HOLD_TESTS)
    ready = ready_dir(checkout)
    argv = [PYTHON, "-m", "pytest", "-n", str(workers), "-q", "-p", "no:cacheprovider", "tests"]
    run = spawn_orphan(argv, checkout, env=clean_env(RUNCTX_READY_DIR=str(ready)))
    wait_for(
        lambda: len(list(ready.iterdir())) >= min(workers, 2),
        what="the xdist workers to start their tests",
    )
    return run


def start_make_test(checkout: Path) -> Orphan:
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
    run = spawn_orphan(
        ["make", "test", f"PYTHON={PYTHON}"],
        checkout,
        env=clean_env(RUNCTX_READY_DIR=str(ready)),
        executable=make,
    )
    wait_for(lambda: any(ready.iterdir()), what="make test to reach its test")
    return run


def start_run_tests_script(
    checkout: Path, *, uid: int | None = None, python: str = PYTHON
) -> Orphan:
    """An orphaned ``python run_tests.py`` that holds until killed, optionally as ``uid``."""
    (checkout / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
    (checkout / "run_tests.py").chmod(0o644)
    ready = ready_dir(checkout) / f"run-tests-{uid}"
    run = spawn_orphan([python, "run_tests.py", str(ready)], checkout, uid=uid, env=clean_env())
    wait_for(ready.exists, what="run_tests.py to start")
    return run


def start_worker_parent(checkout: Path) -> tuple[Orphan, Path]:
    """An orphaned ``run_tests.py`` that starts one xdist-style worker child."""
    (checkout / "run_tests.py").write_text(WORKER_PARENT_SCRIPT)
    ready = ready_dir(checkout) / "worker"
    run = spawn_orphan([PYTHON, "run_tests.py", str(ready)], checkout, env=clean_env())
    wait_for(ready.exists, what="the worker to start")
    return run, ready
