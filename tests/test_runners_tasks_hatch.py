"""Hatch scripts (``runners/tasks/hatch.py``): what ``hatch run [ENV:]SCRIPT`` runs."""

from __future__ import annotations

from tasktools import runs, write


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
