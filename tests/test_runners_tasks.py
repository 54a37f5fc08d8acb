"""Task runners resolved through the project's own files (runctx.runners.tasks).

The shell parser reads a real project in a temporary directory: a task that is
no run by its name is a run when its text runs a runner. What cannot be read
stays decided by the name.
"""

from __future__ import annotations

import json
import os
import textwrap
import threading

import pytest

from runctx.runners.tasks.files import MAX_FILES, MAX_PROJECT_FILE_BYTES, read_project_file
from runctx.shell.commands import test_invocations


def runs(command, cwd):
    """``(kind, cwd)`` of each test run ``command`` starts in ``cwd``, files read."""
    return [(i.kind, i.cwd) for i in test_invocations(command, str(cwd))]


def package(directory, **scripts):
    """A package.json in ``directory`` with these scripts."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "package.json").write_text(json.dumps({"name": "p", "scripts": scripts}))


def write(path, text):
    """``text``, dedented, at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


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


class TestMakefiles:
    """make targets through their recipes."""

    MAKEFILE = """\
        PYTEST ?= python -m pytest
        ARGS := -x

        .PHONY: all ci lint unit build

        all: build

        ci: lint unit

        lint:
        \truff check .

        unit:
        \t@$(PYTEST) $(ARGS) tests

        build: ; cc -o app main.c

        nested:
        \t$(MAKE) -C sub inner
        """

    def test_a_target_whose_prerequisite_runs_a_runner_is_a_run(self, tmp_path):
        """``make ci`` depends on ``unit``, whose recipe runs pytest through a variable."""
        write(tmp_path / "Makefile", self.MAKEFILE)
        assert runs("make ci", tmp_path) == [("make-target", str(tmp_path))]
        assert runs("make unit", tmp_path) == [("make-target", str(tmp_path))]

    def test_targets_that_run_no_runner_are_no_runs(self, tmp_path):
        """``make lint``, ``make build`` and ``make`` (its first target, ``all``) run no tests."""
        write(tmp_path / "Makefile", self.MAKEFILE)
        for command in ("make lint", "make build", "make", "make -n ci", "make V=1 lint"):
            assert runs(command, tmp_path) == [], command

    def test_recursive_make_is_followed_into_its_directory(self, tmp_path):
        """``$(MAKE) -C sub inner`` reads sub/Makefile, where ``inner`` runs go test."""
        write(tmp_path / "Makefile", self.MAKEFILE)
        write(tmp_path / "sub" / "Makefile", "inner:\n\tgo test ./...\n")
        assert runs("make nested", tmp_path) == [("make-target", str(tmp_path))]

    def test_the_directory_option_says_which_makefile(self, tmp_path):
        """``make -C proj ci`` reads proj/Makefile and runs in proj."""
        write(tmp_path / "proj" / "Makefile", self.MAKEFILE)
        assert runs("make -C proj ci", tmp_path) == [("make-target", str(tmp_path / "proj"))]
        assert runs("make -f proj/Makefile ci", tmp_path) == [("make-target", str(tmp_path))]

    def test_the_first_target_is_the_default(self, tmp_path):
        """``make`` alone runs the first target."""
        write(tmp_path / "Makefile", "check-all: unit\nunit:\n\tcargo test\n")
        assert runs("make", tmp_path) == [("make-target", str(tmp_path))]


