"""Which test runs a shell command string starts (``shell/commands.py``), and where.

Also here: directory options judged from the directory they name, and shells
that read their commands from stdin.
"""

from __future__ import annotations

import os
import shlex

import pytest
from hooktools import claude_pre_tool_use, reply, run_hook
from hypothesis import example, given
from hypothesis import strategies as st
from shellcases import CASES, CWD, found
from strategies import PROPERTY

from runctx.fastpath.prefilter import is_probably_test_command, names_a_script
from runctx.runners import BUILTIN_PATTERNS, RunnerPattern, detect_runner
from runctx.shell.commands import (
    CHARS_SPENT,
    MAX_COMMAND_CHARS,
    MAX_DEPTH,
    MAX_STEPS,
    NOT_READ_KIND,
    TOO_NESTED,
    TestInvocation,
    test_invocations,
)
from runctx.shell.lexer import tokens


@pytest.mark.parametrize(("command", "expected"), CASES, ids=[repr(c) for c, _ in CASES])
def test_invocations_of_command(command, expected):
    """Each command string starts exactly these test runs, in these directories."""
    assert found(command) == expected


def test_invocation_argv_is_the_simple_command():
    """The argv holds the simple command's words, without assignments, redirections, quotes."""
    (invocation,) = test_invocations("cd a && A=1 py'test' -k \"x and y\" > log 2>&1", CWD)
    assert invocation == TestInvocation("pytest", ("pytest", "-k", "x and y"), f"{CWD}/a")
    (inner,) = test_invocations("bash -c 'timeout 9 make -j4 test'", CWD)
    assert inner.argv == ("timeout", "9", "make", "-j4", "test")
    assert inner.role == "runner"


def test_cd_home_and_tilde(monkeypatch):
    """``cd`` alone and ``cd ~/x`` go to $HOME."""
    monkeypatch.setenv("HOME", "/home/u")
    assert found("cd && pytest") == [("pytest", "/home/u", True)]
    assert found("cd ~/src/p && pytest") == [("pytest", "/home/u/src/p", True)]


def test_a_cd_target_holding_a_nul_is_unfollowable():
    """A cd to a target holding a NUL (no path, no user name can) leaves the cwd unknown."""
    assert found("cd ~a\x00b && pytest") == [("pytest", CWD, False)]
    assert found("cd a\x00b && pytest") == [("pytest", CWD, False)]


@pytest.mark.parametrize(
    ("command", "venvs"),
    [
        ("source .venv/bin/activate && pytest", [f"{CWD}/.venv"]),
        (". /srv/env/bin/activate; cd sub && pytest", ["/srv/env"]),
        ("cd a && source ../env/bin/activate && pytest; pytest", [f"{CWD}/env", f"{CWD}/env"]),
        ("source env/bin/activate && make test", [f"{CWD}/env"]),
        ("source env/bin/activate && deactivate && pytest", [None]),
        ("(source env/bin/activate) && pytest", [None]),
        ("source env/bin/activate | pytest", [None]),
        ('source "$VENV/bin/activate" && pytest', [None]),
        ("source env/bin/activate && source ~/.bashrc && pytest", [f"{CWD}/env"]),
        ("source env/bin/activate.fish && pytest", [None]),
        ("pytest", [None]),
    ],
)
def test_an_activated_venv_is_where_the_commands_after_it_run(command, venvs):
    """``source DIR/bin/activate`` makes DIR the venv of what follows, like a ``cd``."""
    found_venvs = [i.venv for i in test_invocations(command, CWD, resolve_tasks=False)]
    assert found_venvs == venvs


def test_cwd_is_normalised():
    """The starting cwd and every cd target are normalised."""
    assert found("cd ./a/../b/ && pytest", cwd="/w//repo/") == [("pytest", "/w/repo/b", True)]


