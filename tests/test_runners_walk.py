"""The argv walk (``runners/walk.py``): which runner a command line starts, and where."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from proctools import argv_of, wait_for
from require import require
from runfactory import RUN_TESTS_SCRIPT
from runnercases import FORMS, TASK_FORMS

from runctx.runners import (
    BUILTIN_PATTERNS,
    MAX_ARGV_WORDS,
    RUNNER_KINDS,
    WRAPPER_ROLE,
    CommandResolution,
    RunnerMatch,
    RunnerPattern,
    detect_runner,
    resolve_command,
)
from runctx.runners.walk import title_words
from runctx.settings import settings_for
from runctx.sources.proctext import parse_cmdline

XDIST_BOOTSTRAP = "import sys;exec(eval(sys.stdin.readline()))"
XDIST_BOOTSTRAP_JSON = "import sys;import json;exec(json.loads(sys.stdin.readline()))"

# (argv as /proc shows it, expected kind). Every builtin kind appears at least once.
POSITIVE = [
    # pytest, every spelling
    (["pytest"], "pytest"),
    (["pytest", "-x", "tests/"], "pytest"),
    (["py.test", "-q"], "pytest"),
    (["python", "-m", "pytest"], "pytest"),
    # code that calls a runner's documented entry runs it as -m would
    (["python", "-c", "import pytest; pytest.main()"], "pytest"),
    (["python3", "-c", "import unittest; unittest.main(module=None)"], "unittest"),
    (["python3.11", "-m", "pytest", "-k", "slow"], "pytest"),
    (["/usr/bin/python3.12", "-mpytest"], "pytest"),
    (["pypy3", "-m", "pytest"], "pytest"),
    (["python3.13t", "-m", "pytest"], "pytest"),
    (["/abs/.venv/bin/python3", "/abs/.venv/bin/pytest", "-x"], "pytest"),
    (["/abs/.venv/bin/pytest", "-n", "4"], "pytest"),
    (["python", "-u", "-X", "dev", "-W", "error", "-m", "pytest"], "pytest"),
    (["python", "-uB", "-Xdev", "-Werror", "-E", "-I", "-s", "-S", "-O", "-m", "pytest"], "pytest"),
    (["python", "--check-hash-based-pycs", "always", "-m", "pytest"], "pytest"),
    (["uv", "run", "pytest"], "pytest"),
    (["uv", "run", "--frozen", "--with", "hypothesis", "-p", "3.12", "pytest", "-x"], "pytest"),
    (["uv", "--quiet", "run", "--no-sync", "python", "-m", "pytest"], "pytest"),
    (["uv", "run", "-m", "pytest"], "pytest"),
    (["uv", "tool", "run", "pytest"], "pytest"),
    (["uvx", "--from", "pytest==8.0", "pytest"], "pytest"),
    (["poetry", "run", "pytest"], "pytest"),
    (["poetry", "-C", "sub", "run", "pytest"], "pytest"),
    (["pipenv", "run", "pytest"], "pytest"),
    (["hatch", "run", "pytest"], "pytest"),
    (["hatch", "-e", "test", "run", "pytest"], "pytest"),
    (["pdm", "run", "pytest"], "pytest"),
    (["rye", "run", "pytest"], "pytest"),
    (["pipx", "run", "pytest"], "pytest"),
    (["conda", "run", "-n", "dev", "pytest"], "pytest"),
    (["coverage", "run", "-m", "pytest"], "pytest"),
    (["coverage", "run", "--source", "src", "--branch", "-m", "pytest"], "pytest"),
    (["python", "-m", "coverage", "run", "-m", "pytest"], "pytest"),
    # wrappers, alone and stacked
    (["env", "pytest"], "pytest"),
    (["env", "-i", "A=1", "B=2", "pytest"], "pytest"),
    (["env", "-u", "HOME", "--", "pytest"], "pytest"),
    (["env", "-S", "pytest -x"], "pytest"),
    (["CI=1", "pytest"], "pytest"),
    (["timeout", "60", "pytest"], "pytest"),
    (["timeout", "-s", "KILL", "-k", "5", "10m", "pytest"], "pytest"),
    (["timeout", "--signal=KILL", "60", "pytest"], "pytest"),
    (["nice", "pytest"], "pytest"),
    (["nice", "-n", "10", "pytest"], "pytest"),
    (["nice", "-10", "pytest"], "pytest"),
    (["ionice", "-c", "3", "pytest"], "pytest"),
    (["ionice", "-c2", "-n7", "pytest"], "pytest"),
    (["time", "pytest"], "pytest"),
    (["/usr/bin/time", "-v", "-o", "t.txt", "pytest"], "pytest"),
    (["nohup", "pytest"], "pytest"),
    (["stdbuf", "-oL", "-e", "0", "pytest"], "pytest"),
    (["setsid", "-w", "pytest"], "pytest"),
    (["taskset", "-c", "0-3", "pytest"], "pytest"),
    (["xvfb-run", "-a", "pytest"], "pytest"),
    (["sudo", "-u", "ci", "-E", "pytest"], "pytest"),
    (["xargs", "-0", "-n", "1", "pytest"], "pytest"),
    (["exec", "pytest"], "pytest"),
    (["command", "pytest"], "pytest"),
    (["busybox", "timeout", "60", "pytest"], "pytest"),
    (
        [
            *("env", "-i", "LANG=C", "timeout", "-k", "5", "600", "nice", "-n", "5"),
            *("ionice", "-c3", "stdbuf", "-oL", "uv", "run", "--frozen"),
            *("python", "-u", "-X", "dev", "-m", "pytest", "-x"),
        ],
        "pytest",
    ),
    # a live shell running a runner's string (the shell parser reads it)
    (["sh", "-c", "pytest"], "pytest"),
    (["bash", "-lc", "pytest -x"], "pytest"),
    (["eval", "pytest"], "pytest"),
    # shells and node/ruby/java running script files
    (["bash", "run-tests.sh"], "run-tests-script"),
    (["/bin/sh", "-e", "-o", "pipefail", "./run_tests.sh", "--fast"], "run-tests-script"),
    (["bash", "-x", "/abs/.venv/bin/pytest"], "pytest"),
    (["node", "/r/node_modules/.bin/jest", "--ci"], "jest"),
    (
        ["node", "--max-old-space-size=4096", "-r", "ts-node/register", "node_modules/.bin/mocha"],
        "mocha",
    ),
    (["/usr/bin/env", "node", "/r/node_modules/jest/bin/jest.js"], "jest"),
    (["ruby", "-Ilib", "-S", "rspec"], "rspec"),
    (["ruby", "-I", "lib", "/gems/bin/rspec", "spec/x_spec.rb"], "rspec"),
    # python runners
    (["python", "-m", "unittest"], "unittest"),
    (["python3", "-m", "unittest", "discover", "-s", "tests"], "unittest"),
    (["nose2", "-v"], "nose2"),
    (["python", "-m", "nose2"], "nose2"),
    (["nosetests"], "nose"),
    (["tox"], "tox"),
    (["tox", "-e", "py311,lint"], "tox"),
    (["tox", "run", "-e", "py"], "tox"),
    (["python", "-m", "tox", "-p"], "tox"),
    (["nox"], "nox"),
    (["nox", "-s", "tests-3.12"], "nox"),
    (["hatch", "test"], "hatch-test"),
    (["hatch", "test", "--cover", "-a"], "hatch-test"),
    (["./run_tests.py"], "run-tests-script"),
    (["python", "scripts/run_tests.py", "-v"], "run-tests-script"),
    (["runtests.py"], "run-tests-script"),
    (["python3", "runtests.py", "--parallel"], "run-tests-script"),
    (["./run-tests.sh"], "run-tests-script"),
    (["python", "manage.py", "test", "app"], "django-test"),
    # go, rust
    (["go", "test", "./..."], "go-test"),
    (["go", "test", "-race", "-run", "TestX", "./pkg/..."], "go-test"),
    (["go", "-C", "sub", "test", "./..."], "go-test"),
    (["gotestsum", "--", "-race", "./..."], "go-test"),
    (["cargo", "test"], "cargo-test"),
    (["cargo", "+nightly", "test", "--workspace"], "cargo-test"),
    (["cargo", "t"], "cargo-test"),
    (["cargo", "nextest", "run"], "cargo-nextest"),
    (["cargo-nextest", "nextest", "run", "--workspace"], "cargo-nextest"),
    # javascript
    (["jest"], "jest"),
    (["jest", "--ci", "--runInBand"], "jest"),
    (["vitest"], "vitest"),
    (["vitest", "run"], "vitest"),
    (["node", "/r/node_modules/.bin/vitest", "run", "--reporter=dot"], "vitest"),
    (["mocha", "test/"], "mocha"),
    (["playwright", "test"], "playwright-test"),
    (["npx", "playwright", "test", "--project=chromium"], "playwright-test"),
    (["npm", "test"], "npm-test"),
    (["npm", "run", "test"], "npm-test"),
    (["npm", "t"], "npm-test"),
    (["npm", "run", "test:unit", "--", "--watch=false"], "npm-test"),
    (["npm", "--prefix", "web", "test"], "npm-test"),
    (["npm test"], "npm-test"),  # npm writes its title over argv: one word with a space
    (["node", "/usr/lib/node_modules/npm/bin/npm-cli.js", "test"], "npm-test"),
    (["pnpm", "test"], "pnpm-test"),
    (["pnpm", "-r", "--filter", "web", "test"], "pnpm-test"),
    (["pnpm", "run", "test:e2e"], "pnpm-test"),
    (["yarn", "test"], "yarn-test"),
    (["yarn", "test:unit"], "yarn-test"),
    (["yarn", "workspace", "web", "test"], "yarn-test"),
    (["bun", "test"], "bun-test"),
    (["deno", "test", "-A"], "deno-test"),
    (["npx", "jest"], "jest"),
    (["npx", "--yes", "-p", "jest@29", "jest"], "jest"),
    (["npm", "exec", "--", "vitest", "run"], "vitest"),
    (["pnpm", "exec", "vitest"], "vitest"),
    (["pnpm", "dlx", "vitest"], "vitest"),
    (["pnpm", "vitest"], "vitest"),
    (["yarn", "exec", "jest"], "jest"),
    (["yarn", "jest", "--ci"], "jest"),
    (["bunx", "vitest"], "vitest"),
    (["bun", "x", "jest"], "jest"),
    # build systems
    (["make", "test"], "make-test"),
    (["make", "check"], "make-test"),
    (["make", "-j4", "test"], "make-test"),
    (["make", "-j", "4", "lint", "test"], "make-test"),
    (["make", "-C", "dir", "test"], "make-test"),
    (["make", "-f", "ci.mk", "test-unit"], "make-target"),
    (["gmake", "test"], "make-test"),
    (["ninja", "-C", "build", "test"], "ninja-test"),
    (["meson", "test", "-C", "build"], "meson-test"),
    (["ctest"], "ctest"),
    (["ctest", "--output-on-failure", "-j8"], "ctest"),
    (["mvn", "test"], "mvn-test"),
    (["mvn", "verify"], "mvn-test"),
    (["mvn", "-q", "-pl", "core", "clean", "install"], "mvn-test"),
    (["./mvnw", "-B", "test"], "mvn-test"),
    (
        [
            "/usr/lib/jvm/java-17/bin/java",
            "-classpath",
            "/usr/share/maven/boot/plexus-classworlds-2.7.0.jar",
            "-Dclassworlds.conf=/usr/share/maven/bin/m2.conf",
            "org.codehaus.plexus.classworlds.launcher.Launcher",
            "test",
        ],
        "mvn-test",
    ),
    (["gradle", "test"], "gradle-test"),
    (["./gradlew", "test"], "gradle-test"),
    (["./gradlew", ":app:check", "--no-daemon"], "gradle-test"),
    (["/bin/sh", "./gradlew", "build"], "gradle-test"),
    (
        [
            *("java", "-Xmx64m", "-cp", "gradle/wrapper/gradle-wrapper.jar"),
            *("org.gradle.wrapper.GradleWrapperMain", "test"),
        ],
        "gradle-test",
    ),
    (["bazel", "test", "//..."], "bazel-test"),
    (["bazelisk", "coverage", "//pkg:all"], "bazel-test"),
    # ruby, .NET
    (["rspec"], "rspec"),
    (["bundle", "exec", "rspec", "spec/models"], "rspec"),
    (["bundle", "exec", "rake", "test"], "rake-test"),
    (["bin/rails", "test"], "rails-test"),
    (["dotnet", "test"], "dotnet-test"),
    (["dotnet", "test", "src/App.Tests/App.Tests.csproj", "-c", "Release"], "dotnet-test"),
    # runctx run -- CMD is CMD's run already while it checks or waits
    (["runctx", "run", "--", "pytest", "-q"], "pytest"),
    (["/v/bin/python3", "/v/bin/runctx", "run", "--wait", "--timeout", "10m", "--", "tox"], "tox"),
    (["python", "-m", "runctx", "run", "--mode", "warn", "--", "make", "test"], "make-test"),
]

# (argv, expected worker kind)
WORKERS = [
    (["/abs/.venv/bin/python3", "-u", "-c", XDIST_BOOTSTRAP], "pytest-xdist-worker"),
    (["python", "-u", "-B", "-c", XDIST_BOOTSTRAP], "pytest-xdist-worker"),
    (["python3.12", "-u", "-c", XDIST_BOOTSTRAP_JSON], "pytest-xdist-worker"),
    (
        ["/usr/bin/node", "/r/node_modules/jest-worker/build/workers/processChild.js"],
        "jest-worker",
    ),
    (
        [
            "node",
            "--expose-gc",
            "/r/node_modules/.pnpm/jest-worker@29.7.0/node_modules/jest-worker/build/workers/processChild.js",
        ],
        "jest-worker",
    ),
    (["node", "/r/node_modules/vitest/dist/workers/forks.js"], "vitest-worker"),
    (["node", "/r/node_modules/vitest/dist/workers/vmForks.js"], "vitest-worker"),
    (["node", "/r/node_modules/tinypool/dist/entry/process.js"], "vitest-worker"),
]

NEGATIVE = [
    # words that merely mention a runner
    ["echo", "pytest"],
    ["grep", "-r", "pytest", "."],
    ["cat", "tests/test_x.py"],
    ["vim", "run_tests.py"],
    ["pip", "install", "pytest"],
    ["python", "-m", "pip", "install", "pytest"],
    ["uv", "pip", "install", "pytest"],
    ["uv", "add", "--dev", "pytest"],
    ["poetry", "add", "pytest"],
    ["git", "commit", "-m", "fix pytest"],
    ["ls", "pytest"],
    ["man", "pytest"],
    ["which", "pytest"],
    ["command", "-v", "pytest"],
    ["timeout", "60", "echo", "pytest"],
    # code and shell strings
    ["python", "-c", "import pytest"],
    ["python", "-c", "import pytest; print(pytest.main)"],
    ["python", "-u", "-c", "import sys;exec(eval(sys.stdin.readline()))  # not exact"],
    ["python", "-"],
    ["python"],
    ["python3", "-i"],
    ["node", "-e", "require('jest')"],
    ["node"],
    ["ruby", "-e", "puts 1"],
    ["sh"],
    ["bash", "-s"],
    # information requests, not runs of the suite
    ["pytest", "--version"],
    ["pytest", "-V"],
    ["pytest", "--help"],
    ["pytest", "-h"],
    ["pytest", "--collect-only", "-q"],
    ["pytest", "--co"],
    ["pytest", "--fixtures"],
    ["pytest", "--markers"],
    ["python", "-m", "pytest", "--version"],
    ["python", "--version"],
    ["python3", "-V"],
    ["tox", "-l"],
    ["tox", "list"],
    ["tox", "--version"],
    ["nox", "--list"],
    ["cargo", "test", "--no-run"],
    ["cargo", "--version"],
    ["go", "test", "-c", "./pkg"],
    ["go", "test", "-list", "."],
    ["jest", "--listTests"],
    ["jest", "-v"],
    ["vitest", "--version"],
    ["vitest", "list"],
    ["make", "-n", "test"],
    ["make", "--dry-run", "check"],
    ["ctest", "-N"],
    ["mvn", "-v"],
    ["mvn", "install", "-DskipTests"],
    ["gradle", "--dry-run", "test"],
    ["gradle", "build", "-x", "test", "--help"],
    ["rspec", "--dry-run"],
    ["dotnet", "test", "--list-tests"],
    ["npm", "test", "--help"],
    # builds and installs
    ["make"],
    ["make", "build"],
    ["make", "-C", "test", "build"],
    ["make", "VAR=test", "all"],
    ["go", "build", "./..."],
    ["go", "vet", "./..."],
    ["cargo", "build"],
    ["cargo", "nextest", "list"],
    ["npm", "install"],
    ["npm", "run", "build"],
    ["npm", "exec", "tsc"],
    ["yarn", "add", "jest"],
    ["yarn", "build"],
    ["pnpm", "add", "-D", "vitest"],
    ["mvn", "compile"],
    ["gradle", "assemble"],
    ["bazel", "build", "//..."],
    ["dotnet", "build"],
    ["hatch", "run", "lint"],
    ["hatch", "build"],
    ["bundle", "install"],
    # workers are only workers at their exact paths
    ["node", "/r/node_modules/other/processChild.js"],
    ["node", "/r/lib/forks.js"],
    # empty and odd
    [],
    [""],
    ["/"],
    ["-bash"],
    ["env"],
    ["timeout", "60"],
    ["sudo", "-l"],
    ["ionice", "-p", "123"],
    ["runctx", "status"],
    ["runctx", "run", "--", "ls", "-la"],
    # what a box runs most: no known word at all
    ["/usr/lib/systemd/systemd", "--user"],
    ["sshd:", "u@pts/0"],
    ["/usr/bin/dbus-daemon"],
]


def _ids(cases):
    return [" ".join(argv) or "<empty>" for argv, *_ in cases]


@pytest.mark.parametrize(("argv", "kind"), POSITIVE, ids=_ids(POSITIVE))
def test_detects_runner(argv, kind):
    """Each real command-line shape of a runner is detected as that runner kind."""
    assert detect_runner(argv) == RunnerMatch(kind, "runner")


@pytest.mark.parametrize(("argv", "kind"), WORKERS, ids=_ids(WORKERS))
def test_detects_worker(argv, kind):
    """Worker command lines are detected with role "worker", so they fold into their runner."""
    assert detect_runner(argv) == RunnerMatch(kind, "worker")


@pytest.mark.parametrize("argv", NEGATIVE, ids=[" ".join(a) or "<empty>" for a in NEGATIVE])
def test_rejects_non_runs(argv):
    """Commands that only mention a runner, or only ask it for information, are no runs.

    A task runner's task (``make build``) is at most a task: a run only if a
    runner runs under it.
    """
    match = detect_runner(argv)
    assert match is None or match.role == "task"


def test_every_builtin_kind_is_covered_by_a_positive_case():
    """Every kind in the builtin table has at least one positive case here."""
    covered = {kind for _, kind in (*POSITIVE, *WORKERS, *FORMS)}
    covered |= {kind for _, kind, _ in TASK_FORMS}
    assert set(RUNNER_KINDS) - covered == set()
    assert {pattern.kind for pattern in BUILTIN_PATTERNS} == set(RUNNER_KINDS)


def test_resolve_command_returns_the_shell_string_of_sh_c():
    """``sh -c STRING`` behind wrappers is handed back as a shell string, not a runner."""
    resolution = resolve_command(["timeout", "60", "bash", "-e", "-c", "cd x && pytest", "bash"])
    assert resolution == CommandResolution(None, "cd x && pytest", None)
    assert resolve_command(["eval", "pytest", "-x"]).shell_string == "pytest -x"
    assert resolve_command(["npx", "-c", "jest --ci"]).shell_string == "jest --ci"
    assert resolve_command(["bash", "run_tests.sh"]).shell_string is None


def test_resolve_command_gives_the_command_wrappers_run_when_no_runner_is_found():
    """Behind wrappers and a shell, the program the walk ends on starts ``inner``.

    ``uv run bash scripts/test.sh`` runs the project's script: the parser reads
    it as it reads ``scripts/test.sh`` written alone.
    """
    assert resolve_command(["uv", "run", "bash", "scripts/test.sh", "-x"]).inner == (
        "scripts/test.sh",
        "-x",
    )
    assert resolve_command(["sudo", "-E", "PATH=/bin", "./ci.sh"]).inner == ("./ci.sh",)
    assert resolve_command(["./ci.sh", "unit"]).inner == ("./ci.sh", "unit")
    assert resolve_command(["uv", "run", "pytest"]).inner == ()


def test_resolve_command_reports_the_wrapper_chdir():
    """Wrappers that change directory report it, joined in order."""
    assert resolve_command(["env", "-C", "sub", "pytest"]).chdir == "sub"
    assert resolve_command(["env", "--chdir=/abs", "pytest"]).chdir == "/abs"
    nested = resolve_command(["env", "-C", "a", "uv", "run", "--directory", "b", "pytest"])
    assert nested == CommandResolution(RunnerMatch("pytest"), None, "a/b")
    assert resolve_command(["pytest"]).chdir is None


def test_non_utf8_argv_is_read_without_error():
    """Arguments decoded with surrogateescape are matched like any other string."""
    weird_dir = os.fsdecode(b"/tmp/d\xff\xfe")
    assert detect_runner([f"{weird_dir}/pytest", os.fsdecode(b"t\xff.py")]) == RunnerMatch("pytest")
    assert detect_runner(["python3", "-m", os.fsdecode(b"pyt\xffest")]) is None


def test_patterns_argument_replaces_the_table():
    """The patterns argument is the whole table: builtin runners vanish when it is replaced."""
    custom = (RunnerPattern("e2e", programs=("run-e2e",)),)
    assert detect_runner(["run-e2e"], custom) == RunnerMatch("e2e")
    assert detect_runner(["timeout", "9", "run-e2e"], custom) == RunnerMatch("e2e")
    assert detect_runner(["pytest"], custom) is None
    assert detect_runner(["pytest"], list(custom)) is None
    assert detect_runner(["run-e2e"]) is None


def test_earlier_patterns_win():
    """When two patterns match, the one listed first names the kind (user entries go first)."""
    mine = RunnerPattern("my-pytest", programs=("pytest",))
    assert detect_runner(["pytest", "-x"], (mine, *BUILTIN_PATTERNS)) == RunnerMatch("my-pytest")
    assert detect_runner(["pytest", "-x"], (*BUILTIN_PATTERNS, mine)) == RunnerMatch("pytest")


# --------------------------------------------------------------------------- real processes


def _shebang_script(directory: Path, name: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / name
    script.write_text(f"#!{sys.executable}\n{RUN_TESTS_SCRIPT}")
    script.chmod(0o755)
    return script


linux_only = pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")


@linux_only
@pytest.mark.parametrize(
    ("name", "kind"),
    [("pytest", "pytest"), ("run_tests.py", "run-tests-script"), ("jest", "jest")],
)
def test_real_shebang_script_is_detected(tmp_path, runs, name, kind):
    """A shebang console script, as the kernel shows it (interpreter, script path), is detected."""
    script = _shebang_script(tmp_path / "bin", name)
    ready = tmp_path / "ready"
    proc = runs.child([str(script), str(ready), "-x"], ready=ready)
    argv = argv_of(proc.pid)
    assert argv[1:] == [str(script), str(ready), "-x"]  # the kernel put the interpreter first
    assert detect_runner(argv) == RunnerMatch(kind)


@linux_only
def test_real_script_in_non_utf8_directory_is_detected(tmp_path, runs):
    """A runner whose path holds non-UTF-8 bytes is read from /proc and still detected."""
    script = _shebang_script(tmp_path / os.fsdecode(b"d\xff\xfe"), "pytest")
    ready = tmp_path / "ready"
    proc = runs.child([str(script), str(ready)], ready=ready)
    argv = argv_of(proc.pid)
    assert os.fsencode(argv[1]).endswith(b"d\xff\xfe/pytest")
    assert detect_runner(argv) == RunnerMatch("pytest")


@linux_only
def test_real_python_with_flags_and_module_is_detected(tmp_path, runs):
    """``python -u -X dev -W error -m pytest`` under an arbitrary argv[0] is detected from /proc."""
    # the holder, named pytest.py: it shadows the real pytest in this child only
    (tmp_path / "pytest.py").write_text(RUN_TESTS_SCRIPT)
    ready = tmp_path / "ready"
    argv0 = "/opt/ci/.venv/bin/python3.11"
    command = [argv0, "-u", "-X", "dev", "-W", "error", "-m", "pytest", str(ready)]
    # an argv[0] that is no file leaves the interpreter to find its library by the prefix it
    # was built with; one moved since (a copy under a private home) is told where it is
    env = {**os.environ, "PYTHONHOME": sys.base_prefix}
    proc = runs.child(command, ready=ready, executable=sys.executable, cwd=tmp_path, env=env)
    argv = argv_of(proc.pid)
    assert argv == command
    assert detect_runner(argv) == RunnerMatch("pytest")


@linux_only
def test_real_configured_module_is_detected(tmp_path, runs):
    """A module named in a real pyproject.toml is detected on a real ``python -m`` process."""
    (tmp_path / "integ_runner.py").write_text(RUN_TESTS_SCRIPT)
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.runctx]\nrunners = [{ kind = "integ", module = "integ_runner" }]\n')
    ready = tmp_path / "ready"
    command = [sys.executable, "-B", "-m", "integ_runner", str(ready)]
    proc = runs.child(command, ready=ready, cwd=tmp_path)
    argv = argv_of(proc.pid)
    assert detect_runner(argv) is None
    table = settings_for(str(tmp_path), environ={}).patterns
    assert detect_runner(argv, table) == RunnerMatch("integ")


@linux_only
def test_real_xdist_style_worker_is_detected_as_worker(tmp_path, runs):
    """A process started exactly as execnet starts an xdist worker is a worker in /proc."""
    ready = tmp_path / "ready"
    code = f"import pathlib, time; pathlib.Path({str(ready)!r}).write_text('1'); time.sleep(300)"
    command = [sys.executable, "-u", "-c", XDIST_BOOTSTRAP]
    proc = runs.child(command, stdin=subprocess.PIPE)
    assert proc.stdin is not None
    proc.stdin.write(repr(code).encode() + b"\n")
    proc.stdin.flush()
    wait_for(ready.exists, what="the worker to run its code")
    assert detect_runner(argv_of(proc.pid)) == RunnerMatch("pytest-xdist-worker", "worker")


@linux_only
def test_real_wrapper_process_is_detected(tmp_path, runs):
    """A live ``timeout 300 <pytest script>`` wrapper process is itself seen as the pytest run."""
    require("timeout")
    script = _shebang_script(tmp_path / "bin", "pytest")
    ready = tmp_path / "ready"
    command = ["timeout", "300", str(script), str(ready)]
    proc = runs.child(command, ready=ready)
    argv = argv_of(proc.pid)
    assert argv == command
    assert detect_runner(argv) == RunnerMatch("pytest")


# -- the work per argv is bounded --------------------------------------------------------


class _Bounded(Sequence[str]):
    """An argv of any length that fails the test when a word past the bound is read."""

    def __init__(self, words: list[str]) -> None:
        self.words = words

    def __len__(self) -> int:
        return len(self.words)

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self.words))
            assert step == 1
            assert stop - start <= MAX_ARGV_WORDS, f"read words {start}..{stop}"
            return self.words[index]
        assert 0 <= index < MAX_ARGV_WORDS, f"read word {index}"
        return self.words[index]


@pytest.mark.parametrize(
    "argv",
    [
        ["pytest", *(["-x"] * 100_000)],
        ["env", *(f"A{i}=1" for i in range(100_000)), "pytest"],
        ["python", *(["-W", "error"] * 50_000), "-m", "pytest"],
        ["make", *(["x"] * 100_000), "test"],
        ["uv", "run", "--with", "x", *(["--frozen"] * 100_000), "pytest"],
    ],
    ids=["pytest", "env", "python", "make", "uv run"],
)
def test_no_word_past_the_bound_is_read(argv):
    """However long the argv, the walk reads its first MAX_ARGV_WORDS words and no more."""
    bounded = _Bounded(argv)
    detect_runner(bounded)
    resolve_command(bounded)


def test_what_lies_past_the_bound_cannot_make_a_run():
    """A runner's word, a subcommand or a target past the bound is as if it were not there."""
    padding = ["x"] * MAX_ARGV_WORDS
    assert detect_runner(["make", *padding[:10], "test"]) == RunnerMatch("make-test")
    # past the bound, ``make x x ...`` names targets x only: a task, no run by its words
    assert detect_runner(["make", *padding, "test"]) == RunnerMatch("make-target", "task")
    assert detect_runner(["env", *(f"A{i}=1" for i in range(MAX_ARGV_WORDS)), "pytest"]) is None
    resolution = resolve_command(["make", *padding, "test"])
    assert resolution.match is None
    assert resolution.task is not None
    assert "test" not in resolution.task.names