class TestJustfiles:
    """just recipes through their bodies."""

    JUSTFILE = """\
        set shell := ["bash", "-c"]
        alias c := check

        default: lint

        # lint the code
        lint:
            ruff check .

        [group('ci')]
        check: lint (unit "fast")

        unit mode="all":
            @cargo nextest run --profile {{mode}}
        """

    def test_a_recipe_whose_dependency_runs_a_runner_is_a_run(self, tmp_path):
        """``just check`` (and its alias) depends on ``unit``, which runs nextest."""
        write(tmp_path / "justfile", self.JUSTFILE)
        assert runs("just check", tmp_path) == [("just-recipe", str(tmp_path))]
        assert runs("just c", tmp_path) == [("just-recipe", str(tmp_path))]

    def test_the_default_recipe_and_other_recipes(self, tmp_path):
        """``just`` runs ``default`` (lint only): no run; nor is ``just lint``."""
        write(tmp_path / "justfile", self.JUSTFILE)
        assert runs("just", tmp_path) == []
        assert runs("just lint", tmp_path) == []

    def test_a_justfile_in_a_parent_directory_is_found(self, tmp_path):
        """A justfile is looked for up from the directory, as the tool does."""
        write(tmp_path / "Justfile", self.JUSTFILE)
        (tmp_path / "deep" / "er").mkdir(parents=True)
        assert runs("just check", tmp_path / "deep" / "er") == [
            ("just-recipe", str(tmp_path / "deep" / "er"))
        ]


class TestTaskfiles:
    """go-task tasks through their commands."""

    TASKFILE = """\
        version: '3'

        tasks:
          default:
            cmds:
              - task: lint
          lint:
            desc: "pytest is mentioned here but not run"
            cmds:
              - golangci-lint run
          ci:
            deps: [lint, unit]
          unit:
            cmds:
              - cmd: go test -race ./...
          e2e:
            cmds:
              - |
                docker compose up -d
                npx playwright test
          fmt: gofmt -w .
        """

    def test_tasks_that_run_a_runner_are_runs(self, tmp_path):
        """``task ci`` (through its deps) and ``task e2e`` (in a block scalar) are runs."""
        write(tmp_path / "Taskfile.yml", self.TASKFILE)
        assert runs("task ci", tmp_path) == [("taskfile-task", str(tmp_path))]
        assert runs("task e2e", tmp_path) == [("taskfile-task", str(tmp_path))]

    def test_tasks_that_run_no_runner_are_no_runs(self, tmp_path):
        """``task``, ``task lint`` and ``task fmt`` run no tests."""
        write(tmp_path / "Taskfile.yml", self.TASKFILE)
        for command in ("task", "task lint", "task fmt", "task --list"):
            assert runs(command, tmp_path) == [], command


class TestHatchScripts:
    """hatch run [ENV:]SCRIPT through the environment's scripts."""

    PYPROJECT = """\
        [project]
        name = "p"

        [tool.hatch.envs.default.scripts]
        cov = ["coverage erase", "coverage run -m pytest {args}", "coverage report"]
        check = "cov"
        fmt = "ruff format ."

        [tool.hatch.envs.lint]
        detached = true

        [tool.hatch.envs.lint.scripts]
        all = "ruff check ."

        [tool.hatch.envs.types]
        template = "default"
        """

    def test_scripts_that_run_a_runner_are_runs(self, tmp_path):
        """``hatch run cov``, a script calling it, and a templated environment's are runs."""
        write(tmp_path / "pyproject.toml", self.PYPROJECT)
        for command in ("hatch run cov", "hatch run check", "hatch run types:cov"):
            assert runs(command, tmp_path) == [("hatch-script", str(tmp_path))], command

    def test_scripts_that_run_no_runner_are_no_runs(self, tmp_path):
        """``hatch run fmt`` and ``hatch run lint:all`` run no tests."""
        write(tmp_path / "pyproject.toml", self.PYPROJECT)
        assert runs("hatch run fmt", tmp_path) == []
        assert runs("hatch run lint:all", tmp_path) == []

    def test_a_command_after_hatch_run_is_still_a_command(self, tmp_path):
        """``hatch run pytest`` runs pytest whether or not a script has that name."""
        write(tmp_path / "pyproject.toml", self.PYPROJECT)
        assert runs("hatch run pytest -x", tmp_path) == [("pytest", str(tmp_path))]

    def test_hatch_toml_is_read_too(self, tmp_path):
        """Scripts in hatch.toml count like those of pyproject.toml."""
        write(tmp_path / "hatch.toml", '[envs.default.scripts]\nunit = "pytest tests/unit"\n')
        assert runs("hatch run unit", tmp_path) == [("hatch-script", str(tmp_path))]


