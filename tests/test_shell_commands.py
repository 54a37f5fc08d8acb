"""Tests for runctx.shellcmd: which test runs a shell command string starts."""

from __future__ import annotations

import random
import shlex
import time

import pytest

from runctx.runners import RunnerPattern, detect_runner
from runctx.shell.commands import (
    MAX_COMMAND_CHARS,
    MAX_DEPTH,
    MAX_STEPS,
    TestInvocation,
    is_probably_test_command,
    test_invocations,
)

CWD = "/w/repo"


def found(command, cwd=CWD, patterns=None):
    """(kind, cwd, cwd_known) of every invocation, for compact expectations."""
    if patterns is None:
        result = test_invocations(command, cwd)
    else:
        result = test_invocations(command, cwd, patterns)
    return [(i.kind, i.cwd, i.cwd_known) for i in result]


# (command, [(kind, cwd, cwd_known), ...]) -- what a shell would start, and where.
CASES = [
    ("pytest", [("pytest", CWD, True)]),
    ("pytest -x tests/", [("pytest", CWD, True)]),
    ("python -m pytest", [("pytest", CWD, True)]),
    ("VAR=1 OTHER='a b' uv run pytest -x", [("pytest", CWD, True)]),
    ("env -i A=1 timeout 60 nice -n 5 pytest", [("pytest", CWD, True)]),
    ("  \t pytest  ", [("pytest", CWD, True)]),
    # lists, pipelines, background, newlines
    ("ruff check . && pytest", [("pytest", CWD, True)]),
    ("pytest || echo failed", [("pytest", CWD, True)]),
    ("make lint; make test", [("make-test", CWD, True)]),
    ("pytest 2>&1 | tail -50", [("pytest", CWD, True)]),
    ("pytest |& tee log", [("pytest", CWD, True)]),
    ("pytest & npm test & wait", [("pytest", CWD, True), ("npm-test", CWD, True)]),
    ("ls\npytest\ncargo test", [("pytest", CWD, True), ("cargo-test", CWD, True)]),
    ("pytest \\\n  -x \\\n  tests/", [("pytest", CWD, True)]),
    ("pyt\\\nest", [("pytest", CWD, True)]),
    # quoting
    ("py'test' -x", [("pytest", CWD, True)]),
    ('"pytest" -k "a and b"', [("pytest", CWD, True)]),
    ("$'pytest' -q", [("pytest", CWD, True)]),
    ("p\\ytest", [("pytest", CWD, True)]),
    ("'/abs path/.venv/bin/pytest' -x", [("pytest", CWD, True)]),
    # redirections are no words of the command
    ("pytest > out.txt 2>&1 < /dev/null", [("pytest", CWD, True)]),
    ("> out.txt pytest", [("pytest", CWD, True)]),
    ("pytest &> log.txt", [("pytest", CWD, True)]),
    ("cat <<< pytest", []),
    ("echo x > pytest", []),
    # reserved words and compound commands
    ("if true; then make test; fi", [("make-test", CWD, True)]),
    ("while false; do pytest; done", [("pytest", CWD, True)]),
    ("for f in a b; do pytest $f; done", [("pytest", CWD, True)]),
    ("for pytest in a b; do echo $pytest; done", []),
    ("{ pytest; }", [("pytest", CWD, True)]),
    ("! pytest", [("pytest", CWD, True)]),
    ("time pytest", [("pytest", CWD, True)]),
    ("case $x in a) pytest;; esac", [("pytest", CWD, True)]),
    ("[ -f x ] && go test ./...", [("go-test", CWD, True)]),
    # cd moves the cwd of what follows
    ("cd pkg && pytest", [("pytest", f"{CWD}/pkg", True)]),
    ("cd pkg; cd ../other && pytest", [("pytest", f"{CWD}/other", True)]),
    ("cd .. && pytest", [("pytest", "/w", True)]),
    ("cd /abs/x && pytest", [("pytest", "/abs/x", True)]),
    ("cd -P pkg && pytest", [("pytest", f"{CWD}/pkg", True)]),
    ("cd -- pkg && pytest", [("pytest", f"{CWD}/pkg", True)]),
    ("cd 'my dir' && pytest", [("pytest", f"{CWD}/my dir", True)]),
    ("cd a; cd b; cd -; pytest", [("pytest", f"{CWD}/a", True)]),
    (
        "pushd sub && pytest && popd && pytest",
        [("pytest", f"{CWD}/sub", True), ("pytest", CWD, True)],
    ),
    ("env -C sub pytest; pytest", [("pytest", f"{CWD}/sub", True), ("pytest", CWD, True)]),
    ("uv run --directory sub pytest", [("pytest", f"{CWD}/sub", True)]),
    # a cd in a subshell, a pipeline or the background moves nothing outside
    ("(cd sub && pytest); pytest", [("pytest", f"{CWD}/sub", True), ("pytest", CWD, True)]),
    (
        "( cd a && ( cd b && pytest ) && pytest ) && pytest",
        [("pytest", f"{CWD}/a/b", True), ("pytest", f"{CWD}/a", True), ("pytest", CWD, True)],
    ),
    ("cd sub | cat; pytest", [("pytest", CWD, True)]),
    ("cd sub & pytest", [("pytest", CWD, True)]),
    # a cd that cannot be followed leaves the cwd unknown, until an absolute one
    ('cd "$TMPDIR" && pytest', [("pytest", CWD, False)]),
    ("cd $(git rev-parse --show-toplevel) && pytest", [("pytest", CWD, False)]),
    ("cd `dirname $0` && pytest", [("pytest", CWD, False)]),
    ("cd src/* && pytest", [("pytest", CWD, False)]),
    ("cd - && pytest", [("pytest", CWD, False)]),
    ("popd; pytest", [("pytest", CWD, False)]),
    ("pushd +1; pytest", [("pytest", CWD, False)]),
    ("cd $X; cd sub; pytest", [("pytest", f"{CWD}/sub", False)]),
    ("cd $X; cd /abs; pytest", [("pytest", "/abs", True)]),
    # shell strings and substitutions are read too
    ("bash -c 'pytest -x'", [("pytest", CWD, True)]),
    (
        'sh -c "cd sub && npm test"; pytest',
        [("npm-test", f"{CWD}/sub", True), ("pytest", CWD, True)],
    ),
    ("timeout 600 bash -lc 'python -m pytest'", [("pytest", CWD, True)]),
    ("bash -c \"sh -c 'make check'\"", [("make-test", CWD, True)]),
    ("env -C sub sh -c 'cd t && pytest'", [("pytest", f"{CWD}/sub/t", True)]),
    ("eval 'pytest -x'", [("pytest", CWD, True)]),
    ("npx -c 'jest --ci'", [("jest", CWD, True)]),
    ("out=$(pytest -q 2>&1)", [("pytest", CWD, True)]),
    ('echo "result: $(cargo test)"', [("cargo-test", CWD, True)]),
    ("echo `make test`", [("make-test", CWD, True)]),
    ("diff <(pytest -q) expected.txt", [("pytest", CWD, True)]),
    ("echo $((1 + 2)) && pytest", [("pytest", CWD, True)]),
    ("echo ${pytest:-x}", []),
    ("x=$(cd sub && pwd); pytest", [("pytest", CWD, True)]),
    # comments and here-documents are no commands
    ("# pytest", []),
    ("ls # && pytest", []),
    ("echo a#pytest", []),
    ("cat <<EOF\npytest\nmake test\nEOF\n", []),
    ("cat <<EOF\npytest\nEOF\nnpm test", [("npm-test", CWD, True)]),
    ("cat <<'EOF' > run.sh\npytest -x\nEOF\nchmod +x run.sh", []),
    ("cat <<-EOF\n\tpytest\n\tEOF\ngo test ./...", [("go-test", CWD, True)]),
    ("python - <<'PY'\nimport pytest\npytest.main()\nPY", []),
    ("cat <<A <<B\npytest\nA\nmake test\nB\ncargo test", [("cargo-test", CWD, True)]),
    ("cat <<EOF | pytest -x\nbody\nEOF", [("pytest", CWD, True)]),
    ("cat <<EOF\nno end", []),
    # only mentions
    ("echo pytest", []),
    ("echo 'pytest -x'", []),
    ("grep -rn pytest .", []),
    ('git commit -m "run pytest; make test"', []),
    ("cat tests/test_x.py", []),
    ("vim run_tests.py", []),
    ("pip install pytest", []),
    ("python -c 'import pytest'", []),
    ("ls pytest", []),
    ("man pytest", []),
    ("pytest --version", []),
    ("make", []),
    ("make build", []),
    ("go build ./...", []),
    ("cargo build", []),
    ("npm install", []),
    ("", []),
    ("   ", []),
    (";;", []),
]


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


