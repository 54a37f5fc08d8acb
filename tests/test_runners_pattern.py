"""The runner row (``runners/pattern.py``): globs in its words, and a record that checks itself."""

from __future__ import annotations

import pytest

from runctx.runners import BUILTIN_PATTERNS, RunnerMatch, RunnerPattern, detect_runner
from runctx.runners.pattern import TASK_ROLE, directory_of_file, glob


def test_pattern_globs_in_subcommand_and_any_arg():
    """``pre*``, ``*suf`` and ``*`` in a pattern's words match by prefix, suffix and anything."""
    pattern = RunnerPattern("x", programs=("tool",), subcommand=("check*", "*", "*-all"))
    assert detect_runner(["tool", "checkout", "a", "run-all"], (pattern,)) == RunnerMatch("x")
    assert detect_runner(["tool", "check", "a", "run-some"], (pattern,)) is None
    assert detect_runner(["tool", "check", "a"], (pattern,)) is None
    anywhere = RunnerPattern("y", programs=("tool",), any_arg=("*:smoke",))
    assert detect_runner(["tool", "lint", "app:smoke"], (anywhere,)) == RunnerMatch("y")
    assert detect_runner(["tool", "--", "app:smoke"], (anywhere,)) is None


class TestRunnerPattern:
    """The pattern record: immutable, comparable, readable, validated."""

    def test_is_immutable(self):
        """Setting or deleting a field raises, so a shared table cannot be changed."""
        pattern = BUILTIN_PATTERNS[0]
        with pytest.raises(AttributeError):
            pattern.kind = "other"  # type: ignore[misc]
        with pytest.raises(AttributeError):
            del pattern.programs
        match = RunnerMatch("pytest")
        with pytest.raises(AttributeError):
            match.role = "worker"  # type: ignore[misc]

    def test_equality_and_hash_follow_the_fields(self):
        """Equal fields give equal, equally hashed patterns; any difference breaks equality."""
        a = RunnerPattern("k", programs=["b", "a"], subcommand=("t",))
        b = RunnerPattern("k", programs=("a", "b"), subcommand=["t"])
        c = RunnerPattern("k", programs=("a", "b"), subcommand=("u",))
        assert a == b
        assert hash(a) == hash(b)
        assert a != c
        assert len({a, b, c}) == 2
        assert a != "k"
        assert RunnerMatch("k") == RunnerMatch("k", "runner")
        assert RunnerMatch("k") != RunnerMatch("k", "worker")
        assert len({RunnerMatch("k"), RunnerMatch("k")}) == 1

    def test_repr_names_every_field(self):
        """The repr shows the type and every field by name, so two rows can be told apart."""
        pattern = RunnerPattern("e2e", programs=("run-e2e",), subcommand=("all",))
        shown = repr(pattern)
        assert shown.startswith("RunnerPattern(")
        for part in ("kind='e2e'", "programs=frozenset({'run-e2e'})", "subcommand=('all',)"):
            assert part in shown
        assert repr(RunnerMatch("go-test")) == "RunnerMatch(kind='go-test', role='runner')"

    @pytest.mark.parametrize(
        ("kwargs", "error"),
        [
            ({"kind": ""}, ValueError),
            ({"kind": "k", "role": "boss"}, ValueError),
            ({"kind": "k", "programs": ()}, ValueError),
            ({"kind": "k", "programs": ("",)}, ValueError),
            ({"kind": "k", "programs": (1,)}, TypeError),
        ],
    )
    def test_rejects_malformed_rows(self, kwargs, error):
        """A row without a name to match, or with non-string words, is refused at once."""
        kwargs = {"programs": ("p",), **kwargs}
        with pytest.raises(error):
            RunnerPattern(**kwargs)


@pytest.mark.parametrize(
    ("word", "pattern", "expected"),
    [
        ("test", "test", True),
        ("testx", "test", False),
        ("test:unit", "test:*", True),
        ("app:test", "*:test", True),
        ("-M:dev:test:runner", "-M*:test*", True),
        ("-M:dev", "-M*:test*", False),
        ("x devtools::test() y", "*devtools::test(*", True),
        ("ab", "a*b*c", False),
        ("abc", "a*b*c", True),
        ("aXbYc", "a*b*c", True),
    ],
)
def test_glob_stars_stand_for_any_text(word, pattern, expected):
    """A ``*`` anywhere in a row's word stands for any text."""
    assert glob(word, pattern) is expected


@pytest.mark.parametrize(
    ("value", "directory"),
    [
        ("sub/pom.xml", "sub"),
        ("pom.xml", "."),
        ("sub", "sub"),
        ("sub/", "sub"),
        ("a/b/Cargo.toml", "a/b"),
        ("/abs/tox.ini", "/abs"),
        ("..", ".."),
    ],
)
def test_a_file_option_names_its_directory(value, directory):
    """``mvn -f sub/pom.xml`` and ``mvn -f sub`` both work in ``sub``."""
    assert directory_of_file(value) == directory


def test_a_task_row_needs_a_reader_and_a_runner_row_has_none():
    """A malformed task row is refused when it is built."""
    with pytest.raises(ValueError, match="reader"):
        RunnerPattern("x", role=TASK_ROLE, programs=("x",))
    with pytest.raises(ValueError, match="only a task row"):
        RunnerPattern("x", programs=("x",), reader="make")
