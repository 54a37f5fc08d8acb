"""Commands that change an environment (``runners/installers.py``), read as a shell would."""

from __future__ import annotations

import random
import shlex

import pytest
from shellcases import CWD

from runctx.fastpath.prefilter import (
    ENVIRONMENT_WORDS,
    TASK_RUNNER_NAMES,
    may_change_environment,
    names_task_runner,
)
from runctx.runners.detect import detect_runner
from runctx.runners.installers import INSTALLER_PATTERNS, through_task_runners
from runctx.runners.needles import names_of
from runctx.runners.pattern import TASK_ROLE
from runctx.runners.table import BUILTIN_PATTERNS
from runctx.shell.commands import commands_run, test_invocations


def changes(command: str, cwd: str = CWD) -> list[tuple[str, str]]:
    """(kind, cwd) of every environment change ``command`` makes."""
    return [(i.kind, i.cwd) for i in test_invocations(command, cwd, INSTALLER_PATTERNS)]


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("pip install -e .", "pip:install"),
        ("pip3 install requests", "pip:install"),
        ("pip3.12 install -r requirements.txt", "pip:install"),
        ("pip uninstall -y pkg", "pip:install"),
        ("pip -q install -e .", "pip:install"),
        ("pip --python /srv/venv/bin/python install x", "pip:install"),
        ("python -m pip install -e .", "pip:install"),
        ("python3.11 -m pip install --upgrade pip", "pip:install"),
        (".venv/bin/python -m pip install -e .", "pip:install"),
        ("/srv/venv/bin/pip install -e ../a", "pip:install"),
        ("sudo pip install x", "pip:install"),
        ("env PIP_NO_INPUT=1 pip install x", "pip:install"),
        ("uv run pip install -e .", "pip:install"),
        ("uv pip install -e .", "uv:pip"),
        ("uv pip sync requirements.txt", "uv:pip"),
        ("uv --directory ../b pip install -e .", "uv:pip"),
        ("uv sync", "uv:sync"),
        ("uv sync --all-extras", "uv:sync"),
        ("uv add httpx", "uv:sync"),
        ("poetry install", "poetry:install"),
        ("poetry -C ../b install --no-root", "poetry:install"),
        ("pdm install", "pdm:install"),
        ("pdm sync", "pdm:install"),
        ("hatch env create", "hatch:env-create"),
        ("hatch -e test env create", "hatch:env-create"),
        ("npm install", "npm:install"),
        ("npm ci", "npm:install"),
        ("npm i left-pad", "npm:install"),
        ("npm --prefix ../b install", "npm:install"),
        ("pnpm install", "pnpm:install"),
        ("yarn install", "yarn:install"),
        ("yarn add left-pad", "yarn:install"),
    ],
)
def test_each_command_that_changes_an_environment_is_recognised(command, kind):
    """The command is one change of its tool's kind."""
    assert changes(command) == [(kind, CWD)]
    assert may_change_environment(command)


@pytest.mark.parametrize(
    "command",
    [
        "pip list",
        "pip freeze > requirements.txt",
        "pip download x",
        "pip install --help",
        "pip install --dry-run x",
        "pip install --target vendor x",
        "pip install --prefix /opt/x x",
        "pip install --user x",
        "pipx install black",
        "uv run pytest",
        "uv pip list",
        "uv lock",
        "uv sync --dry-run",
        "poetry run pytest",
        "poetry show",
        "pdm run pytest",
        "hatch env show",
        "hatch test",
        "npm test",
        "npm run build",
        "npm install -g typescript",
        "yarn test",
        "echo pip install -e .",
        "grep -r 'pip install' docs",
        "git commit -m 'pip install -e .'",
    ],
)
def test_commands_that_change_no_environment_are_not(command):
    """Listing, running, dry runs, installs elsewhere and text that only names one: no change."""
    assert changes(command) == []


def test_a_change_is_placed_where_it_runs():
    """``cd ../b && pip install -e .`` changes the environment seen from ``b``."""
    assert changes("cd ../b && pip install -e . && cd - && pytest") == [
        ("pip:install", "/w/b"),
    ]
    assert changes("bash -c 'cd /x && uv sync'") == [("uv:sync", "/x")]


def test_no_installer_row_is_a_test_run():
    """The scan never reads this table: none of its commands is a run of the runner table."""
    for command in ("pip install -e .", "uv sync", "npm ci", "poetry install", "hatch env create"):
        assert detect_runner(shlex.split(command), BUILTIN_PATTERNS) is None


def test_every_name_of_the_table_holds_a_prefilter_word():
    """``ENVIRONMENT_WORDS`` is a necessary condition: each program and module name holds one."""
    for name in names_of(INSTALLER_PATTERNS):
        assert any(word in name for word in ENVIRONMENT_WORDS), name