def test_cwd_is_normalised():
    """The starting cwd and every cd target are normalised."""
    assert found("cd ./a/../b/ && pytest", cwd="/w//repo/") == [("pytest", "/w/repo/b", True)]


def test_shell_strings_are_read_to_a_bounded_depth():
    """Nested shell strings are read up to MAX_DEPTH levels, and no deeper."""

    def nest(levels):
        command = "pytest"
        for _ in range(levels):
            command = "sh -c " + shlex.quote(command)
        return command

    assert found(nest(MAX_DEPTH)) == [("pytest", CWD, True)]
    assert found(nest(MAX_DEPTH + 1)) == []


def test_substitutions_are_read_to_a_bounded_depth():
    """Nested command substitutions are read up to MAX_DEPTH levels, and no deeper."""

    def nest(levels):
        return "echo " + "$(echo " * (levels - 1) + "$(pytest)" + ")" * (levels - 1)

    assert found(nest(MAX_DEPTH)) == [("pytest", CWD, True)]
    assert found(nest(MAX_DEPTH + 1)) == []


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
    result = test_invocations(shlex.join(argv), CWD)
    assert [(i.kind, i.role, i.argv) for i in result] == (
        [] if match is None else [(match.kind, match.role, tuple(argv))]
    )


@pytest.mark.parametrize(
    "command",
    [
        "pytest 'unbalanced",
        'pytest "unbalanced',
        "pytest $(unbalanced",
        "pytest `unbalanced",
        "pytest ${unbalanced",
        "pytest $'unbalanced",
        "pytest )",
        "(pytest",
        "pytest <(",
        "pytest \\",
        "pytest <<",
        "pytest >",
        "cd 'unbalanced && pytest",
    ],
)
def test_unbalanced_input_never_raises_and_falls_back(command):
    """Unbalanced quotes or parentheses fall back to a whitespace split instead of raising."""
    assert [kind for kind, _, _ in found(command)] == ["pytest"]


