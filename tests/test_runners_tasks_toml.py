"""Tasks kept in TOML (``runners/tasks/toml_tasks.py``): pdm, poe, rye, pipenv, pixi, mise.

Each test writes the tool's real file into a project directory and reads the
command through the hook's path: a task whose command (or a task it runs
first) runs a runner is a run, whatever its name.
"""

from __future__ import annotations

import pytest
from tasktools import runs, write

PYPROJECT = """\
    [project]
    name = "x"

    [tool.pdm.scripts]
    unit = "pytest -q tests/unit"
    lint = "ruff check ."
    words = {cmd = ["python", "-m", "pytest", "-x"]}
    all = {composite = ["lint", "unit"]}
    docs = {shell = "mkdocs build"}
    hooked = "echo hooked"
    pre_hooked = "pytest -q tests/smoke"
    called = {call = "tasks:main"}

    [tool.poe.tasks]
    unit = "pytest -q"
    lint = "ruff check ."
    check = ["lint", "unit"]
    ci = {sequence = ["lint", {cmd = "coverage run -m pytest"}]}
    gate = {cmd = "ruff format --check .", deps = ["unit"]}
    alias = {ref = "unit -k fast"}

    [tool.rye.scripts]
    unit = {cmd = ["pytest", "-q"]}
    chained = {chain = ["lint", "unit"]}
    lint = "ruff check ."
    """

PIXI = """\
    [tasks]
    unit = "pytest -q"
    lint = "ruff check ."
    ci = {depends-on = ["lint", "unit"]}

    [feature.test.tasks]
    e2e-suite = {cmd = "playwright test"}
    """

MISE = """\
    [tasks.unit]
    run = "cargo nextest run"

    [tasks.lint]
    run = ["cargo fmt --check", "cargo clippy"]

    [tasks.ci]
    depends = ["lint", "unit"]

    [tasks]
    quick = "go test ./..."
    """


@pytest.fixture
def project(tmp_path):
    """A project with pdm, poe and rye tasks in pyproject.toml, pixi.toml and mise.toml."""
    write(tmp_path / "pyproject.toml", PYPROJECT)
    write(tmp_path / "pixi.toml", PIXI)
    write(tmp_path / "mise.toml", MISE)
    return tmp_path


@pytest.mark.parametrize(
    "command",
    [
        "pdm run unit",
        "pdm unit",
        "pdm run words",
        "pdm run all",
        "pdm run hooked",
        "poe unit",
        "uv run poe check",
        "poe ci",
        "poe gate",
        "poe alias",
        "rye run unit",
        "rye run chained",
        "pixi run unit",
        "pixi run ci",
        "pixi run e2e-suite",
        "mise run unit",
        "mise r ci",
        "mise run quick",
    ],
)
def test_a_task_that_runs_a_runner_is_a_run(project, command):
    """Directly, through the tasks it names, or the ones it runs first."""
    assert runs(command, project) != [], command


@pytest.mark.parametrize(
    "command",
    [
        "pdm run lint",
        "pdm run docs",
        "pdm run called",
        "pdm install",
        "poe lint",
        "poe --help",
        "rye run lint",
        "pixi run lint",
        "mise run lint",
        "pdm run nosuch",
    ],
)
def test_a_task_that_runs_none_is_no_run(project, command):
    """Linters, doc builds, code runctx does not read, the tool's own commands."""
    assert runs(command, project) == [], command


def test_a_task_named_for_tests_is_a_run_without_a_file(tmp_path):
    """No file to read: ``pdm run test`` and ``poe test`` are runs by their name."""
    assert runs("pdm run test", tmp_path) != []
    assert runs("poe test", tmp_path) != []
    assert runs("pixi run unit", tmp_path) == []


def test_inline_tasks_nested_past_the_bound_give_nothing(tmp_path):
    """A sequence nesting inline tasks 150 deep (TOML reads it) is read to a bound only."""
    nested = "{sequence = [" * 150 + '{cmd = "pytest"}' + "]}" * 150
    write(tmp_path / "pyproject.toml", f"[tool.poe.tasks]\ndeep = {nested}\nflat = 'pytest'\n")
    assert runs("poe deep", tmp_path) == []
    assert runs("poe flat", tmp_path) != []


def test_pipenv_runs_the_pipfiles_scripts(tmp_path):
    """``pipenv run NAME``: the ``[scripts]`` of the Pipfile; another name is a program."""
    write(
        tmp_path / "Pipfile",
        """\
        [packages]
        requests = "*"

        [scripts]
        check = "xvfb-run -a pytest -q"
        lint = "ruff check ."
        ci = "pipenv run check"
        """,
    )
    assert runs("pipenv run check", tmp_path) != []
    assert runs("pipenv run ci", tmp_path) != []
    assert runs("pipenv run lint", tmp_path) == []
    assert runs("pipenv run pytest -x", tmp_path) != []  # no script of that name: the program
    assert runs("pipenv install --dev", tmp_path) == []
