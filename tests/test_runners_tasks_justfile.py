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


class TestJustfileVariables:
    """A recipe's ``{{ NAME }}``, and an exported variable's ``$NAME``, are the value."""

    JUSTFILE = """\
        set shell := ["bash", "-c"]
        TOOL := 'stack'
        RUNNER := TOOL + ' exec -- ' + "shelltest" # joined by +
        FROM_ENV := env_var('RUNNER')
        export CARGO := 'cargo'
        HIDDEN := 'pytest'

        functest *OPTS:
            time (({{ RUNNER }} --execdir {{OPTS}} tests/ && echo PASSED) || false)

        unit:
            $CARGO test --workspace

        build:
            ${CARGO} build

        unset:
            {{FROM_ENV}} -x

        hidden:
            $HIDDEN -x
        """

    def test_an_interpolated_variable_is_its_value(self, tmp_path):
        """``RUNNER`` joins a variable and two literals: ``stack exec -- shelltest``."""
        write(tmp_path / "justfile", self.JUSTFILE)
        assert runs("just functest --hide", tmp_path) == [("just-recipe", str(tmp_path))]

    def test_an_exported_variable_is_its_value_in_the_shell(self, tmp_path):
        """``export CARGO``: ``$CARGO test`` is ``cargo test``; ``${CARGO} build`` builds."""
        write(tmp_path / "justfile", self.JUSTFILE)
        assert runs("just unit", tmp_path) == [("just-recipe", str(tmp_path))]
        assert runs("just build", tmp_path) == []

    def test_a_value_not_read_or_not_exported_is_left_as_it_is(self, tmp_path):
        """``env_var(…)`` is not evaluated; ``$HIDDEN`` is empty in the shell: no run either way."""
        write(tmp_path / "justfile", self.JUSTFILE)
        assert runs("just unset", tmp_path) == []
        assert runs("just hidden", tmp_path) == []

    def test_set_export_exports_every_variable(self, tmp_path):
        """Under ``set export``, ``$HIDDEN`` is ``pytest``."""
        write(
            tmp_path / "justfile",
            self.JUSTFILE.replace("set shell", "set export\n        set shell"),
        )
        assert runs("just hidden", tmp_path) == [("just-recipe", str(tmp_path))]


def test_the_words_after_a_recipe_with_parameters_are_its_arguments(tmp_path):
    """``just e2e chromium -k slow``: ``chromium`` and ``slow`` are ``e2e``'s, no recipes.

    A recipe of fixed parameters takes as many words; a variadic one all of
    them; one without parameters leaves the next word to name a recipe.
    """
    write(
        tmp_path / "justfile",
        """\
        @e2e browser="chromium" *options:
            uv run pytest tests/e2e --browser {{browser}} {{options}}
        build target:
            cargo build --bin {{target}}
        lint:
            ruff check .
        unit:
            pytest tests/unit
        """,
    )
    assert runs("just e2e chromium -k slow", tmp_path) == [("just-recipe", str(tmp_path))]
    assert runs("just build unit", tmp_path) == []
    assert runs("just lint unit", tmp_path) == [("just-recipe", str(tmp_path))]


def test_a_parameter_default_is_one_parameter_whatever_it_holds(tmp_path):
    """A default may hold a blank, a colon or parentheses; it is still one parameter.

    ``just check fast unit``: ``check`` takes one word, so ``unit`` is the next
    recipe; a header whose default holds a colon still has its own body.
    """
    write(
        tmp_path / "justfile",
        """\
        check mode="fast and strict":
            ruff check --select {{mode}}
        site url="http://localhost:8000" extra=(mode + ":x"):
            pytest tests/site --base-url {{url}}
        unit:
            pytest tests/unit
        """,
    )
    assert runs("just check fast unit", tmp_path) == [("just-recipe", str(tmp_path))]
    assert runs("just check fast", tmp_path) == []
    assert runs("just site http://example.test strict", tmp_path) == [
        ("just-recipe", str(tmp_path))
    ]
    assert runs("just check fast site", tmp_path) == [("just-recipe", str(tmp_path))]
