"""A script run in other packages of a monorepo: ``npm run unit -w web``, ``pnpm --filter``.

Each test writes a real monorepo (the root's ``workspaces`` or a
``pnpm-workspace.yaml``, packages with their own scripts) and reads the
command through the hook's path.
"""

from __future__ import annotations

import json

import pytest
from tasktools import maybe_runs, runs, write

from runctx.runners.tasks.files import MAX_FILES
from runctx.runners.workspaces import Selection, selection


def member(root, path, name, **scripts):
    """The package ``name`` at ``root/path`` with these scripts."""
    write(root / path / "package.json", json.dumps({"name": name, "scripts": scripts}))


@pytest.fixture
def monorepo(tmp_path):
    """npm/yarn workspaces: a web package that tests with vitest, an api one with jest."""
    write(
        tmp_path / "package.json",
        json.dumps({"name": "root", "workspaces": ["packages/*", "apps/*"], "scripts": {}}),
    )
    member(tmp_path, "packages/web", "@acme/web", unit="vitest run", build="vite build")
    member(tmp_path, "apps/api", "api", unit="jest --ci", build="tsc -p .")
    member(tmp_path, "packages/docs", "@acme/docs", build="astro build")
    return tmp_path


@pytest.mark.parametrize(
    "command",
    [
        "npm run unit -w packages/web",
        "npm run unit --workspace=@acme/web",
        "npm -w api run unit",
        "npm run unit --workspaces",
        "npm run unit -ws",
        "yarn workspace @acme/web unit",
        "yarn workspace api run unit",
        "yarn workspaces foreach -A run unit",
        "yarn workspaces run unit",
        "pnpm --filter @acme/web unit",
        "pnpm -F api run unit",
        "pnpm --filter ./apps/api unit",
        "pnpm --filter '@acme/*' unit",
        "pnpm -r run unit",
        "pnpm recursive run unit",
        "bun run --filter @acme/web unit",
        "turbo run unit",
        "turbo unit --filter=api",
        "turbo run lint unit",
        "lerna run unit",
        "lerna run unit --scope @acme/web",
    ],
)
def test_a_script_that_tests_in_a_selected_package_is_a_run(monorepo, command):
    """The root has no ``unit`` script: the selected packages' do, and run tests."""
    assert runs(command, monorepo) != [], command


@pytest.mark.parametrize(
    "command",
    [
        "npm run build -w packages/web",
        "npm run build --workspaces",
        "yarn workspace api build",
        "pnpm --filter @acme/docs build",
        "pnpm -r run build",
        "npm run unit -w packages/docs",
        "turbo run build",
        "turbo run unit --filter=@acme/docs",
        "lerna run build",
        "turbo run unit --dry-run",
    ],
)
def test_a_script_that_only_builds_in_the_selected_packages_is_no_run(monorepo, command):
    """Builds, and a package without the script, run no tests."""
    assert runs(command, monorepo) == [], command


def test_each_package_script_runs_in_its_own_directory(monorepo):
    """A package's script that runs its own script is read where the package is.

    ``scripts/check.sh`` exists only in the package, and its name says nothing:
    only its text, read there, makes the run.
    """
    member(monorepo, "apps/api", "api", unit="./scripts/check.sh")
    write(monorepo / "apps" / "api" / "scripts" / "check.sh", "#!/bin/sh\npytest -q\n")
    (monorepo / "apps" / "api" / "scripts" / "check.sh").chmod(0o755)
    assert runs("pnpm --filter api unit", monorepo) != []
    assert runs("./scripts/check.sh", monorepo) == []


def test_pnpm_workspace_file_names_the_packages(tmp_path):
    """No ``workspaces`` in the root: ``pnpm-workspace.yaml``'s ``packages`` are read."""
    write(tmp_path / "package.json", json.dumps({"name": "root"}))
    write(tmp_path / "pnpm-workspace.yaml", "packages:\n  - 'libs/*'\n  # a comment\n")
    member(tmp_path, "libs/core", "@x/core", check="vitest run --coverage")
    assert runs("pnpm --filter @x/core check", tmp_path) != []
    assert runs("pnpm --filter @x/other check", tmp_path) == []


def test_yarn_one_workspaces_object_form(tmp_path):
    """``"workspaces": {"packages": [...]}`` (yarn 1) names the packages as the list does."""
    write(tmp_path / "package.json", json.dumps({"workspaces": {"packages": ["pkgs/*"]}}))
    member(tmp_path, "pkgs/a", "a", verify="mocha")
    assert runs("yarn workspace a verify", tmp_path) != []


def test_lerna_json_names_the_packages(tmp_path):
    """No ``workspaces``, no pnpm file: ``lerna.json``'s ``packages`` are read."""
    write(tmp_path / "package.json", json.dumps({"name": "root"}))
    write(tmp_path / "lerna.json", json.dumps({"packages": ["modules/*"]}))
    member(tmp_path, "modules/core", "core", spec="mocha 'test/**/*.js'")
    assert runs("lerna run spec", tmp_path) != []
    assert runs("lerna run spec --scope other", tmp_path) == []


def test_a_package_not_found_within_the_files_bound_may_run(tmp_path):
    """More packages than a command may read before the named one: the command *may* run."""
    write(tmp_path / "package.json", json.dumps({"workspaces": ["packages/*"]}))
    for n in range(MAX_FILES + 4):
        member(tmp_path, f"packages/p{n:02d}", f"@x/p{n:02d}", build="tsc")
    member(tmp_path, "packages/zz", "@x/target", unit="vitest run")
    command = "pnpm --filter @x/target unit"
    assert runs(command, tmp_path) == []
    assert maybe_runs(command, tmp_path) != []


@pytest.mark.parametrize(
    ("kind", "args", "expected"),
    [
        ("npm-script", ["run", "unit", "-w", "a", "--workspace=b"], Selection(("a", "b"))),
        ("npm-script", ["run", "unit", "-ws"], Selection(every=True)),
        ("npm-script", ["run", "unit"], Selection()),
        ("pnpm-script", ["-Fweb", "unit"], Selection(("web",))),
        ("pnpm-script", ["-r", "--filter", "x", "unit"], Selection(("x",))),
        ("pnpm-script", ["-w", "unit"], Selection()),  # pnpm's -w is the workspace root
        ("yarn-script", ["workspace", "@a/b", "unit"], Selection(("@a/b",))),
        ("yarn-script", ["unit"], Selection()),
        ("make-target", ["-w", "x"], Selection()),
    ],
)
def test_the_selection_read_from_the_arguments(kind, args, expected):
    """Selectors and "every package", as each tool spells them; other rows select none."""
    found = selection(kind, args)
    assert (found.selectors, found.every) == (expected.selectors, expected.every)


@pytest.mark.parametrize("selector", ["../outside", "{../outside}", "OUTSIDE"])
def test_a_package_path_out_of_the_checkout_is_not_read(monorepo, tmp_path_factory, selector):
    """``-w ../outside`` or an absolute path: a file out of the checkout is never opened."""
    outside = tmp_path_factory.mktemp("elsewhere") / "outside"
    member(outside.parent, "outside", "outside", unit="vitest run")
    written = str(outside) if selector == "OUTSIDE" else selector
    if ".." in written:
        (monorepo.parent / "outside").mkdir(exist_ok=True)
        member(monorepo.parent, "outside", "outside", unit="vitest run")
    assert runs(f"npm run unit -w {written}", monorepo) == []
    assert runs(f"pnpm --filter {written} unit", monorepo) == []
