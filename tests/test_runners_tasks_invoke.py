"""Invoke tasks (``runners/tasks/invoke_tasks.py``): the ``run`` calls of a ``@task`` function."""

from __future__ import annotations

import pytest
from tasktools import runs, write

from runctx.runners.tasks.invoke_tasks import tasks_of

TASKS_PY = """\
from invoke import task


@task
def lint(c):
    \"\"\"Lint the sources.\"\"\"
    c.run("ruff check .")


@task(pre=[lint], help={"k": "only the tests matching k"})
def unit_tests(c, k=""):
    c.run(
        "pytest -q tests/unit"
    )


@task(lint)
def ci(c):
    unit_tests(c)


@task
def release(ctx, part):
    ctx.run(f"bump {part}")
    ctx.run('python -m build')


@task
def smoke(c):
    c.run("tox -e py312 -- -k smoke")
"""


@pytest.fixture
def project(tmp_path):
    """A project whose tasks.py holds tasks that test (unit-tests, smoke) and others."""
    write(tmp_path / "tasks.py", TASKS_PY)
    return tmp_path


@pytest.mark.parametrize("command", ["invoke unit-tests", "inv unit_tests", "inv smoke"])
def test_a_task_whose_run_calls_start_a_runner_is_a_run(project, command):
    """``unit-tests`` is the function ``unit_tests``; its ``c.run`` runs pytest."""
    assert runs(command, project) != [], command


@pytest.mark.parametrize(
    "command", ["invoke lint", "invoke release 1.2", "invoke --list", "invoke nosuch"]
)
def test_a_task_that_runs_no_runner_is_no_run(project, command):
    """A linter, a build (and a command made at run time), invoke's own listing."""
    assert runs(command, project) == [], command


def test_the_tasks_read_from_the_text():
    """Each task's ``run`` strings and the tasks it runs first; f-strings are not known."""
    found = tasks_of(TASKS_PY.encode())
    assert found["unit_tests"] == (["lint"], ["pytest -q tests/unit"])
    assert found["release"] == ([], ["python -m build"])
    assert found["ci"][0] == ["lint"]
