"""What ``runctx run`` hands the pytest plugin: said once, ``-q`` silences both, nothing leaks.

Real ``runctx run -- python -m pytest`` sessions in a real checkout, next to
a real foreign run; the checkout names every foreign run (``busy-run-cpu =
0``) and ignores the box's own pressure, so what is said does not depend on
how loaded the box is.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from proctools import NAME_EVERY_FOREIGN_RUN, PYTHON
from runfactory import clean_env
from scenes import two_checkouts

from runctx.handoff import CHECKED, HANDOFF_ENV, QUIET, take_handoff

SETTINGS = (
    NAME_EVERY_FOREIGN_RUN
    + "busy-box-cpu-pressure = false\nbusy-box-load-per-cpu = false\n"
    + "busy-box-memory-available = false\n"
    + 'on-same-checkout = "warn"\n'
)
TEST_FILE = """
import os, pathlib

def test_sees_no_handoff():
    here = pathlib.Path(__file__).parent
    (here / "handoff").write_text(os.environ.get("RUNCTX_RUN", "none"))
"""


@pytest.fixture
def scene(shared_tmp, runs):
    """A checkout with one test, and a live foreign run in a checkout of the same name."""
    mine, theirs = two_checkouts(shared_tmp)
    with (mine / "pyproject.toml").open("a") as pyproject:
        pyproject.write(SETTINGS)
    (mine / "test_handoff_seen.py").write_text(TEST_FILE)
    runs.run_tests_script(theirs)
    return mine


def environment() -> dict[str, str]:
    """The environment of the command: the suite's, without runctx or pytest settings."""
    return {k: v for k, v in clean_env().items() if not k.startswith("RUNCTX_")}


def pytest_argv(*args: str) -> list[str]:
    """A pytest session on the checkout's one test, without a cache."""
    return [PYTHON, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", *args]


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` in ``cwd``; both streams captured."""
    return subprocess.run(
        argv, cwd=cwd, env=environment(), capture_output=True, text=True, check=False, timeout=300
    )


def test_take_handoff_removes_the_value_and_knows_only_its_words():
    """The handoff is read once and removed; a value runctx never writes reads as nothing."""
    environ = {HANDOFF_ENV: CHECKED}
    assert take_handoff(environ) == CHECKED
    assert HANDOFF_ENV not in environ
    assert take_handoff({HANDOFF_ENV: QUIET}) == QUIET
    assert take_handoff({HANDOFF_ENV: "anything"}) == ""
    assert take_handoff({}) == ""


def test_pytest_alone_says_it_in_its_header(scene):
    """Without runctx run, the plugin's header carries the note on the foreign run."""
    done = run(pytest_argv(), scene)
    assert done.returncode == 0, done.stdout
    header = [line for line in done.stdout.splitlines() if line.startswith("runctx:")]
    assert any("foreign test run" in line for line in header), done.stdout


def test_runctx_run_says_it_once_and_the_plugin_does_not_repeat_it(scene):
    """Runctx run -- pytest: the note on stderr once, none in pytest's header or summary."""
    done = run([sys.executable, "-m", "runctx", "run", "--", *pytest_argv()], scene)
    assert done.returncode == 0, done.stdout + done.stderr
    # One note (its lines: the busy runs, then the idle ones counted, which a run that
    # ends on a shared box during the window can add), said by runctx run alone.
    said = [line for line in (done.stdout + done.stderr).splitlines() if line.startswith("runctx")]
    assert len(said) == 1, said
    assert said[0].startswith("runctx: Busy foreign test run")
    assert said[0] in done.stderr
    assert not [line for line in done.stdout.splitlines() if line.startswith("runctx:")]
    assert " runctx " not in done.stdout  # no summary section either: the tests passed
    assert (scene / "handoff").read_text() == "none"  # the session's tests never see it


def test_runctx_run_quiet_silences_the_plugin_too(scene):
    """Runctx run -q -- pytest: no runctx line from either, even in a verbose session."""
    done = run([sys.executable, "-m", "runctx", "run", "-q", "--", *pytest_argv("-v")], scene)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "runctx" not in done.stderr
    assert not [line for line in done.stdout.splitlines() if line.startswith("runctx")]
    assert " runctx " not in done.stdout
    assert (scene / "handoff").read_text() == "none"


def test_the_handoff_reaches_the_command_only(scene, shared_tmp):
    """A command that is no pytest sees the handoff in its own environment, as documented."""
    probe = shared_tmp / "probe.py"
    probe.write_text("import os, sys\nsys.stdout.write(os.environ.get('RUNCTX_RUN', 'none'))\n")
    done = run([sys.executable, "-m", "runctx", "run", "-q", "--", PYTHON, str(probe)], scene)
    assert done.stdout == QUIET
