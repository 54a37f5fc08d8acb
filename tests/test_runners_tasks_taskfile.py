"""Taskfiles (``runners/tasks/taskfile.py``): what ``task NAME`` runs, read line by line."""

from __future__ import annotations

from tasktools import runs, write


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

    def test_a_task_name_may_hold_colons(self, tmp_path):
        """``py:check:`` names the task ``py:check``, its deps ``py:test``; a URL is a value."""
        write(
            tmp_path / "Taskfile.yml",
            """\
            version: "3"
            tasks:
              py:test:
                cmds:
                  - poetry run pytest {{ .CLI_ARGS }}
              py:lint:
                cmds:
                  - poetry run ruff check .
              "docs:serve":
                cmds:
                  - mkdocs serve -a http://localhost:8000
              py:check:
                deps:
                  - py:lint
                  - py:test
            """,
        )
        assert runs("task py:check", tmp_path) == [("taskfile-task", str(tmp_path))]
        assert runs("task py:lint", tmp_path) == []
        assert runs("task docs:serve", tmp_path) == []
