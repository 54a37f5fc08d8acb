"""Tasks kept in JSON (``runners/tasks/json_tasks.py``): deno's tasks, composer's scripts.

Each test writes the tool's real file into a project directory and reads the
command through the hook's path.
"""

from __future__ import annotations

import json

import pytest
from tasktools import runs, write

DENO = """\
{
  // deno.jsonc keeps comments
  "tasks": {
    "ci": {"command": "deno lint", "dependencies": ["unit"]},
    "unit": "deno test -A --parallel",
    "fmt": "deno fmt --check",
  }
}
"""

COMPOSER = {
    "scripts": {
        "ci": ["@cs", "@unit"],
        "cs": "php-cs-fixer fix --dry-run",
        "unit": "vendor/bin/phpunit --testsuite unit",
        "check": "phpunit",
        "stan": "@php vendor/bin/phpstan analyse",
        "suite": "@php vendor/bin/phpunit",
        "hooked": "echo hooked",
        "pre-hooked-cmd": "pest --parallel",
        "callback": "Vendor\\Tools\\Build::run",
    }
}


@pytest.fixture
def project(tmp_path):
    """A project with deno.jsonc tasks and composer.json scripts."""
    write(tmp_path / "deno.jsonc", DENO)
    write(tmp_path / "composer.json", json.dumps(COMPOSER))
    return tmp_path


@pytest.mark.parametrize(
    "command",
    [
        "deno task ci",
        "deno task unit",
        "composer ci",
        "composer run-script ci",
        "composer run check",
        "composer suite",
        "composer hooked",
        "composer.phar unit",
    ],
)
def test_a_task_that_runs_a_runner_is_a_run(project, command):
    """Directly, through ``@NAME`` scripts and dependencies, or an event script first."""
    assert runs(command, project) != [], command


@pytest.mark.parametrize(
    "command",
    [
        "deno task fmt",
        "composer cs",
        "composer stan",
        "composer callback",
        "composer install",
        "composer require phpunit/phpunit",
        "composer nosuch",
    ],
)
def test_a_task_that_runs_none_is_no_run(project, command):
    """Checks, static analysis, PHP callbacks runctx does not read, composer's own commands."""
    assert runs(command, project) == [], command


def test_values_of_the_wrong_type_are_no_commands(tmp_path):
    """``dependencies: 3``, a script that is a number: read as nothing, never an error."""
    write(tmp_path / "deno.json", json.dumps({"tasks": {"ci": {"dependencies": 3}, "x": 4}}))
    write(tmp_path / "composer.json", json.dumps({"scripts": {"ci": 5, "all": [1, "@ci"]}}))
    for command in ("deno task ci", "deno task x", "composer ci", "composer all"):
        assert runs(command, tmp_path) == [], command
