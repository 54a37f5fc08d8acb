"""Test-named package.json scripts that say otherwise (``runners/tasks/script_names.py``)."""

from __future__ import annotations

import json

import pytest
from tasktools import runs

SCRIPTS = {
    "test": "vitest run",
    "test:unit": "jest",
    "test:websocket:autobahn:report": "node test/autobahn/report.js",
    "test:server": "node test/serve.js",
    "test:types": "tsc -p test",
    "test:e2e-setup": "node scripts/seed.js",
    "test:lint": "jest --config lint.config.js",
    "test:build": "npm run build && vitest run",
    "test:format": "prettier . --list-different",
    "test:style": "stylelint 'src/**/*.css'",
    "test:fmt": "deno fmt --check && deno test",
    "test:size": "size-limit",
    "test:circular": "madge --circular --extensions ts src",
    "test:codegen": "playwright codegen --output tests/new.spec.ts",
    "test:preprocess-gql": "node scripts/preprocess-gql.js",
    "test:e2e-report": "playwright show-report",
    "test:report-and-run": "node scripts/report.js && vitest run",
}


@pytest.fixture
def project(tmp_path):
    """A package.json with test runs and test-named look-alikes."""
    (tmp_path / "package.json").write_text(json.dumps({"name": "p", "scripts": SCRIPTS}))
    return tmp_path


@pytest.mark.parametrize(
    "command",
    [
        "npm run test:websocket:autobahn:report",
        "yarn test:server",
        "pnpm run test:types",
        "npm run test:e2e-setup",
        "pnpm run test:format",
        "yarn test:style",
        "npm run test:size",
        "npm run test:circular",
        "npm run test:codegen my-new-test",
        "npm run test:preprocess-gql",
        "npm run test:e2e-report",  # a word of the last part, not only the last
    ],
)
def test_a_look_alike_whose_text_runs_no_runner_is_no_run(project, command):
    """A report, a server, a type check, a setup, a format, style or size check: no test."""
    assert runs(command, project) == []


@pytest.mark.parametrize(
    "command",
    [
        "npm test",
        "npm run test:unit",
        "npm run test:lint",
        "npm run test:build",
        "npm run test:fmt",
        "npm run test:report-and-run",
    ],
)
def test_test_named_scripts_that_run_tests_stay_runs(project, command):
    """A look-alike name whose text runs a runner is a run; other test names are, unread."""
    assert runs(command, project) != []


def test_an_unreadable_look_alike_stays_a_run(tmp_path):
    """No package.json: ``npm run test:report`` is decided by its name, a run."""
    assert runs("npm run test:report", tmp_path) != []


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("yarn run --inspect-brk jest --runInBand", True),
        ("pnpm run vitest", True),
        ("bun run mocha", True),
        ("yarn run eslint", False),
        ("npm run jest", False),
    ],
)
def test_a_name_that_is_no_script_runs_the_binary(tmp_path, command, expected):
    """yarn, pnpm and bun run the package binary when no script has the name; npm does not."""
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"lint": "eslint ."}}))
    assert bool(runs(command, tmp_path)) is expected
