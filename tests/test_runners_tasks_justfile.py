"""Justfiles (``runners/tasks/justfile.py``): what ``just NAME`` runs."""

from __future__ import annotations

from tasktools import runs, write


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
