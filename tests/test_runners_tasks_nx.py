"""Nx targets (``runners/tasks/nx_targets.py``): project.json targets and package.json scripts."""

from __future__ import annotations

import json

import pytest
from tasktools import runs, write


@pytest.fixture
def workspace(tmp_path):
    """An Nx workspace: web (Vite tests), core (commands), api (package.json scripts)."""
    write(tmp_path / "package.json", json.dumps({"name": "root"}))
    write(tmp_path / "nx.json", "{}")
    web = {
        "name": "web",
        "targets": {
            "unit": {"executor": "@nx/vite:test"},
            "build": {"executor": "@nx/vite:build"},
            "ci": {"dependsOn": ["lint", "unit", "^build"]},
            "lint": {"command": "eslint ."},
        },
    }
    core = {
        "name": "core",
        "targets": {
            "spec": {"executor": "nx:run-commands", "options": {"commands": ["pytest -q"]}},
            "docs": {"executor": "nx:run-commands", "options": {"command": "mkdocs build"}},
        },
    }
    write(tmp_path / "apps" / "web" / "project.json", json.dumps(web))
    write(tmp_path / "libs" / "core" / "project.json", json.dumps(core))
    write(
        tmp_path / "apps" / "api" / "package.json",
        json.dumps({"name": "api", "scripts": {"unit": "jest --ci", "build": "tsc"}}),
    )
    return tmp_path


@pytest.mark.parametrize(
    "command",
    [
        "nx run web:unit",
        "nx unit web",
        "nx run web:ci",
        "nx run core:spec",
        "nx run api:unit",
        "nx run-many -t unit",
        "nx run-many --targets=lint,unit",
        "nx affected -t spec",
        "npx nx run-many -t spec -p core",
    ],
)
def test_a_target_that_runs_tests_is_a_run(workspace, command):
    """A test executor, run-commands, a package script, a target's dependsOn."""
    assert runs(command, workspace) != [], command


@pytest.mark.parametrize(
    "command",
    [
        "nx run web:build",
        "nx build api",
        "nx run core:docs",
        "nx run-many -t build",
        "nx run-many -t unit -p core",
        "nx graph",
        "nx run nosuch:unit",
    ],
)
def test_a_target_that_runs_none_is_no_run(workspace, command):
    """Builds, docs, a project without the target, Nx's own commands."""
    assert runs(command, workspace) == [], command


def test_values_of_the_wrong_type_are_no_commands(tmp_path):
    """``dependsOn: 5``, ``commands: 7``: read as nothing, never an error."""
    write(tmp_path / "package.json", json.dumps({"name": "root"}))
    odd = {
        "name": "odd",
        "targets": {
            "unit": {"dependsOn": 5, "executor": "nx:run-commands", "options": {"commands": 7}},
            "e2e-all": {"executor": 3, "options": [1]},
        },
    }
    write(tmp_path / "apps" / "odd" / "project.json", json.dumps(odd))
    assert runs("nx run odd:unit", tmp_path) == []
    assert runs("nx run odd:e2e-all", tmp_path) == []
