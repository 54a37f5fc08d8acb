"""The git hooks ``git commit`` and ``git push`` run (``runners/tasks/git_hooks.py``).

Each test makes a real repository with ``git init`` (and ``git worktree add``,
and the pre-commit framework's own ``pre-commit install``), then asks what the
command starts there: a run when a hook it runs starts one.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from tasktools import runs, write

from runctx.fastpath.prefilter import names_git_hook


def _git(*args, cwd):
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def _repository(path):
    path.mkdir(parents=True, exist_ok=True)
    _git("init", "-q", cwd=path)
    return path


def _hook(repository, name, text, hooks=".git/hooks"):
    hook = repository / hooks / name
    write(hook, text)
    hook.chmod(0o755)


class TestScripts:
    """A hook that is a script runs what its text runs."""

    def test_a_pre_commit_hook_running_the_tests_makes_a_commit_a_run(self, tmp_path):
        """``git commit`` with a pre-commit hook running pytest is a run; ``--no-verify`` none."""
        repository = _repository(tmp_path / "r")
        _hook(repository, "pre-commit", "#!/bin/sh\nset -e\nruff check .\npytest -q\n")
        assert runs("git commit -m 'fix: x'", repository) == [("git-commit", str(repository))]
        assert runs("git commit -am wip", repository) != []
        assert runs("git -C r commit -m x", tmp_path) != []
        assert runs("git commit --no-verify -m x", repository) == []
        assert runs("git commit -n -m x", repository) == []
        assert runs("git push origin main", repository) == []  # no pre-push hook
        assert runs("git status", repository) == []

    def test_a_hook_running_no_runner_is_no_run(self, tmp_path):
        """A pre-commit hook that only lints starts no run, nor does a repository without hooks."""
        repository = _repository(tmp_path / "r")
        assert runs("git commit -m x", repository) == []
        _hook(repository, "pre-commit", "#!/bin/sh\nruff check .\n")
        assert runs("git commit -m x", repository) == []

    def test_a_pre_push_hook_in_python_is_read_for_what_it_starts(self, tmp_path):
        """A Python pre-push hook starting ``python -m pytest`` makes a push a run."""
        repository = _repository(tmp_path / "r")
        _hook(
            repository,
            "pre-push",
            "#!/usr/bin/env python3\nimport subprocess, sys\n"
            "sys.exit(subprocess.call([sys.executable, '-m', 'pytest', '-q']))\n",
        )
        assert runs("git push", repository) == [("git-push", str(repository))]
        assert runs("git push --dry-run", repository) == []
        assert runs("git commit -m x", repository) == []

    def test_core_hooks_path_is_where_the_hooks_are(self, tmp_path):
        """``core.hooksPath .githooks``: the hooks there are read, ``.git/hooks`` is not."""
        repository = _repository(tmp_path / "r")
        _hook(repository, "pre-commit", "#!/bin/sh\nruff check .\n")
        _hook(repository, "pre-commit", "#!/bin/sh\nmake test\n", hooks=".githooks")
        _git("config", "core.hooksPath", ".githooks", cwd=repository)
        assert runs("git commit -m x", repository) != []

    def test_a_worktree_runs_the_hooks_of_its_repository(self, tmp_path):
        """In a worktree (a ``.git`` file), the common directory's hooks run."""
        repository = _repository(tmp_path / "r")
        _git("commit", "-q", "--allow-empty", "-m", "init", cwd=repository)
        _git("worktree", "add", "-q", str(tmp_path / "wt"), cwd=repository)
        _hook(repository, "pre-commit", "#!/bin/sh\ncargo test\n")
        assert (tmp_path / "wt" / ".git").is_file()
        assert runs("git commit -m x", tmp_path / "wt") == [("git-commit", str(tmp_path / "wt"))]

    @pytest.mark.needs_root
    def test_a_hook_another_user_owns_is_not_read(self, tmp_path):
        """A hook file another user owns is never read: the commit is no run."""
        repository = _repository(tmp_path / "r")
        _hook(repository, "pre-commit", "#!/bin/sh\npytest\n")
        assert runs("git commit -m x", repository) != []  # read while it is the caller's
        os.chown(repository / ".git" / "hooks" / "pre-commit", 65534, 65534)
        assert runs("git commit -m x", repository) == []


