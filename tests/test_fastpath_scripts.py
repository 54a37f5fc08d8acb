"""``npm run build`` decided on the fast path (``runctx/fastpath/scripts.py``), as the parser would.

Whenever :func:`starts_nothing` says a command starts nothing, the shell
parser reading the same project finds no test run and no change of an
environment; and it does say so for the commands agents run all day.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tasktools import package

from runctx.fastpath.prefilter import SCANNED_CHARS
from runctx.fastpath.scripts import RUN_WORDS, script_names, starts_nothing
from runctx.hooks.commands import environment_changes, test_runs
from runctx.runners.table import TEST_TASK_NAMES
from runctx.shell.commands import test_invocations

QUIET = {"build": "tsc -p .", "lint": "eslint .", "prebuild": "rimraf dist", "fmt": "prettier ."}
LOUD = {
    "build": "tsc -p .",
    "unit": "jest --ci",
    "ci": "npm run lint && npm run unit",
    "lint": "eslint .",
    "prerelease": "vitest run",
    "release": "changeset publish",
    "setup": "pip install -e .",
    "check": "./scripts/check.sh",
    "test:build": "tsc -p test",
}

COMMANDS = [
    "npm run build",
    "npm run build && npm run lint",
    "pnpm run fmt; yarn run lint",
    "bun run build | cat",
    "npm run-script build & npm run lint",
    "npm run unit",
    "npm run ci",
    "npm run release",
    "npm run setup",
    "npm run check",
    "npm run test:build",
    "npm run Test",
    "npm run missing",
    "npm run build -- --watch",
    "npm --prefix web run build",
    "cd web && npm run build",
    "yarn build",
    "npm test",
    "npm install",
    "CI=1 npm run build",
    "npm run 'build'",
    "npm run build > log",
]


@pytest.mark.parametrize("scripts", [QUIET, LOUD], ids=["quiet", "loud"])
@pytest.mark.parametrize("command", COMMANDS)
def test_what_the_fast_path_lets_go_the_parser_finds_nothing_in(tmp_path, scripts, command):
    """A command said to start nothing starts no test run and changes no environment."""
    package(tmp_path, **scripts)
    package(tmp_path / "web", unit="mocha", build="jest")
    if starts_nothing(command, str(tmp_path)):
        assert test_runs(command, str(tmp_path)) == ()
        assert environment_changes(command, str(tmp_path)) == ()


@pytest.mark.parametrize(
    ("command", "scripts", "expected"),
    [
        ("npm run build && npm run lint", QUIET, True),
        ("pnpm run fmt; yarn run lint", QUIET, True),
        ("npm run build", LOUD, True),
        ("npm run unit", LOUD, False),  # jest
        ("npm run ci", LOUD, False),  # npm inside: read properly
        ("npm run release", LOUD, False),  # its prerelease runs vitest
        ("npm run setup", LOUD, False),  # pip install
        ("npm run check", LOUD, False),  # a project script
        ("npm run test:build", LOUD, False),  # named for tests
        ("npm run missing", QUIET, False),  # no such script
        ("npm run build -- --watch", QUIET, False),  # an option
        ("cd web && npm run build", QUIET, False),
        ("npm test", QUIET, False),
        ("npm run 'build'", QUIET, False),
        ("npm run scripts/build", {"scripts/build": "tsc"}, False),  # names a project script
    ],
)
def test_which_commands_the_fast_path_decides(tmp_path, command, scripts, expected):
    """Quiet scripts run by name are decided here; anything else goes on to the parser."""
    package(tmp_path, **scripts)
    assert starts_nothing(command, str(tmp_path)) is expected


def test_a_script_longer_than_the_pre_filter_searches_goes_on_to_the_parser(tmp_path):
    """A script whose text runs past the window searched may run a runner after it."""
    long = "echo " + "x" * SCANNED_CHARS + " && pytest"
    package(tmp_path, build=long)
    assert not starts_nothing("npm run build", str(tmp_path))
    assert [i.kind for i in test_invocations("npm run build", str(tmp_path))] == ["npm-script"]
    package(tmp_path, build="echo short")
    assert starts_nothing("npm run build", str(tmp_path))


def test_no_readable_package_json_goes_on_to_the_parser(tmp_path):
    """No file, a file that is not JSON, a directory in its place: the parser reads it."""
    assert not starts_nothing("npm run build", str(tmp_path))
    (tmp_path / "package.json").write_text("{not json")
    assert not starts_nothing("npm run build", str(tmp_path))
    (tmp_path / "package.json").unlink()
    (tmp_path / "package.json").mkdir()
    assert not starts_nothing("npm run build", str(tmp_path))


def test_the_shape_is_read_word_by_word():
    """Only ``PROGRAM run NAME`` commands between separators have script names."""
    assert script_names("npm run a && yarn run b || pnpm run c; bun run d") == ["a", "b", "c", "d"]
    assert script_names("") is None
    assert script_names("npm run") is None
    assert script_names("make build") is None
    assert script_names('npm run "build"') is None


TEXTS = [
    *("tsc -p .", "eslint .", "prettier --check .", "rimraf dist", "tsc -b") * 3,
    "jest",
    "vitest run",
    "npm run lint",
    "pip install -e .",
    "./scripts/x.sh",
    "node build.js",
    "make",
    "echo 'pytest'",
    "cd web && tsc",
    "",
]
NAMES = ["build", "lint", "prebuild", "postlint", "test", "test:x", "ci"]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    scripts=st.dictionaries(st.sampled_from(NAMES), st.sampled_from(TEXTS), max_size=5),
    calls=st.lists(
        st.tuples(
            st.sampled_from(["npm", "npm", "pnpm", "yarn", "bun", "make"]),
            st.sampled_from(["run", "run", "run", "run-script", "exec"]),
            st.sampled_from(NAMES),
        ),
        min_size=1,
        max_size=2,
    ),
    separator=st.sampled_from([" && ", " || ", "; ", " | ", " & ", "\n"]),
)
def test_any_command_the_fast_path_lets_go_is_no_run_for_the_parser(
    tmp_path, scripts, calls, separator
):
    """Over generated package.json scripts and commands: starts nothing means the parser agrees."""
    (tmp_path / "package.json").write_text(json.dumps({"scripts": scripts}))
    command = separator.join(" ".join(call) for call in calls)
    if starts_nothing(command, str(tmp_path)):
        assert test_runs(command, str(tmp_path)) == ()
        assert environment_changes(command, str(tmp_path)) == ()


@pytest.mark.parametrize("name", TEST_TASK_NAMES)
@pytest.mark.parametrize(
    ("program", "run"), [(p, r) for p, rs in RUN_WORDS.items() for r in sorted(rs)]
)
def test_a_script_the_table_names_a_test_run_is_never_decided_here(program, run, name):
    """Every task name the runner table calls a test run by its name alone goes to the parser.

    The fast path knows test names only as names holding ``test``: a name the
    table adds without it would be answered "starts nothing" here, silently.
    """
    concrete = name.replace("*", "unit")
    assert script_names(f"{program} {run} {concrete}") is None
    assert test_runs(f"{program} {run} {concrete}", ".", None)