def test_fallback_split_still_separates_operators():
    """In the whitespace fallback, operator words still end a command."""
    assert found("echo 'x ; pytest -x") == [("pytest", CWD, True)]


# Pathological inputs, each of which must stay within a few milliseconds.
PATHOLOGICAL = [
    "pytest;" + "a;" * 40000,
    "pytest " + "'a' " * 30000,
    "pytest " + "'" * 100001,
    "pytest " + "(" * 100000,
    "pytest " + "$(" * 30000 + ")" * 30000,
    "bash -c " + "'bash -c \"pytest\"'" * 2000,
    "cat > f <<'EOF'\n" + "pytest line\n" * 80000 + "EOF\npytest",
    "pytest " + "\\" * 100000,
    "pytest " + "a" * 1000000,
    "echo " + "a" * 1000000,
    "pytest\n" * 20000,
    "pytest " + "$" * 100000,
    "pytest " + "$'a' " * 20000,
    "pytest <<A\n" * 5000,
    "cd a;" * 20000 + "pytest",
    "pytest|" * 20000,
    "`" * 100000 + "pytest",
    '"' * 100000 + "pytest",
]


@pytest.mark.parametrize("command", PATHOLOGICAL, ids=[c[:24] for c in PATHOLOGICAL])
def test_pathological_input_is_bounded(command):
    """A pathological command never raises and is parsed within a small, fixed time."""
    test_invocations(command, CWD)  # warm the caches
    began = time.perf_counter()
    result = test_invocations(command, CWD)
    elapsed = time.perf_counter() - began
    assert isinstance(result, tuple)
    # A few ms on a laptop; the bound leaves room for a loaded CI box.
    assert elapsed < 0.1, f"{elapsed * 1000:.1f} ms"


