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


# --- clusters of short flags: ``tox -av`` is ``tox -a -v`` ---


@pytest.mark.parametrize(
    "argv",
    [
        ["tox", "-av"],
        ["tox", "-lv"],
        ["tox", "-qa"],
        ["python", "-m", "tox", "-va"],
        ["make", "-nk", "test"],
        ["rake", "-vT", "test"],
        ["nox", "-ls"],
        ["just", "-ln"],
        ["task", "-la"],
        ["node", "--test", "-pe", "1"],
        ["perl", "-wc", "t/basic.t"],
    ],
)
def test_a_cluster_holding_a_no_run_flag_is_no_run(argv):
    """A cluster of short flags counts as its flags: one that lists or dry-runs makes no run."""
    assert detect_runner(argv) is None


@pytest.mark.parametrize(
    ("argv", "kind"),
    [
        (["tox", "-vv"], "tox"),
        (["tox", "-qe", "py311"], "tox"),
        (["pytest", "-kshow"], "pytest"),
        (["pytest", "-rh"], "pytest"),
        (["pytest", "-k", "show_help"], "pytest"),
        (["pytest", "-n4"], "pytest"),
        (["pytest", "-xvs", "-n", "auto"], "pytest"),
        (["make", "-kj", "4", "test"], "make-test"),
        (["make", "-Otarget", "test"], "make-test"),
        (["go", "test", "-count=1", "./..."], "go-test"),
        (["go", "test", "-cover", "./..."], "go-test"),
        (["sbt", "-batch", "test"], "sbt-test"),
        (["dotnet", "test", "-tl"], "dotnet-test"),
        (["jest", "-tshould"], "jest"),
        (["mocha", "-Rdot"], "mocha"),
        (["mvn", "-fae", "test"], "mvn-test"),
        (["cargo", "test", "-qp", "app"], "cargo-test"),
    ],
)
def test_a_cluster_is_read_the_getopt_way_and_values_stay_values(argv, kind):
    """A value flag ends a cluster, a digit starts a value, and long options stay whole."""
    assert detect_runner(argv) == RunnerMatch(kind)


@pytest.mark.parametrize(
    ("argv", "kind"),
    [
        (["busted", "-Xhelper", "lua_dir=/usr"], "busted"),
        (["cabal", "test", "-fhttp"], "haskell-test"),
        (["rspec", "-Ihelpers"], "rspec"),
        (["phpunit", "-dhtml_errors=1"], "phpunit"),
    ],
)
def test_a_word_long_cluster_after_an_unknown_letter_may_be_an_option_and_its_value(argv, kind):
    """An option the row does not know, its value joined: a help letter in the value is none."""
    assert detect_runner(argv) == RunnerMatch(kind)


def test_a_short_cluster_after_an_unknown_letter_is_still_read_as_flags():
    """``pytest -vh`` is ``-v -h``: help, no run; the same letters in a long word are a value."""
    assert detect_runner(["pytest", "-vh"]) is None
    assert detect_runner(["pytest", "-xvh"]) is None
    row = RunnerPattern("x", programs=("tool",), not_with=("-h",))
    assert detect_runner(["tool", "-ah"], (row,)) is None
    assert detect_runner(["tool", "-ahelp"], (row,)) == RunnerMatch("x")
    assert detect_runner(["tool", "-hv"], (row,)) is None  # the help letter first: no doubt


def test_the_last_flag_of_a_cluster_takes_the_next_word():
    """``tool -qe py run``: ``-e`` takes ``py``, so ``run`` is the subcommand."""
    row = RunnerPattern("x", programs=("tool",), subcommand=("run",), value_options=("-e",))
    assert detect_runner(["tool", "-qe", "py", "run"], (row,)) == RunnerMatch("x")
    assert detect_runner(["tool", "-eq", "run"], (row,)) == RunnerMatch("x")
    assert detect_runner(["tool", "-qx", "py", "run"], (row,)) is None


def test_a_joined_value_is_checked_as_option_and_value():
    """``behave -fhelp`` is ``-f help``: refused like ``--format=help``."""
    row = RunnerPattern("x", programs=("tool",), value_options=("-f",), not_with=("-f=help",))
    assert detect_runner(["tool", "-vfhelp"], (row,)) is None
    assert detect_runner(["tool", "-vfpretty"], (row,)) == RunnerMatch("x")


def test_a_row_with_single_dash_long_options_or_no_program_reads_no_clusters():
    """``-count`` is one option where ``-list`` is; an unknown test binary's options are its own."""
    go_like = RunnerPattern("x", programs=("tool",), not_with=("-c", "-list"))
    assert go_like.short_clusters is False
    assert detect_runner(["tool", "-count=1"], (go_like,)) == RunnerMatch("x")
    joined = RunnerPattern("y", programs=("tool",), value_options=("-D",), not_with=("-DskipAll",))
    assert joined.short_clusters is True
    globbed = RunnerPattern("z", program_globs=("*_test",), not_with=("-l",))
    assert globbed.short_clusters is False
    assert detect_runner(["unit_test", "-log_level=all"], (globbed,)) == RunnerMatch("z")
    told = RunnerPattern("w", programs=("tool",), not_with=("-h",), short_clusters=False)
    assert detect_runner(["tool", "-batch"], (told,)) == RunnerMatch("w")


def _accepted_argv(row: RunnerPattern) -> list[str] | None:
    """An argv of ``row``'s first program that it accepts, from its own words, or None."""
    if not row.programs or row.with_options or row.path_suffixes:
        return None
    words = [*row.subcommand, *row.any_arg[:1]]
    if any("*" in word for word in words):
        return None
    argv = [row.program_order[0], *words]
    return argv if row.read(argv[0], argv[1:]) is not None else None


def test_every_builtin_row_refuses_its_short_no_run_flags_inside_a_cluster():
    """For each builtin row reading clusters, each short ``not_with`` flag refuses in one too."""
    checked = 0
    for row in BUILTIN_PATTERNS:
        argv = _accepted_argv(row) if row.short_clusters else None
        if argv is None:
            continue
        options = row.value_options | row.number_options
        filler = next(
            f"-{c}" for c in "qsvxbkuwzy" if f"-{c}" not in options and not row.refuses(f"-{c}")
        )
        for flag in row.not_with:
            if len(flag) == 2 and flag[0] == "-" and flag[1].isalpha():
                assert row.read(argv[0], [*argv[1:], filler + flag[1]]) is None, (row.kind, flag)
                assert row.read(argv[0], [*argv[1:], flag + filler[1]]) is None, (row.kind, flag)
                checked += 1
    assert checked > 50


def test_make_takes_a_number_after_j_and_l_when_there_is_one():
    """``make -j 4 test`` and ``make -j test``: ``-j`` takes a number, never a target."""
    row = RunnerPattern("x", programs=("make",), subcommand=("verify",), number_options=("-j",))
    assert detect_runner(["make", "-j", "4", "verify"], (row,)) == RunnerMatch("x")
    assert detect_runner(["make", "-j", "verify"], (row,)) == RunnerMatch("x")
    assert detect_runner(["make", "-sj", "8", "verify"], (row,)) == RunnerMatch("x")
    assert detect_runner(["make", "-j", "4", "lint"], (row,)) is None