def test_shell_strings_are_read_to_a_bounded_depth():
    """Nested shell strings are read up to MAX_DEPTH levels; deeper ones may start a run."""

    def nest(levels, inner="pytest"):
        command = inner
        for _ in range(levels):
            command = "sh -c " + shlex.quote(command)
        return command

    assert found(nest(MAX_DEPTH)) == [("pytest", CWD, True)]
    # deeper is not read: it may start a run (a warning beside a live run), and says why
    assert found(nest(MAX_DEPTH + 1)) == [(NOT_READ_KIND, CWD, True)]
    (cut,) = test_invocations(nest(MAX_DEPTH + 1), CWD)
    assert cut.unread == TOO_NESTED
    assert found(nest(MAX_DEPTH + 1, "ls") + "; pytest --version") == []


def test_substitutions_are_read_to_a_bounded_depth():
    """Nested command substitutions are read up to MAX_DEPTH levels; deeper may run tests."""

    def nest(levels):
        return "echo " + "$(echo " * (levels - 1) + "$(pytest)" + ")" * (levels - 1)

    assert found(nest(MAX_DEPTH)) == [("pytest", CWD, True)]
    assert found(nest(MAX_DEPTH + 1)) == [(NOT_READ_KIND, CWD, True)]


def test_text_past_the_char_bound_is_not_read_and_may_run_tests():
    """Past MAX_COMMAND_CHARS characters nothing is parsed: a runner named there may run.

    The part not read is given as an invocation runctx could not read, with
    why (a live run of the checkout is then named in a warning); a part that
    names no runner is nothing, and a run before the bound is found as ever.
    """
    filler = "echo " + "x" * MAX_COMMAND_CHARS
    assert found(f"{filler}\npytest") == [(NOT_READ_KIND, CWD, True)]
    (cut,) = test_invocations(f"{filler}\npytest", CWD)
    assert cut.unread == CHARS_SPENT
    assert found(f"{filler}\nls") == []
    assert found(f"pytest\n{filler}") == [("pytest", CWD, True)]


def test_same_table_as_detect_runner():
    """A custom table replaces the builtin one here too: there is no second list of runners."""
    table = (RunnerPattern("e2e", programs=("run-e2e",)),)
    assert found("cd web && run-e2e --all; pytest", patterns=table) == [("e2e", f"{CWD}/web", True)]
    assert found("run-e2e") == []


@pytest.mark.parametrize(
    "argv",
    [
        ["pytest", "-x"],
        ["python3.11", "-u", "-X", "dev", "-m", "pytest"],
        ["/abs/.venv/bin/python3", "/abs/.venv/bin/pytest", "-x"],
        ["uv", "run", "--with", "x y", "pytest"],
        ["env", "-i", "A=1", "timeout", "60", "cargo", "nextest", "run"],
        ["npx", "jest", "--ci"],
        ["yarn", "test:unit"],
        ["make", "-C", "d", "check"],
        ["./gradlew", ":app:test"],
        ["bundle", "exec", "rspec"],
        ["python", "-c", "import pytest"],
        ["pytest", "--collect-only"],
        ["echo", "pytest"],
        ["make", "build"],
    ],
)
def test_agrees_with_detect_runner(argv):
    """A quoted argv as a command string gives what detect_runner gives for the argv."""
    match = detect_runner(argv)
    result = test_invocations(shlex.join(argv), CWD, resolve_tasks=False)
    assert [(i.kind, i.role, i.argv) for i in result] == (
        [] if match is None else [(match.kind, match.role, tuple(argv))]
    )


class TestTestInvocation:
    """The invocation record."""

    def test_value_semantics(self):
        """Invocations compare and hash by value, refuse changes, and read like their call."""
        a = TestInvocation("pytest", ["pytest", "-x"], "/w")
        b = TestInvocation("pytest", ("pytest", "-x"), "/w")
        assert a == b
        assert hash(a) == hash(b)
        assert a != TestInvocation("pytest", ("pytest", "-x"), "/w", cwd_known=False)
        assert repr(a) == (
            "TestInvocation(kind='pytest', argv=('pytest', '-x'), cwd='/w', cwd_known=True, "
            "role='runner', venv=None, unread=None)"
        )
        with pytest.raises(AttributeError):
            a.cwd = "/x"  # type: ignore[misc]


# -- properties: any command string ------------------------------------------------