class TestFrameworks:
    """Hooks installed by a framework run the commands of its configuration."""

    def test_the_pre_commit_framework_runs_its_local_hooks_of_the_stage(self, tmp_path):
        """Installed by ``pre-commit install``: the local pytest hook of ``pre-push`` only."""
        repository = _repository(tmp_path / "r")
        write(
            repository / ".pre-commit-config.yaml",
            """\
            default_stages: [pre-commit]
            repos:
            -   repo: https://github.com/astral-sh/ruff-pre-commit
                rev: v0.4.0
                hooks:
                -   id: ruff
            -   repo: local
                hooks:
                -   id: mypy
                    name: mypy
                    entry: mypy
                    language: system
                -   id: tests
                    name: tests
                    entry: python -m pytest
                    language: system
                    pass_filenames: false
                    stages: [pre-push]
                    args:
                    -   -x
                    -   -q
            """,
        )
        subprocess.run(
            [sys.executable, "-m", "pre_commit", "install", "-t", "pre-commit", "-t", "pre-push"],
            cwd=repository,
            check=True,
            capture_output=True,
        )
        assert runs("git push", repository) == [("git-push", str(repository))]
        assert runs("git commit -m x", repository) == []
        # the framework's own command: the stage it is given, the hook it is given
        assert runs("pre-commit run --all-files", repository) == []
        assert runs("pre-commit run --hook-stage pre-push --all-files", repository) != []
        assert runs("pre-commit run tests --hook-stage push", repository) != []
        assert runs("pre-commit run mypy --hook-stage pre-push", repository) == []

    def test_another_repositorys_hook_runs_the_entry_the_configuration_sets(self, tmp_path):
        """A remote hook whose ``entry`` is overridden runs it; one without is not read."""
        repository = _repository(tmp_path / "r")
        write(
            repository / ".pre-commit-config.yaml",
            """\
            repos:
              - repo: https://github.com/dnephin/pre-commit-golang
                rev: v0.5.1
                hooks:
                  - id: go-vet
                    entry: go vet
                    language: system
                  - id: go-unit-tests
                    entry: go test
                    language: system
                    pass_filenames: false
                    args: ["-race", "./..."]
                  - id: go-build
            """,
        )
        assert runs("pre-commit run --all-files", repository) != []
        assert runs("pre-commit run go-unit-tests", repository) != []
        assert runs("pre-commit run go-vet --all-files", repository) == []
        assert runs("pre-commit run go-build", repository) == []

    def test_lefthook_runs_the_commands_of_its_section(self, tmp_path):
        """The hook lefthook installs runs its section's ``run``: ``go test`` at pre-push only."""
        repository = _repository(tmp_path / "r")
        write(
            repository / "lefthook.yml",
            """\
            pre-commit:
              parallel: true
              commands:
                lint:
                  run: npx eslint {staged_files}
            pre-push:
              commands:
                tests:
                  run: |
                    go vet ./...
                    go test ./...
            """,
        )
        for hook in ("pre-commit", "pre-push"):
            _hook(
                repository,
                hook,
                '#!/bin/sh\nif [ "$LEFTHOOK" = "0" ]; then exit 0; fi\n'
                f'call_lefthook()\n{{\n  lefthook "$@"\n}}\ncall_lefthook run "{hook}" "$@"\n',
            )
        assert runs("git push", repository) != []
        assert runs("git commit -m x", repository) == []
        assert runs("lefthook run pre-push", repository) == [("lefthook-run", str(repository))]
        assert runs("lefthook run pre-commit", repository) == []

    def test_husky_runs_the_hook_in_its_directory(self, tmp_path):
        """Husky 9 (``core.hooksPath .husky/_``) runs ``.husky/pre-commit``."""
        repository = _repository(tmp_path / "r")
        _hook(repository, "pre-commit", '. "${0%/*}/h"\n', hooks=".husky/_")
        write(repository / ".husky" / "pre-commit", "npm test\n")
        _git("config", "core.hooksPath", ".husky/_", cwd=repository)
        assert runs("git commit -m x", repository) != []

    def test_lint_staged_runs_its_commands(self, tmp_path):
        """A hook running ``npx lint-staged``: the commands of ``lint-staged`` in package.json."""
        repository = _repository(tmp_path / "r")
        _hook(repository, "pre-commit", "#!/bin/sh\nnpx lint-staged\n")
        write(
            repository / "package.json",
            '{"lint-staged": {"*.ts": ["eslint --fix", "jest --bail --findRelatedTests"]}}',
        )
        assert runs("git commit -m x", repository) != []
        assert runs("npx lint-staged", repository) == [("lint-staged", str(repository))]
        write(repository / "package.json", '{"lint-staged": {"*.ts": "eslint --fix"}}')
        assert runs("git commit -m x", repository) == []
        assert runs("npx lint-staged", repository) == []


def test_the_pre_filter_passes_a_commit_and_a_push_not_other_git_commands():
    """``git commit`` and ``git push`` go on to the parser; ``git status`` is answered at once."""
    assert names_git_hook("git add -A && git commit -m 'x'")
    assert names_git_hook("git push -u origin HEAD")
    assert not names_git_hook("git status && git diff")
    assert not names_git_hook("echo commit")
