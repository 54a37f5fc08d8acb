"""The corpus of command strings the shell tests share: what a shell would start, and where."""

from __future__ import annotations

from runctx.shell.commands import test_invocations

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
    # the body once per value its variable takes
    ("for f in a b; do pytest $f; done", [("pytest", CWD, True), ("pytest", CWD, True)]),
    ("for pytest in a b; do echo $pytest; done", []),
    ("{ pytest; }", [("pytest", CWD, True)]),
    ("! pytest", [("pytest", CWD, True)]),
    ("time pytest", [("pytest", CWD, True)]),
    ("case $x in a) pytest;; esac", [("pytest", CWD, True)]),
    # an arm's pattern is no command, whatever it is named; its ``)`` closes no subshell
    ('case "$opt" in\n  -test|-t) test=true ;;\n  unit-tests) go=1 ;;\nesac', []),
    ("case $x in (run-tests|x_test) echo ;; *) ruff ;; esac; pytest", [("pytest", CWD, True)]),
    ("case $x in a) case $y in b_test) : ;; esac ;; esac; ./c_test", [("test-binary", CWD, True)]),
    (
        "(cd sub; case $x in a) ;; esac; pytest); pytest",
        [("pytest", f"{CWD}/sub", True), ("pytest", CWD, True)],
    ),
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
