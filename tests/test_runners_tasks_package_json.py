"""``package.json`` scripts (``runners/tasks/package_json.py``): what ``npm run NAME`` runs.

A script named anything whose text runs a runner is a test run; names that
say test are runs unless their readable text says otherwise.
"""

from __future__ import annotations

import pytest
from tasktools import package, runs, write


class TestPackageScripts:
    """npm, yarn, pnpm and bun scripts in package.json."""

    @pytest.mark.parametrize(
        ("command", "kind"),
        [
            ("npm run unit", "npm-script"),
            ("npm run-script unit -- --watch=false", "npm-script"),
            ("yarn unit", "yarn-script"),
            ("yarn run unit", "yarn-script"),
            ("pnpm unit", "pnpm-script"),
            ("pnpm run unit", "pnpm-script"),
            ("bun run unit", "bun-script"),
        ],
    )
    def test_a_script_that_runs_a_runner_is_a_run(self, tmp_path, command, kind):
        """A script named anything whose text runs a runner is a test run."""
        package(tmp_path, unit="node --test", build="tsc -p .")
        assert runs(command, tmp_path) == [(kind, str(tmp_path))]

    def test_a_script_that_runs_no_runner_is_no_run(self, tmp_path):
        """``npm run build`` whose script compiles is no run."""
        package(tmp_path, unit="node --test", build="tsc -p .")
        assert runs("npm run build", tmp_path) == []
        assert runs("yarn build", tmp_path) == []

    def test_scripts_calling_scripts_are_followed(self, tmp_path):
        """``ci`` runs ``lint`` then ``unit``, which runs jest: ``npm run ci`` is a run."""
        package(tmp_path, ci="npm run lint && npm run unit", lint="eslint .", unit="jest --ci")
        assert runs("npm run ci", tmp_path) == [("npm-script", str(tmp_path))]

    def test_pre_and_post_scripts_count(self, tmp_path):
        """A runner in ``preNAME``, which npm runs first, makes ``NAME`` a run."""
        package(tmp_path, prerelease="vitest run", release="changeset publish")
        assert runs("npm run release", tmp_path) == [("npm-script", str(tmp_path))]

    def test_the_prefix_directory_is_read(self, tmp_path):
        """``npm --prefix web run unit`` reads web/package.json and runs there."""
        package(tmp_path / "web", unit="mocha")
        package(tmp_path, unit="echo nothing")
        assert runs("npm --prefix web run unit", tmp_path) == [
            ("npm-script", str(tmp_path / "web"))
        ]
        assert runs("cd web && npm run unit", tmp_path) == [("npm-script", str(tmp_path / "web"))]
        assert runs("npm run unit", tmp_path) == []

    def test_names_that_are_runs_need_no_file(self, tmp_path):
        """``npm test`` is a run by its name, with or without a package.json."""
        assert runs("npm test", tmp_path) == [("npm-test", str(tmp_path))]
        package(tmp_path, test="echo no tests")
        assert runs("npm test", tmp_path) == [("npm-test", str(tmp_path))]

    def test_an_unknown_script_or_no_file_stays_decided_by_its_name(self, tmp_path):
        """Without the script (or the file) a task is what its name says: here, no run."""
        assert runs("npm run unit", tmp_path) == []
        package(tmp_path, other="jest")
        assert runs("npm run unit", tmp_path) == []

    def test_a_malformed_package_json_is_no_run_and_no_error(self, tmp_path):
        """A package.json that is not JSON is not read, and nothing raises."""
        (tmp_path / "package.json").write_text("{not json")
        assert runs("npm run unit", tmp_path) == []


class TestNamesThatSayTest:
    """A task named like a test run is one unless its readable text says otherwise."""

    def test_a_test_named_script_that_runs_no_runner_is_no_run(self, tmp_path):
        """``just test-quine`` whose recipe runs the program, not its tests, is no run."""
        write(tmp_path / "justfile", "test:\n\tcargo test --lib\n\ntest-quine:\n\tcargo run\n")
        assert runs("just test-quine", tmp_path) == []
        assert runs("just test", tmp_path) == [("just-test", str(tmp_path))]

    def test_without_the_task_the_name_decides(self, tmp_path):
        """No file, or a file without that task: ``yarn test-unit`` is a run by its name."""
        assert runs("yarn test-unit", tmp_path) == [("yarn-script", str(tmp_path))]
        package(tmp_path, build="tsc")
        assert runs("yarn test-unit", tmp_path) == [("yarn-script", str(tmp_path))]
        package(tmp_path, **{"test-unit": "echo skipped"})
        assert runs("yarn test-unit", tmp_path) == []

    def test_test_and_test_colon_names_stay_runs_whatever_their_text(self, tmp_path):
        """``npm test`` and ``npm run test:unit`` are runs even when their script runs no runner."""
        package(tmp_path, test="echo no tests", **{"test:unit": "echo none"})
        assert runs("npm test", tmp_path) == [("npm-test", str(tmp_path))]
        assert runs("npm run test:unit", tmp_path) == [("npm-test", str(tmp_path))]


def test_npm_run_all_reads_each_script_it_names(tmp_path):
    """``run-p lint unit`` runs ``unit`` (vitest) beside ``lint``: a run; ``lint build`` none."""
    package(tmp_path, lint="eslint .", unit="vitest run", build="tsc")
    assert runs("run-p lint unit", tmp_path) == [("npm-run-all", str(tmp_path))]
    assert runs("npx npm-run-all --parallel lint unit", tmp_path) != []
    assert runs("run-p lint build", tmp_path) == []


def test_concurrently_runs_each_command_and_npm_shorthand(tmp_path):
    """``concurrently "npm:lint" "npm:unit"``: each argument a command, ``npm:`` a script."""
    package(tmp_path, lint="eslint .", unit="vitest run", build="tsc")
    assert runs('concurrently -k "npm:lint" "npm:unit"', tmp_path) != []
    assert runs('npx concurrently "npm:lint" "npm:build"', tmp_path) == []