SHELL_PIECES = st.sampled_from(
    [
        "pytest",
        "python -m pytest",
        "cd ",
        "&&",
        "||",
        ";",
        "|",
        "$(",
        ")",
        "`",
        "'",
        '"',
        "\\",
        "\n",
        "bash -c ",
        "env X=1 ",
        "timeout 5 ",
        "uv run ",
        "tox",
        "make test",
        "{",
        "}",
        "(",
        "<<EOF\n",
        "EOF",
        "#",
        " ",
        "npm test",
        "go test ./...",
        "pushd /tmp",
        "popd",
        "cd -",
        "..",
        "/",
        "$HOME",
        "*",
        "\x00",
        "\x1b[2J",
        "\udcff",
    ]
)
commands = st.one_of(
    st.text(max_size=300),
    st.lists(st.one_of(SHELL_PIECES, st.text(max_size=8)), max_size=60).map("".join),
)


@PROPERTY
@given(commands, st.sampled_from(["/", "/tmp/x", "/a b/c"]))
@example("cd " * 5000 + "pytest", "/")
@example("$(" * 3000 + "pytest", "/")
@example("bash -c '" * 100 + "pytest", "/")
def test_a_shell_command_string_of_any_text_gives_test_runs(command, cwd):
    """Any command string gives a tuple of test invocations, never an exception."""
    found = test_invocations(command, cwd, BUILTIN_PATTERNS)
    assert isinstance(found, tuple)
    assert all(isinstance(invocation, TestInvocation) for invocation in found)
    assert all(os.path.isabs(invocation.cwd) for invocation in found)
    if found:  # the pre-filter lets through every command that can start a run
        assert is_probably_test_command(command, BUILTIN_PATTERNS) or names_a_script(command)


# -- directory options, judged from the directory they name --------------------------------
# ``make -C DIR``, ``--directory=DIR``, ``pnpm -C``, ``go -C``, ``yarn --cwd``,
# ``npm --prefix`` and wrappers' own (``env -C``, ``git -C``): the run works in
# DIR, so the hook judges it from DIR's checkout, like ``cd DIR &&``. Parsed from
# text first, then answered by the real hook beside a real run.

DIR_CWD = "/w/a/proj"


@pytest.mark.parametrize(
    ("command", "cwd"),
    [
        ("make -C ../../b/proj test", "/w/b/proj"),
        ("make --directory=../../b/proj test", "/w/b/proj"),
        ("make --directory ../../b/proj check", "/w/b/proj"),
        ("make -C /w/b/proj test", "/w/b/proj"),
        ("pnpm -C ../web test", "/w/a/web"),
        ("pnpm --dir=../web run test:unit", "/w/a/web"),
        ("go -C ../svc test ./...", "/w/a/svc"),
        ("yarn --cwd ../web test", "/w/a/web"),
        ("npm --prefix ../web test", "/w/a/web"),
        ("npm --prefix=../web run test", "/w/a/web"),
        ("cd sub && make -C deeper test", "/w/a/proj/sub/deeper"),
        ("git -C ../other bisect run pytest -x", "/w/a/other"),
        ("env -C ../other pytest", "/w/a/other"),
        ("./gradlew -p android test", "/w/a/proj/android"),
        ("mvn -f ../api/pom.xml verify", "/w/a/api"),
        ("cargo test --manifest-path ../core/Cargo.toml", "/w/a/core"),
        ("make -C../../b/proj test", "/w/b/proj"),
        ("make -j4 -C/w/b/proj check", "/w/b/proj"),
        ("mvn -f../api/pom.xml verify", "/w/a/api"),
        ("env -C../other pytest", "/w/a/other"),
        ("sudo -D../other pytest", "/w/a/other"),
        ("parallel --wd ../other pytest ::: tests/a", "/w/a/other"),
    ],
)
def test_a_directory_option_moves_the_run(command, cwd):
    """The invocation's cwd is the directory the option names, relative to where it starts."""
    found = test_invocations(command, DIR_CWD)
    assert [i.cwd for i in found] == [cwd]
    assert all(i.cwd_known for i in found)


