"""Fixtures and markers shared by the tests: real runs, real checkouts, root-only tests.

- ``runs``: the run factory (:class:`runfactory.RunFactory`); every process a
  test starts through it is reaped by process group at teardown.
- ``world``: two same-named checkouts and one live run, shared by a module; from
  the ``idle`` one every foreign run is worth a note (``busy-run-cpu = 0``).
- ``foreign_run`` and ``ours_and_foreign``: the two-checkouts scene
  (:mod:`scenes`) with a live run in ``theirs`` (and in ``mine``), shared by a
  module; the tests using them only read it.
- ``shared_tree``: a checkout of the suite's uid with a live run of another
  uid in it (tests using it are ``needs_root``).
- ``shared_tmp``: a temporary directory every uid may enter (wherever ``$TMPDIR`` is).
- ``checkout``: a real git checkout, ``proj``, in ``shared_tmp``.
- ``install``: ``runctx install ARGV`` called in process, as a user types it.
- ``planted_fifo``: a directory whose parent holds a FIFO named ``pyproject.toml``.
- ``@pytest.mark.needs_root``: the test starts processes as other uids (or
  does what only root may); it is skipped without root, and fails in CI
  (``CI`` set), where the suite runs as root and a skip would hide it.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from proctools import OTHER_UID, Orphan, make_checkout, name_every_foreign_run
from readable import shared_tempdir
from require import unavailable
from runfactory import RunFactory
from scenes import TwoCheckouts, two_checkouts, two_checkouts_with_runs

from runctx.cli.main import main

# A suite started in the background by a non-interactive shell inherits SIGINT ignored, and
# so would every command a test starts (an ignored signal stays ignored across exec): the
# tests that interrupt a command need it delivered.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Git identity for the checkouts tests create, independent of the machine's config.
for _name, _value in {
    "GIT_AUTHOR_NAME": "runctx tests",
    "GIT_AUTHOR_EMAIL": "tests@runctx.invalid",
    "GIT_COMMITTER_NAME": "runctx tests",
    "GIT_COMMITTER_EMAIL": "tests@runctx.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}.items():
    os.environ.setdefault(_name, _value)

# pytest-xdist's workers carry a terminal size (COLUMNS=80, LINES=24) that no test asked
# for, and pytest imports readline before any conftest, which puts COLUMNS and LINES into the
# process's C environment (which every child inherits) but not into os.environ. runctx status
# fits its table to $COLUMNS, so a test gives a width explicitly or none: both are dropped
# from both.
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)
    os.unsetenv(_name)

NEEDS_ROOT = (
    "needs_root: starts processes as other uids or does what only root may; "
    "skipped without root, a failure in CI (CI set)"
)


def pytest_configure(config: pytest.Config) -> None:
    """Register the suite's markers (``--strict-markers`` is on); state kept away from home.

    What runctx keeps between calls (notes said once, :mod:`runctx.said`) goes
    to a directory of the session's own, never into the user's
    ``~/.local/state``, for every hook and command the tests start.
    """
    config.addinivalue_line("markers", NEEDS_ROOT)
    state = tempfile.mkdtemp(prefix="runctx-test-state-")
    config.add_cleanup(lambda: shutil.rmtree(state, ignore_errors=True))
    os.environ["XDG_STATE_HOME"] = state


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip a ``needs_root`` test without root; fail it instead when ``CI`` is set."""
    if item.get_closest_marker("needs_root") is None or os.geteuid() == 0:
        return
    unavailable("needs root to start processes under other uids (CI runs as root)")


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A fresh directory under the system temp dir that every uid may enter."""
    path = shared_tempdir("runctx-test-")
    try:
        yield path.resolve()
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def checkout(shared_tmp: Path) -> Path:
    """A real git checkout, ``proj``, in a directory every uid may enter."""
    return make_checkout(shared_tmp, "proj")


@pytest.fixture
def install(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``runctx install ARGV`` through ``main``, in ``cwd``, with ``env`` set for the call.

    The agents' own configuration homes (``CLAUDE_CONFIG_DIR``, ``CODEX_HOME``)
    are unset unless ``env`` gives them. Returns what a process would have:
    the exit status, stdout and stderr.
    """

    def call(
        *argv: str, cwd: Path, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        with monkeypatch.context() as patch:
            patch.chdir(cwd)
            for key, value in (env or {}).items():
                patch.setenv(key, value)
            for key in ("CLAUDE_CONFIG_DIR", "CODEX_HOME"):
                if key not in (env or {}):
                    patch.delenv(key, raising=False)
            capsys.readouterr()
            status = main(["install", *argv])
            out, err = capsys.readouterr()
        return subprocess.CompletedProcess(["runctx", "install", *argv], status, out, err)

    return call


@pytest.fixture
def planted_fifo(shared_tmp: Path) -> Path:
    """``shared/work``: a directory whose parent holds a FIFO named ``pyproject.toml``.

    What another user who can write a shared parent plants there: opening it
    would block for ever.
    """
    work = shared_tmp / "shared" / "work"
    work.mkdir(parents=True)
    os.mkfifo(shared_tmp / "shared" / "pyproject.toml")
    return work


@pytest.fixture
def runs() -> Iterator[RunFactory]:
    """The run factory: starts real processes and reaps all of them by process group."""
    factory = RunFactory()
    try:
        yield factory
    finally:
        factory.reap()


@pytest.fixture
def shared_tree(shared_tmp: Path, runs: RunFactory) -> tuple[Path, Orphan]:
    """A checkout of the suite's uid with a live run of ``OTHER_UID`` in it: (checkout, run).

    The suite's uid (root in CI) may read that run's cwd: it sees another
    user's run in this very checkout, which that user may write. Starting it
    needs root, so every test using this fixture is marked ``needs_root``.
    """
    checkout = make_checkout(shared_tmp, "proj")
    checkout.chmod(0o777)  # that user can really write it: it shares the tree
    return checkout, runs.run_tests_script(checkout, uid=OTHER_UID)


class World:
    """Two same-named checkouts, ``busy`` and ``idle``, and a live run in ``busy``."""

    def __init__(self, base: Path, busy: Path, idle: Path, run) -> None:
        """Hold the paths and the run."""
        self.base = base
        self.busy = busy
        self.idle = idle
        self.run = run


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    """One live, orphaned ``run_tests.py`` run in ``busy``; ``idle`` has its name and no run.

    Seen from ``busy`` the run is this checkout's; seen from ``idle`` it is
    foreign (same user, another root). ``idle`` sets ``busy-run-cpu = 0``, so
    that the foreign run is worth a note there on a quiet box or a loaded one
    alike (an idle foreign run is only counted by default: ``tests/test_policy.py``).
    One per module: starting it is the slow part, and the tests only read it.
    """
    base = shared_tempdir("runctx-world-").resolve()
    factory = RunFactory()
    try:
        busy, idle = two_checkouts(base)
        yield World(base, busy, name_every_foreign_run(idle), factory.run_tests_script(busy))
    finally:
        factory.reap()
        shutil.rmtree(base, ignore_errors=True)


def _scene_of_a_module(*, ours: bool) -> Iterator[TwoCheckouts]:
    base = shared_tempdir("runctx-scene-").resolve()
    factory = RunFactory()
    try:
        yield two_checkouts_with_runs(base, factory, ours=ours)
    finally:
        factory.reap()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def foreign_run() -> Iterator[TwoCheckouts]:
    """Two same-named checkouts, a live run in ``theirs`` (foreign to ``mine``); one per module."""
    yield from _scene_of_a_module(ours=False)


@pytest.fixture(scope="module")
def ours_and_foreign() -> Iterator[TwoCheckouts]:
    """Two same-named checkouts, a live run in each; one per module."""
    yield from _scene_of_a_module(ours=True)