def test_text_past_the_char_bound_is_not_read():
    """A test run placed after MAX_COMMAND_CHARS characters is not looked at (documented)."""
    filler = "echo " + "x" * MAX_COMMAND_CHARS
    assert found(f"{filler}\npytest") == []
    assert found(f"pytest\n{filler}") == [("pytest", CWD, True)]


def test_words_past_the_step_budget_are_not_read():
    """A test run after MAX_STEPS lexer steps is not looked at, one before is (documented)."""
    assert found("a; " * (MAX_STEPS // 8) + "pytest") == [("pytest", CWD, True)]
    assert found("a; " * MAX_STEPS + "pytest") == []


def test_long_heredoc_is_skipped_cheaply():
    """A here-document body costs no steps: a run after a large one is still found."""
    body = "line with ; and | and pytest\n" * 20000
    command = f"cat > notes.txt <<'EOF'\n{body}EOF\nmake test"
    assert len(command) < MAX_COMMAND_CHARS * 10
    assert found(command[: MAX_COMMAND_CHARS - 20] + "\nEOF\nmake test") == [
        ("make-test", CWD, True)
    ]


class TestPrefilter:
    """is_probably_test_command never says no to a command test_invocations finds a run in."""

    def test_sound_on_the_case_corpus(self):
        """Every command with an invocation in the corpus passes the pre-filter."""
        for command, expected in CASES:
            if expected:
                assert is_probably_test_command(command), command

    def test_sound_on_mangled_runner_words(self):
        """Quotes, backslashes, $'' and line continuations inside runner words do not fool it."""
        rng = random.Random(20240601)  # noqa: S311 - a reproducible corpus, not a secret
        words = [
            "pytest",
            "py.test",
            "run_tests.py",
            "vitest",
            "make test",
            "cargo nextest run",
            "npm run test:unit",
            "python -m unittest",
        ]
        manglers = [
            lambda s: f"'{s}'",
            lambda s: f'"{s}"',
            lambda s: f"$'{s}'",
            lambda s: "\\" + s,
            lambda s: "\\\n" + s,
            lambda s: "''" + s,
        ]
        checked = 0
        for _ in range(400):
            word = rng.choice(words)
            cut = rng.randrange(1, len(word))
            head, tail = word[:cut], word[cut:]
            mangled = rng.choice(manglers)(head) + rng.choice(manglers)(tail)
            command = rng.choice(["{}", "cd x && {}", "bash -c {q}", "echo a; {} -x", "X=$({})"])
            command = command.format(mangled, q=shlex.quote(mangled))
            if test_invocations(command, CWD):
                checked += 1
                assert is_probably_test_command(command), command
        assert checked > 50  # the corpus really exercises the property

    def test_says_no_to_ordinary_commands(self):
        """Commands without any runner name are rejected without parsing."""
        for command in ["git status", "ls -la", "cat README.md | head", "echo hi > x.txt"]:
            assert not is_probably_test_command(command)
            assert test_invocations(command, CWD) == ()

    def test_long_text_takes_the_same_decisions(self):
        """Past the short-text size (searched by regex, not by substring loop) nothing changes."""
        filler = "echo '" + "some text " * 900 + "'\n"
        assert len(filler) > 8192
        for tail, expected in [("py'test' -x", True), ("py\\\ntest", True), ("ls -la", False)]:
            command = filler + tail
            assert is_probably_test_command(command) is expected, tail
            assert bool(test_invocations(command, CWD)) is expected, tail

    def test_custom_table(self):
        """The pre-filter follows the table it is given."""
        table = (RunnerPattern("e2e", programs=("run-e2e",)),)
        assert is_probably_test_command("./run-e2e", table)
        assert not is_probably_test_command("pytest", table)


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
            "TestInvocation(argv=('pytest', '-x'), cwd='/w', cwd_known=True, kind='pytest', "
            "role='runner')"
        )
        with pytest.raises(AttributeError):
            a.cwd = "/x"  # type: ignore[misc]