@pytest.mark.parametrize(
    ("command", "runs"),
    [
        ('parallel ::: "pytest tests/a" "pytest tests/b"', [("pytest", ""), ("pytest", "")]),
        ("parallel ::: 'cd sub && pytest' 'make test'", [("pytest", "/sub"), ("make-test", "")]),
        ("parallel -kv ::: 'echo a' 'pytest -x'", [("pytest", "")]),
        ("parallel pytest ::: tests/a tests/b", [("pytest", "")]),
        ("parallel -j4 pytest {} ::: tests/*", [("pytest", "")]),
        ("parallel -j 4 --halt now,fail=1 pytest ::: a", [("pytest", "")]),
        ("ls tests | parallel pytest", [("pytest", "")]),
        ("find tests -name 'test_*.py' | parallel -j4 pytest {}", [("pytest", "")]),
        ("parallel ::: 'echo pytest' ls", []),
        ("parallel echo ::: pytest", []),
        ("parallel --dry-run pytest ::: a", []),
        ("parallel :::: commands.txt", []),
    ],
)
def test_gnu_parallel_runs_its_command_or_each_command_line(command, runs):
    """The command before ``:::``, or with none each command line after it in a shell of its own."""
    found = test_invocations(command, DIR_CWD)
    assert [(i.kind, i.cwd) for i in found] == [(kind, DIR_CWD + sub) for kind, sub in runs]


@pytest.mark.parametrize("command", ["mvn -fae test", "mvn -ff verify", "make -Cfoo test"])
def test_a_joined_short_option_is_a_directory_only_when_it_is_plainly_a_path(command):
    """``mvn -fae`` is an option of its own: only ``-C../b``, ``-C/abs``, ``-C./x`` move the run."""
    found = test_invocations(command, DIR_CWD)
    assert [i.cwd for i in found] == [DIR_CWD]


def test_a_directory_that_is_not_plain_text_is_a_guess():
    """``make -C "$DIR" test``: the directory is not known, and the invocation says so."""
    found = test_invocations('make -C "$DIR" test', DIR_CWD)
    assert [(i.kind, i.cwd_known) for i in found] == [("make-test", False)]