def test_the_prefilter_never_says_no_to_a_change():
    """Mangled spellings the shell still reads as an install pass the pre-filter."""
    rng = random.Random(20261130)  # noqa: S311 - a reproducible corpus, not a secret
    words = ["pip install -e .", "uv sync", "npm ci", "poetry install", "python -m pip install x"]
    manglers = [
        lambda s: f"'{s}'",
        lambda s: f'"{s}"',
        lambda s: f"$'{s}'",
        lambda s: "\\" + s,
        lambda s: "\\\n" + s,
    ]
    checked = 0
    for _ in range(400):
        word = rng.choice(words)
        program, _, rest = word.partition(" ")
        cut = rng.randrange(1, len(program))
        mangled = (
            rng.choice(manglers)(program[:cut]) + rng.choice(manglers)(program[cut:]) + " " + rest
        )
        command = rng.choice(["{}", "cd x && {}", "bash -c {q}", "echo a; {}"])
        command = command.format(mangled, q=shlex.quote(mangled))
        if changes(command):
            checked += 1
            assert may_change_environment(command), command
    assert checked > 50


def test_the_prefilter_says_no_to_ordinary_commands():
    """Commands that name no tool are rejected without parsing."""
    for command in ("git status && ls -la", "pytest -x", "cat README.md | head", "cmake ."):
        assert not may_change_environment(command)


# -- through a task runner: ``make install`` whose recipe is ``pip install -e .`` ---------


def through_tasks(command: str, cwd) -> list[tuple[str, str, str]]:
    """(kind, argv, cwd) of every change ``command`` makes, its tasks read from ``cwd``'s files."""
    return [
        (i.kind, " ".join(i.argv), i.cwd)
        for i in commands_run(command, str(cwd), through_task_runners())
    ]


@pytest.fixture
def tasks_project(tmp_path):
    """A project whose task runners' files install (and build) in several ways."""
    (tmp_path / "Makefile").write_text(
        "build:\n\techo built\n"
        "deps: build\n\tpip install -r requirements.txt\n"
        "install: deps\n\tnpm run setup\n"
    )
    (tmp_path / "package.json").write_text(
        '{"scripts": {"setup": "cd web && npm ci", "build": "tsc", "lint": "eslint ."}}'
    )
    (tmp_path / "justfile").write_text("bootstrap:\n    uv sync --all-extras\n")
    (tmp_path / "Taskfile.yml").write_text(
        "tasks:\n  deps:\n    cmds:\n      - python -m pip install -e .\n"
    )
    (tmp_path / "hatch.toml").write_text(
        '[envs.default.scripts]\nsetup = ["poetry install", "build"]\nbuild = "echo x"\n'
    )
    return tmp_path


def test_a_task_that_runs_an_installer_is_a_change_where_it_runs(tasks_project):
    """Each task runner's task gives the installs its text runs, in the directory they run in."""
    web = str(tasks_project / "web")
    here = str(tasks_project)
    assert through_tasks("npm run setup", tasks_project) == [("npm:install", "npm ci", web)]
    assert through_tasks("just bootstrap", tasks_project) == [
        ("uv:sync", "uv sync --all-extras", here)
    ]
    assert through_tasks("task deps", tasks_project) == [
        ("pip:install", "python -m pip install -e .", here)
    ]
    assert through_tasks("hatch run setup", tasks_project) == [
        ("poetry:install", "poetry install", here)
    ]
    assert sorted(through_tasks(f"cd / && make -C {here} install", "/")) == [
        ("npm:install", "npm ci", web),  # through the npm script the recipe runs
        ("pip:install", "pip install -r requirements.txt", here),  # a prerequisite's
    ]


@pytest.mark.parametrize(
    "command",
    [
        "make build",
        "npm run build",
        "npm run lint",
        "npm test",
        "make test",
        "just missing",
        "hatch run build",
        "npm run test-unit",
        "make unittest",
    ],
)
def test_a_task_that_installs_nothing_is_no_change(tasks_project, command):
    """A task whose text runs no installer, or one the files do not define, changes nothing.

    Not even a task whose name says "test run" (``npm test``): a name says
    nothing about what a task installs.
    """
    assert through_tasks(command, tasks_project) == []


def test_only_the_task_rows_are_added_to_the_installer_table():
    """The table through tasks is the installer rows and the runner table's task rows, no runner."""
    table = through_task_runners()
    assert table[: len(INSTALLER_PATTERNS)] == INSTALLER_PATTERNS
    added = table[len(INSTALLER_PATTERNS) :]
    assert added == tuple(row for row in BUILTIN_PATTERNS if row.role == TASK_ROLE)
    assert through_task_runners() is table


def test_the_task_runner_names_are_the_task_rows_names():
    """``TASK_RUNNER_NAMES`` lists every program name of the runner table's task rows."""
    rows = tuple(row for row in BUILTIN_PATTERNS if row.role == TASK_ROLE)
    assert set(TASK_RUNNER_NAMES) == set(names_of(rows))


@pytest.mark.parametrize(
    ("command", "named"),
    [
        ("make install", True),
        ("cd x && just", True),
        ("task deps", True),
        ("/usr/bin/gmake -C a", True),
        ("bash -c 'make ci'", True),
        ("python -c 'os.makedirs(x)'", False),
        ("ls tasks/", False),
        ("cat justfile.bak", False),
        ("echo remake", False),
    ],
)
def test_a_command_passes_the_prefilter_when_it_names_a_task_runner_as_a_word(command, named):
    """``make install`` may install through its task and passes; ``makedirs`` or ``tasks/`` not."""
    assert names_task_runner(command) is named
    assert may_change_environment(command) is named
