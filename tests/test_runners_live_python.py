"""Python test runners seen live: real behave, green, robot, nose2, xmlrunner and ward.

Each is installed once from the registry into a cached venv
(``livetools.python_tools``), started orphaned in a checkout whose one test
holds until killed, and found by a scan as one run of its kind, with its
console script's process authoritative.
"""

from __future__ import annotations

import pytest
from livetools import python_tools, start_tool
from proctools import make_checkout

from runctx.scanning import scan, viewpoint

UNITTEST_HOLDER = """\
import os, pathlib, time, unittest

class Holds(unittest.TestCase):
    def test_holds(self):
        pathlib.Path(os.environ["RUNCTX_READY_DIR"], "up-unittest").touch()
        time.sleep(300)
"""

BEHAVE_FEATURE = """\
Feature: holding
  Scenario: it holds
    Given the run holds
"""

BEHAVE_STEPS = """\
import os, pathlib, time
from behave import given

@given("the run holds")
def step_impl(context):
    pathlib.Path(os.environ["RUNCTX_READY_DIR"], "up-behave").touch()
    time.sleep(300)
"""

ROBOT_SUITE = """\
*** Settings ***
Library    OperatingSystem

*** Test Cases ***
Holds
    Create File    %{RUNCTX_READY_DIR}/up-robot    up
    Sleep    300s
"""

WARD_HOLDER = """\
import os, pathlib, time
from ward import test

@test("holds")
def _():
    pathlib.Path(os.environ["RUNCTX_READY_DIR"], "up-ward").touch()
    time.sleep(300)
"""


def _unittest_project(checkout):
    (checkout / "tests").mkdir()
    (checkout / "tests" / "__init__.py").write_text("")
    (checkout / "tests" / "test_hold.py").write_text(UNITTEST_HOLDER)


def _behave_project(checkout):
    (checkout / "features" / "steps").mkdir(parents=True)
    (checkout / "features" / "hold.feature").write_text(BEHAVE_FEATURE)
    (checkout / "features" / "steps" / "steps.py").write_text(BEHAVE_STEPS)


def _robot_project(checkout):
    (checkout / "hold.robot").write_text(ROBOT_SUITE)


def _ward_project(checkout):
    (checkout / "tests").mkdir()
    (checkout / "tests" / "test_hold.py").write_text(WARD_HOLDER)


CASES = [
    ("green", ["green", "-s", "1", "tests"], _unittest_project),
    ("nose2", ["nose2", "-s", "."], _unittest_project),
    (
        "unittest",
        ["python", "-m", "xmlrunner", "discover", "-s", "tests", "-o", "out"],
        _unittest_project,
    ),
    ("behave", ["behave"], _behave_project),
    ("robot", ["robot", "--outputdir", "out", "hold.robot"], _robot_project),
    ("ward", ["ward", "--path", "tests"], _ward_project),
]


@pytest.mark.parametrize(("kind", "argv", "project"), CASES, ids=[c[0] for c in CASES])
def test_a_python_runner_is_one_run_of_its_kind(shared_tmp, kind, argv, project):
    """The installed runner, started for real, is one run of its kind with its test inside."""
    tools = python_tools()
    checkout = make_checkout(shared_tmp)
    project(checkout)
    argv = [str(tools / argv[0]), *argv[1:]]
    run = start_tool(checkout, argv, holders=1, env={"PATH": f"{tools}:/usr/bin:/bin"})
    try:
        group = run.members()
        report = scan(viewpoint(cwd=str(checkout)))
        runs = [j for j in report.runs if set(j.run.members) & group]
        assert [(j.run.pid, j.run.kind) for j in runs] == [(run.pid, kind)], [
            (j.run.pid, j.run.kind, j.run.argv) for j in runs
        ]
        assert set(runs[0].run.members) == group
    finally:
        run.kill()