def test_what_lies_past_the_bound_cannot_hide_a_run_the_first_words_show():
    """``pytest`` then options past the bound and a ``--version``: still a run (over-warning)."""
    assert detect_runner(["pytest", "--version"]) is None
    options = ["-x"] * MAX_ARGV_WORDS
    assert detect_runner(["pytest", *options, "--version"]) == RunnerMatch("pytest")
    title = "pytest " + "-x " * 100_000 + "--version"
    assert detect_runner([title]) == RunnerMatch("pytest")
    assert resolve_command(["pytest", *options, "--version"]).match == RunnerMatch("pytest")


def test_a_split_string_is_bounded_too():
    """``env -S STRING`` splits into words, of which the bound keeps the first ones."""
    many = " ".join(["-x"] * 100_000)
    assert detect_runner(["env", "-S", f"pytest {many} --version"]) == RunnerMatch("pytest")
    assert detect_runner(["env", "-S", f"{'A=1 ' * MAX_ARGV_WORDS}pytest"]) is None


def test_a_title_is_read_up_to_the_bound():
    """A title splits into at most MAX_ARGV_WORDS words; NUL padding past them is not looked at."""
    assert len(title_words(["a " * 100_000])) == MAX_ARGV_WORDS
    padded = _Bounded(["npm test", *[""] * 100_000])
    assert detect_runner(padded) == RunnerMatch("npm-test")
    assert detect_runner(["make " + "x " * MAX_ARGV_WORDS + "test"]) == RunnerMatch(
        "make-target", "task"
    )


