"""Commands that change an environment (``runners/installers.py``), read as a shell would."""

from __future__ import annotations

import random
import shlex

import pytest
from shellcases import CWD

from runctx.runners.installers import INSTALLER_PATTERNS, tool_of
from runctx.runners.needles import names_of
from runctx.runners.table import BUILTIN_PATTERNS
from runctx.runners.walk import detect_runner
from runctx.shell.commands import test_invocations
from runctx.shell.prefilter import ENVIRONMENT_WORDS, may_change_environment


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
    for command in ("git status && ls -la", "pytest -x", "cat README.md | head", "make test"):
        assert not may_change_environment(command)


def test_tool_of_a_kind():
    """The tool of a row is the part of its kind before the colon."""
    assert {tool_of(p.kind) for p in INSTALLER_PATTERNS} == {
        "pip",
        "uv",
        "poetry",
        "pdm",
        "hatch",
        "npm",
        "pnpm",
        "yarn",
    }
