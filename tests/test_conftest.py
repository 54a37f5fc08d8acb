"""The suite's own machinery (``conftest.py``, ``runfactory.py``): root-only tests and reaping."""

from __future__ import annotations

import json
import os
import sys
import sysconfig
from pathlib import Path

import psutil
import pytest
from proctools import (
    OTHER_UID,
    PYTHON,
    group_members,
    interpreter_for,
    is_live,
    run_as,
    wait_for,
)
from runfactory import RunFactory, clean_env, ready_dir

MARKED = """
import pytest

@pytest.mark.needs_root
def test_marked():
    pass

def test_plain():
    pass
"""


class Outcomes:
    """Collects what happened to each test of a nested session: (name, phase, outcome)."""

    def __init__(self) -> None:
        """Nothing seen yet."""
        self.seen: list[tuple[str, str, str]] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Keep the outcome of every phase that did not simply pass."""
        name = report.nodeid.rsplit("::", 1)[-1]
        if report.when == "call" or report.outcome != "passed":
            self.seen.append((name, report.when, report.outcome))


SUITE_CONFTEST = Path(__file__).resolve().with_name("conftest.py")


def suite_conftest(config: pytest.Config) -> object:
    """The suite's own ``conftest`` module, as pytest registered it.

    Not ``import conftest``: with ``tests/e2e/conftest.py`` collected too, that
    name may stand for the other directory's module.
    """
    for module in config.pluginmanager.get_plugins():
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and Path(path).resolve() == SUITE_CONFTEST:
            return module
    msg = f"{SUITE_CONFTEST} is not loaded"
    raise AssertionError(msg)


def session_with_the_marker(
    directory: str, ci: str | None, suite: object
) -> tuple[int, list[tuple[str, str, str]]]:
    """A session over ``directory`` with ``suite`` (the conftest) as a plugin, ``CI`` set or not."""
    if ci is None:
        os.environ.pop("CI", None)
    else:
        os.environ["CI"] = ci
    outcomes = Outcomes()
    args = [directory, "-q", "--strict-markers", "-p", "no:cacheprovider", "-p", "no:runctx"]
    status = pytest.main([*args, "-p", "no:xdist", "-p", "no:randomly"], plugins=[suite, outcomes])
    return int(status), outcomes.seen


@pytest.fixture
def marked_tests(shared_tmp):
    """A directory, enterable by every uid, holding one ``needs_root`` test and one plain test."""
    (shared_tmp / "test_marked.py").write_text(MARKED)
    (shared_tmp / "test_marked.py").chmod(0o644)
    return str(shared_tmp)


@pytest.mark.needs_root  # to run the nested session as a user who is not
def test_needs_root_fails_in_ci_without_root(marked_tests, pytestconfig):
    """Under CI, a needs_root test run by a user who is not root fails (an error), never skips."""
    status, seen = run_as(
        OTHER_UID, session_with_the_marker, marked_tests, "true", suite_conftest(pytestconfig)
    )
    assert status == pytest.ExitCode.TESTS_FAILED
    assert ("test_marked", "setup", "failed") in seen
    assert ("test_plain", "call", "passed") in seen
    assert not [entry for entry in seen if entry[2] == "skipped"]


@pytest.mark.needs_root
def test_needs_root_skips_locally_without_root(marked_tests, pytestconfig):
    """Without CI, a needs_root test run by a user who is not root is skipped."""
    status, seen = run_as(
        OTHER_UID, session_with_the_marker, marked_tests, None, suite_conftest(pytestconfig)
    )
    assert status == pytest.ExitCode.OK
    assert ("test_marked", "setup", "skipped") in seen
    assert ("test_plain", "call", "passed") in seen


@pytest.mark.needs_root
def test_needs_root_runs_as_root_in_ci(marked_tests, pytestconfig):
    """As root, under CI, a needs_root test simply runs."""
    status, seen = run_as(
        0, session_with_the_marker, marked_tests, "true", suite_conftest(pytestconfig)
    )
    assert status == pytest.ExitCode.OK
    assert ("test_marked", "call", "passed") in seen


def test_the_factory_reaps_every_process_of_every_group_it_started(shared_tmp, runs):
    """Orphans with their children, plain children and zombies are gone after reap; no other."""
    factory = RunFactory()
    ready = shared_tmp / "ready"
    grandchild = f"open({str(ready)!r}, 'w'); import time; time.sleep(300)"
    spawner = "import subprocess, sys, time\nsubprocess.Popen(sys.argv[1:]); time.sleep(300)"
    orphan = factory.orphan(
        [PYTHON, "-c", spawner, PYTHON, "-c", grandchild], shared_tmp, ready=ready
    )
    child = factory.sleeper(shared_tmp / "child-ready")
    zombie = factory.zombie()
    bystander = runs.sleeper(shared_tmp / "bystander-ready")  # started by another factory
    group = orphan.members()
    assert len(group) == 2
    factory.reap()
    assert not [pid for pid in group if is_live(pid)]
    assert not group_members(orphan.pid)
    assert child.poll() is not None
    assert not psutil.pid_exists(zombie)
    assert is_live(bystander.pid)


PROBE = "VALUE = 'read after the drop'\n"


def _import_the_probe() -> tuple[int, str]:
    """Import the probe module now, as whoever this is (for run_as)."""
    import runctx_probe_module  # made by the test

    return os.getuid(), runctx_probe_module.VALUE


@pytest.mark.needs_root
def test_a_dropped_child_imports_what_only_root_may_read(shared_tmp, monkeypatch):
    """A module under a 0700 directory, first imported after the drop, comes from the mirror."""
    private = shared_tmp / "private"
    (private / "lib").mkdir(parents=True)
    (private / "lib" / "runctx_probe_module.py").write_text(PROBE)
    private.chmod(0o700)
    monkeypatch.syspath_prepend(str(private / "lib"))
    assert "runctx_probe_module" not in sys.modules
    assert not run_as(OTHER_UID, os.access, str(private / "lib"), os.X_OK)
    assert run_as(OTHER_UID, _import_the_probe) == (OTHER_UID, "read after the drop")


SAYS_WHO = """
import json, os, sys, sysconfig
answer = [os.getuid(), sysconfig.get_config_var("VERSION"), sys.prefix]
open(sys.argv[1], "w").write(json.dumps(answer))
"""


@pytest.mark.needs_root
def test_another_uid_runs_the_suites_interpreter_wherever_it_lives(shared_tmp, runs):
    """An interpreter started as another uid loads its standard library lazily, as that uid."""
    ready = ready_dir(shared_tmp) / "answer"
    python = interpreter_for(OTHER_UID)
    runs.orphan([python, "-c", SAYS_WHO, str(ready)], shared_tmp, uid=OTHER_UID, env=clean_env())
    wait_for(ready.exists, what="the interpreter run as another uid to answer")
    uid, version, prefix = json.loads(ready.read_text())
    assert (uid, version) == (OTHER_UID, sysconfig.get_config_var("VERSION"))
    assert prefix.endswith(os.path.realpath(sys.base_prefix))