class TestBounds:
    """Files another user could plant are read without blocking and within bounds."""

    def test_a_fifo_in_place_of_the_file_does_not_block(self, tmp_path):
        """A FIFO named package.json (nobody writing to it) is skipped at once."""
        os.mkfifo(tmp_path / "package.json")
        done: list[object] = []
        worker = threading.Thread(target=lambda: done.append(runs("npm run unit", tmp_path)))
        worker.start()
        worker.join(timeout=10)
        assert not worker.is_alive(), "reading a FIFO blocked"
        assert done == [[]]

    def test_a_file_past_the_bound_is_not_read(self, tmp_path):
        """A makefile larger than the bound is not read: its task stays decided by its name."""
        filler = "# " + "x" * 100 + "\n"
        body = filler * (MAX_PROJECT_FILE_BYTES // len(filler) + 1) + "ci:\n\tpytest\n"
        (tmp_path / "Makefile").write_text(body)
        assert runs("make ci", tmp_path) == []
        (tmp_path / "Makefile").write_text("ci:\n\tpytest\n")
        assert runs("make ci", tmp_path) == [("make-target", str(tmp_path))]

    def test_a_project_file_is_read_only_when_regular_and_within_the_bound(self, tmp_path):
        """Directories, FIFOs, missing and oversized files give None; a small file its bytes."""
        (tmp_path / "f").write_bytes(b"abc")
        assert read_project_file(str(tmp_path / "f")) == b"abc"
        (tmp_path / "big").write_bytes(b"x" * (MAX_PROJECT_FILE_BYTES + 1))
        assert read_project_file(str(tmp_path / "big")) is None
        (tmp_path / "edge").write_bytes(b"x" * MAX_PROJECT_FILE_BYTES)
        assert read_project_file(str(tmp_path / "edge")) == b"x" * MAX_PROJECT_FILE_BYTES
        os.mkfifo(tmp_path / "fifo")
        assert read_project_file(str(tmp_path / "fifo")) is None
        assert read_project_file(str(tmp_path)) is None
        assert read_project_file(str(tmp_path / "missing")) is None

    def test_one_command_reads_a_bounded_number_of_files(self, tmp_path):
        """Past the file budget of one command, further makefiles are not read."""
        count = MAX_FILES + 4
        package(tmp_path, ci="; ".join(f"make -C d{n} x" for n in range(count)))
        for n in range(count):
            write(tmp_path / f"d{n}" / "Makefile", "x:\n\techo nothing\n")
        write(tmp_path / f"d{count - 1}" / "Makefile", "x:\n\tpytest\n")
        assert runs("npm run ci", tmp_path) == []
        write(tmp_path / "d3" / "Makefile", "x:\n\tpytest\n")
        assert runs("npm run ci", tmp_path) == [("npm-script", str(tmp_path))]

    def test_tasks_inside_tasks_are_read_to_a_bounded_depth(self, tmp_path):
        """A chain of recursive makes through many directories is followed a few levels only."""
        depth = 8
        for n in range(depth):
            write(tmp_path / f"d{n}" / "Makefile", f"ci:\n\t$(MAKE) -C ../d{n + 1} ci\n")
        write(tmp_path / f"d{depth}" / "Makefile", "ci:\n\tpytest\n")
        assert runs("make -C d0 ci", tmp_path) == []
        assert runs(f"make -C d{depth - 2} ci", tmp_path) == [
            ("make-target", str(tmp_path / f"d{depth - 2}"))
        ]

    def test_a_task_calling_itself_ends(self, tmp_path):
        """Scripts that call each other in a loop are read a bounded number of times."""
        package(tmp_path, a="npm run b", b="npm run a")
        assert runs("npm run a", tmp_path) == []


def test_without_reading_files_a_task_is_a_task(tmp_path):
    """With ``resolve_tasks=False`` (a live process) no file is read and a task stays a task."""
    package(tmp_path, unit="jest")
    found = test_invocations("npm run unit", str(tmp_path), resolve_tasks=False)
    assert [(i.kind, i.role) for i in found] == [("npm-script", "task")]