def test_a_live_shells_string_is_read_with_the_same_bound():
    """``sh -c 'make x x ... test'``: the words past the bound of the one command make no run."""
    inside = "make " + "x " * MAX_ARGV_WORDS + "test"
    assert detect_runner(["sh", "-c", inside]) == RunnerMatch("make-target", "task")
    assert detect_runner(["sh", "-c", "pytest " + "-x " * 100_000]) == RunnerMatch("pytest")


# -- process titles ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        # npm writes its title over argv and pads the rest with NULs
        (b"npm test" + b"\0" * 15, ["npm", "test"]),
        (b"npm exec jest --ci" + b"\0" * 9, ["npm", "exec", "jest", "--ci"]),
        # a title with no NUL at all
        (b"npm run unit", ["npm", "run", "unit"]),
        # a real argv stays as it is, even when a word holds a space
        (b"python\0-m\0pytest\0-k\0a or b\0", ["python", "-m", "pytest", "-k", "a or b"]),
        (b"/opt/my tools/pytest\0-x\0", ["/opt/my tools/pytest", "-x"]),
        # a title without a space names one program
        (b"npm" + b"\0" * 8, ["npm", *[""] * 7]),
    ],
)
def test_a_title_is_split_into_words(raw, words):
    """A NUL-padded single string becomes its words; a real argv is kept."""
    assert list(title_words(parse_cmdline(raw))) == words


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        (b"npm test" + b"\0" * 15, "npm-test"),
        (b"npm run test:unit" + b"\0" * 15, "npm-test"),
        (b"npm exec jest" + b"\0" * 15, "jest"),
    ],
)
def test_a_title_names_its_runner(raw, kind):
    """A title such as npm's is detected as the runner its words name."""
    assert detect_runner(parse_cmdline(raw)) == RunnerMatch(kind)


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        (b"npm exec" + b"\0" * 24, "npm-exec"),
        (b"npm x" + b"\0" * 24, "npm-x"),
        (b"pnpm exec" + b"\0" * 24, "pnpm-exec"),
    ],
)
def test_a_title_of_a_wrapper_with_no_command_hides_one(raw, kind):
    """``npx -c CMD`` titled ``npm exec``: a wrapper whose command folding must find below it."""
    assert detect_runner(parse_cmdline(raw)) == RunnerMatch(kind, WRAPPER_ROLE)


@pytest.mark.parametrize(
    "raw",
    [
        b"npm\0exec\0",  # a real argv, not a title: npm exec with nothing to run
        b"npm exec mocha" + b"\0" * 9,  # the title names the command: the walk reads it
        b"npm exec hello" + b"\0" * 9,
        b"env exec" + b"\0" * 9,  # env takes no shell string, so hides no command
        b"npm test exec" + b"\0" * 9,
    ],
)
def test_only_a_bare_title_of_a_shell_string_wrapper_hides_a_command(raw):
    """An argv, a title naming its command, or a wrapper without ``-c`` is no hidden wrapper."""
    found = detect_runner(parse_cmdline(raw))
    assert found is None or found.role != WRAPPER_ROLE