def test_make_in_another_checkout_is_judged_from_there(world):
    """From the idle checkout, ``make -C BUSY test`` faces BUSY's live run: it is refused."""
    command = f"make -C {world.busy} test"
    answer = reply(run_hook("claude", claude_pre_tool_use(command, world.idle)))
    output = answer["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert f"pid {world.run.pid}" in output["permissionDecisionReason"]


@pytest.mark.parametrize(
    "spelling", ["make -C {} test", "make --directory={} test", "make -C{} test"]
)
def test_make_into_an_idle_checkout_goes_ahead(world, spelling):
    """From the busy checkout, a run made in the idle one is judged there: a note, no refusal."""
    command = spelling.format(world.idle)
    answer = reply(run_hook("claude", claude_pre_tool_use(command, world.busy)))
    output = answer["hookSpecificOutput"]
    assert "permissionDecision" not in output
    assert "foreign test run" in output["additionalContext"]
    assert "not this checkout's" in output["additionalContext"]


# -- shells that read their commands from stdin ---------------------------------------------
# ``echo pytest | sh``, ``bash <<EOF``: the text a shell reads from a pipe (what
# ``echo`` or ``printf`` writes), a here-document or a here-string is read as
# commands; the same text fed to any other program is data.

STDIN_CWD = "/w/proj"


def kinds(command):
    """The kinds of the test runs ``command`` starts."""
    return [i.kind for i in test_invocations(command, STDIN_CWD)]


@pytest.mark.parametrize(
    "command",
    [
        "echo pytest | sh",
        "echo 'pytest -x' | bash -s",
        "printf 'cd sub\\npytest\\n' | sh -e",
        "bash <<EOF\npytest -x\nEOF",
        "sh -s <<'SCRIPT'\n  cd tests && python -m pytest\nSCRIPT\necho done",
        "bash <<< 'pytest -q'",
    ],
)
def test_a_shell_reading_commands_from_stdin_runs_them(command):
    """What a shell reads on stdin is read as commands."""
    assert kinds(command) == ["pytest"]


@pytest.mark.parametrize(
    "command",
    [
        "echo pytest | cat",
        "echo pytest | sh script.sh",
        "echo pytest | bash -c 'read x'",
        "cat <<EOF > run.sh\npytest\nEOF",
        "grep -c pytest <<< 'pytest'",
        "echo pytest",
    ],
)
def test_the_same_text_as_data_is_no_run(command):
    """Text piped or redirected into anything but a shell reading stdin is data."""
    assert kinds(command) == []


@pytest.mark.parametrize(
    "command",
    [
        "sudo -u postgres bash <<EOF\npytest -x\nEOF",
        "echo pytest | sudo sh",
        "timeout 600 bash -s <<< 'pytest -q'",
        "su postgres <<-EOF\n\tpytest\nEOF",
        "su - postgres <<EOF\npytest\nEOF",
        "nice runuser -u ci <<EOF\npytest\nEOF",
        "sudo -i <<'EOF'\npytest\nEOF",
    ],
)
def test_a_shell_behind_wrappers_reads_what_is_fed_to_it(command):
    """A shell a wrapper starts (or ``su``'s, given no command) reads the here-document."""
    assert kinds(command) == ["pytest"]


@pytest.mark.parametrize(
    "command",
    [
        "sudo tee /etc/motd <<EOF\npytest\nEOF",
        "sudo -u postgres bash <<EOF\nls -la\nEOF",
        "ssh ci-host bash <<EOF\npytest\nEOF",  # another machine, another checkout
        "sudo -u postgres psql <<EOF\nselect 1;\nEOF",
    ],
)
def test_text_fed_through_wrappers_to_no_shell_is_data(command):
    """What a wrapped program that is no shell reads, or a shell on another host, is no run."""
    assert kinds(command) == []


def test_a_wrapped_shell_in_a_container_is_where_the_container_runs_it():
    """``docker exec -i app sh <<EOF``: its commands are placed as ``docker exec app CMD``'s."""
    fed = test_invocations("docker exec -i app sh <<EOF\ngo test ./...\nEOF", STDIN_CWD)
    given = test_invocations("docker exec -i app go test ./...", STDIN_CWD)
    assert [(i.kind, i.cwd, i.cwd_known) for i in fed] == [
        (i.kind, i.cwd, i.cwd_known) for i in given
    ]
    assert [i.kind for i in fed] == ["go-test"]


# -- loops -----------------------------------------------------------------------------------
# ``for d in core tests; do make -C $d check; done``: a body command that uses the
# loop's variable is read once per value the header lists.


def test_a_loop_body_is_read_with_each_value_of_its_variable(tmp_path):
    """``make -C $d`` over ``for d in lib tests``: the Makefile of each directory decides."""
    for name, recipe in (("lib", "\tcc -c lib.c\n"), ("tests", "\t./run_all.sh\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "Makefile").write_text(f"all:\n{recipe}")
    (tmp_path / "tests" / "run_all.sh").write_text("#!/bin/sh\npytest\n")
    (tmp_path / "tests" / "run_all.sh").chmod(0o755)
    looped = "for d in lib tests; do make -C $d all; done"
    assert [i.kind for i in test_invocations(looped, str(tmp_path))] == ["make-target"]
    assert test_invocations("for d in lib; do make -C ${d} all; done", str(tmp_path)) == ()
    # values not known (a substitution): the body's directory is not known either
    assert test_invocations("for d in $(ls); do make -C $d all; done", str(tmp_path)) == ()


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("for t in unit e2e; do npm run test:$t; done", ["npm-test", "npm-test"]),
        ("for t in lint build; do npm run $t; done", []),
        ("for d in a b; do echo $d; done; pytest", ["pytest"]),
        ("while read f; do pytest $f; done < list", ["pytest"]),
    ],
)
def test_loop_values_are_what_the_body_runs(command, expected):
    """Each value the header lists is put where the body uses the variable."""
    assert kinds(command) == expected


def test_a_loop_body_read_again_counts_against_the_commands_steps():
    """Past the steps a command may take, the body is read once, as written: no more work."""
    tail = "; for d in a b; do pytest $d; done"
    fitting = []
    for count in range(MAX_STEPS // 4 - 40, MAX_STEPS // 4 + 40):
        command = "echo " + "x " * count + tail
        _found, left, read_to = tokens(command, MAX_STEPS)
        if read_to == len(command):
            fitting.append((left, command))
    least_left, last = min(fitting)
    assert least_left < 2 <= max(fitting)[0]  # reading `pytest $d` again takes 2 steps
    assert [i.kind for i in test_invocations(last, "/w")] == ["pytest"]
    roomy = max(fitting)[1]
    assert [i.kind for i in test_invocations(roomy, "/w")] == ["pytest", "pytest"]


def test_a_stdin_script_changes_directory_inside_its_shell_only():
    """``cd`` in the piped text moves that text's commands, not the next command."""
    found = test_invocations("printf 'cd sub\\npytest\\n' | sh; pytest", STDIN_CWD)
    assert [i.cwd for i in found] == [f"{STDIN_CWD}/sub", STDIN_CWD]


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("echo 'requireNamespace(\"devtools\"); devtools::test()' | R --vanilla", "r-check"),
        ("echo 'using Pkg; Pkg.test()' | julia --project", "julia-test"),
        ("R --vanilla <<EOF\ndevtools::check()\nEOF", "r-check"),
    ],
)
def test_an_interpreter_reading_code_from_stdin_runs_it(command, kind):
    """R and julia read their code from stdin when given none: that code decides."""
    assert kinds(command) == [kind]


def test_the_same_code_into_another_program_is_data():
    """The same R code piped into ``cat`` runs nothing."""
    assert kinds("echo 'devtools::test()' | cat") == []


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("$BUILD_CMD test --locked --target=x86_64", True),
        ("${CARGO} test --workspace", True),
        ('"$GO" test ./...', True),
        ("echo $X test", False),
        ("$EDITOR test.txt", False),
        ("$X tests", False),
        ("$(which cargo) build", False),
        ("timeout 600 $CARGO test", True),
        ("env $CARGO test --release", True),
        ("timeout 600 $CARGO build", False),
    ],
)
def test_a_program_named_by_a_variable_asked_to_test_is_a_run(command, expected):
    """``$CARGO test``: the variable is not expanded, its ``test`` subcommand makes the run."""
    assert bool(test_invocations(command, CWD)) is expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ('export FILTER="-4 --gtest_filter=-*Live*"\n./out/ares $FILTER', True),
        ("./out/ares $FILTER", False),  # no value given: the options are not known
        ('ARGS="--collect-only -q"; pytest $ARGS', False),
        ('ARGS="-x -q"; pytest $ARGS', True),
        ("T=lint; make $T", False),
        ("T=test; make ${T}", True),
    ],
)
def test_a_variable_the_command_assigned_is_put_in_among_the_arguments(tmp_path, command, expected):
    """``./arestest $FILTER``: the value the text gave ``FILTER`` decides as written out."""
    (tmp_path / "Makefile").write_text("lint:\n\truff check .\ntest:\n\tpytest\n")
    assert bool(test_invocations(command, str(tmp_path))) is expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ('runner="vendor/bin/pest"\n$runner -c phpunit.xml', True),
        (
            (
                'if [[ -x vendor/bin/pest ]]; then\n  runner="vendor/bin/pest"\nelse\n'
                '  runner="vendor/bin/phpunit"\nfi\n$runner -c phpunit.xml'
            ),
            True,
        ),
        ('CMD="pytest -x"; $CMD tests', True),
        ("export TESTER=jest\n${TESTER} --ci", True),
        ("LINT=ruff; $LINT check .", False),
        ("(R=pytest); $R", False),  # a subshell's assignment ends with it
        ('R=pytest bash -c "echo"; $R', False),  # bash's environment only
        ("X=$(which pytest); $X", False),  # a value made at run time: not known
        ("$UNSET check .", False),
    ],
)
def test_a_variable_the_command_assigned_runs_its_value(command, expected):
    """``runner=vendor/bin/pest`` then ``$runner``: each value the text gave it, then the rest."""
    assert bool(test_invocations(command, CWD)) is expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("$PYTHON -m pytest -sv test/test-suite", True),
        ("${PY3} -m unittest discover", True),
        ("$NODE_BIN --test", True),
        ("$PYTHON -m mypy src", False),
        ("$PYTHON setup.py build", False),
        ("$PYTHON -c 'import pytest'", False),
    ],
)
def test_an_interpreter_named_by_a_variable_runs_as_that_interpreter(command, expected):
    """``$PYTHON -m pytest``: the variable's name says the interpreter, which decides."""
    assert bool(test_invocations(command, CWD)) is expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("$SUDO make test", True),
        ("${XVFB} npm test", True),
        ('$(echo "xvfb-run --auto-servernum") npm run test --silent', True),
        ("`echo nice` pytest -q", True),
        ("timeout 60 $PREFIX pytest", True),
        ("$SUDO make install", False),
        ("$EDITOR notes.txt", False),
        ("$PAGER tests/README.md", False),
        ("$EDITOR test_x.py", False),
        ("$EDITOR tests/test_x.py", False),
        ("$CC -o test test.c", False),
        ("$A $B pytest", False),  # two expansions: what the first runs is not guessed
    ],
)
def test_an_expansion_in_front_of_a_command_runs_it(command, expected):
    """``$SUDO make test``: a program named by an expansion, then a program runctx knows.

    The expansion is read as the prefix that runs the command after it (a
    wrapper such as ``sudo`` or ``xvfb-run``), which decides.
    """
    assert bool(test_invocations(command, CWD)) is expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("env $(cat .env | xargs) pytest -x", True),
        ("env `grep -v '^#' .env` npm test", True),
        ("env $(cat .env | xargs)", False),
        ("env $(cat .env | xargs) ruff check .", False),
    ],
)
def test_assignments_from_a_substitution_before_the_command_are_skipped(command, expected):
    """``env $(cat .env | xargs) pytest``: the substitution holds assignments, pytest runs."""
    assert bool(test_invocations(command, CWD)) is expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("hyperfine 'pytest -q'", True),
        ("hyperfine --warmup 3 --runs 10 --export-json out.json 'npm test'", True),
        ("hyperfine --prepare 'make clean' 'go test ./...'", True),
        ("hyperfine 'sleep 1'", False),
        ("hyperfine --help 'pytest'", False),
    ],
)
def test_a_benchmark_of_a_test_command_runs_it(command, expected):
    """The benchmark tool runs the commands it is given, many times (its --prepare aside)."""
    assert bool(test_invocations(command, CWD)) is expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("$(which pytest) -q", True),
        ('"$(command -v pytest)" -x tests', True),
        ("`which pytest` -q", True),
        ("$(type -P npm) test", True),
        ("timeout 600 $(which python3) -m pytest", True),
        ("$(which ruff) check .", False),
        ("cat $(which pytest)", False),
        ("$(which-pytest) -q", False),
    ],
)
def test_a_program_looked_up_on_the_path_is_that_program(command, expected):
    """``$(which pytest)`` expands to pytest's path: the program is pytest."""
    assert bool(test_invocations(command, CWD)) is expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("python -c \"import pytest; pytest.main(['-q', 'tests'])\"", True),
        ('python3 -c "import pytest,sys; sys.exit(pytest.console_main())" -x', True),
        ("python -c \"import unittest; unittest.main(module='tests.test_api')\"", True),
        ('python -c "import pytest; print(pytest.__version__)"', False),
        ('python -c "import mymain; mymain.main()"', False),
    ],
)
def test_python_code_calling_a_runners_entry_is_a_run(command, expected):
    """``pytest.main()`` and ``unittest.main()`` from ``python -c`` run the suite."""
    assert bool(test_invocations(command, CWD)) is expected
