"""The builtin runner table: data only, one :class:`~runctx.runners.pattern.RunnerPattern` per row.

Rows are tried in order, user rows (from ``[tool.runctx]``) first. A row
matches an argv once the walk (:mod:`runctx.runners.walk`) has seen through
wrappers and interpreters to the program; its argument rules then decide
(``go test`` is a run, ``go test -list .`` is not). Information requests
(``--help``, ``--version``, listing and dry-run options) are never runs: they
touch nothing a suite touches.
"""

from __future__ import annotations

from runctx.runners.pattern import DEFAULT_NOT_WITH, WORKER_ROLE, RunnerPattern, rows

_H = (*DEFAULT_NOT_WITH, "-h")

_PYTHON_BOOTSTRAPS = (
    # execnet's popen bootstrap line, as pytest-xdist starts each worker.
    "import sys;exec(eval(sys.stdin.readline()))",
    "import sys;import json;exec(json.loads(sys.stdin.readline()))",
)

_RUN_TESTS_SCRIPTS = tuple(
    stem + ext
    for stem in ("run_tests", "run-tests", "runtests", "runTests", "run_test", "run-test")
    for ext in ("", ".py", ".sh", ".bash")
)

NPM_PROGRAMS = ("npm", "npm-cli.js")
PNPM_PROGRAMS = ("pnpm", "pnpm.cjs", "pnpm.js")
YARN_PROGRAMS = ("yarn", "yarn.js", "yarn.cjs")
HATCH_VALUE_OPTIONS = ("-e", "--env", "-p", "--project", "--data-dir", "--cache-dir", "--config")
"""hatch's global options that take a value (``hatch -e py311 test``)."""

BUILTIN_PATTERNS: tuple[RunnerPattern, ...] = (
    # --- python ---
    RunnerPattern(
        "pytest",
        programs=("pytest", "py.test", "pytest-3"),
        modules=("pytest", "py.test"),
        not_with=(
            *_H,
            "-V",
            "--collect-only",
            "--co",
            "--fixtures",
            "--funcargs",
            "--fixtures-per-test",
            "--markers",
            "--setup-plan",
        ),
    ),
    RunnerPattern("unittest", modules=("unittest",), not_with=_H),
    RunnerPattern(
        "nose2", programs=("nose2",), modules=("nose2",), not_with=(*_H, "--collect-only")
    ),
    RunnerPattern(
        "nose", programs=("nosetests",), modules=("nose",), not_with=(*_H, "-V", "--collect-only")
    ),
    RunnerPattern(
        "tox",
        programs=("tox",),
        modules=("tox",),
        not_with=(*_H, "-l", "--listenvs", "-a", "--listenvs-all", "--showconfig", "--help-ini"),
        not_subcommands=("list", "l", "config", "c", "quickstart", "q", "depends", "de"),
        value_options=("-e", "-c", "--conf", "--workdir", "--root", "-r", "--recreate-pkg"),
    ),
    RunnerPattern(
        "nox",
        programs=("nox",),
        modules=("nox",),
        not_with=(*_H, "-l", "--list", "--list-sessions", "--install-only"),
    ),
    RunnerPattern(
        "hatch-test",
        programs=("hatch",),
        subcommand=("test",),
        value_options=HATCH_VALUE_OPTIONS,
        not_with=(*_H, "--show"),
    ),
    RunnerPattern("run-tests-script", programs=_RUN_TESTS_SCRIPTS, not_with=_H),
    RunnerPattern("django-test", programs=("manage.py",), subcommand=("test",), not_with=_H),
    RunnerPattern("pytest-xdist-worker", role=WORKER_ROLE, codes=_PYTHON_BOOTSTRAPS, not_with=()),
    # --- go, rust ---
    RunnerPattern(
        "go-test",
        programs=("go",),
        subcommand=("test",),
        value_options=("-C",),
        not_with=(*_H, "-help", "-c", "-list", "-list=*"),
    ),
    RunnerPattern("go-test", programs=("gotestsum",), not_with=_H),
    *rows(
        "cargo-test",
        [("test",), ("t",)],
        programs=("cargo",),
        value_options=("-C", "--config", "-Z"),
        not_with=(*_H, "-V", "--no-run"),
    ),
    RunnerPattern(
        "cargo-nextest",
        programs=("cargo", "cargo-nextest"),
        subcommand=("nextest", "run"),
        value_options=("-C", "--config", "-Z"),
        not_with=(*_H, "-V", "--no-run"),
    ),
    # --- javascript ---
    RunnerPattern(
        "jest",
        programs=("jest", "jest.js"),
        not_with=(*_H, "-v", "--listTests", "--showConfig", "--clearCache", "--init"),
    ),
    RunnerPattern(
        "vitest",
        programs=("vitest", "vitest.mjs"),
        not_with=(*_H, "-v"),
        not_subcommands=("list", "init"),
    ),
    RunnerPattern(
        "mocha",
        programs=("mocha", "_mocha", "mocha.js"),
        not_with=(*_H, "-V", "--list-files", "--list-reporters", "--list-interfaces"),
    ),
    RunnerPattern(
        "playwright-test", programs=("playwright",), subcommand=("test",), not_with=(*_H, "--list")
    ),
    *rows(
        "npm-test",
        [
            ("test",),
            ("t",),
            ("tst",),
            ("run", "test"),
            ("run", "test:*"),
            ("run-script", "test"),
            ("run-script", "test:*"),
            ("install-test",),
            ("it",),
            ("install-ci-test",),
            ("cit",),
        ],
        programs=NPM_PROGRAMS,
        value_options=("--prefix", "-w", "--workspace"),
        not_with=_H,
    ),
    *rows(
        "pnpm-test",
        [("test",), ("t",), ("tst",), ("test:*",), ("run", "test"), ("run", "test:*")],
        programs=PNPM_PROGRAMS,
        value_options=("-C", "--dir", "--filter", "-F", "--filter-prod"),
        not_with=_H,
    ),
    *rows(
        "yarn-test",
        [
            ("test",),
            ("test:*",),
            ("run", "test"),
            ("run", "test:*"),
            ("workspace", "*", "test"),
            ("workspace", "*", "test:*"),
            ("workspace", "*", "run", "test"),
        ],
        programs=YARN_PROGRAMS,
        value_options=("--cwd",),
        not_with=_H,
    ),
    *rows(
        "bun-test",
        [("test",), ("run", "test"), ("run", "test:*")],
        programs=("bun",),
        not_with=_H,
    ),
    RunnerPattern(
        "deno-test", programs=("deno",), subcommand=("test",), not_with=(*_H, "--no-run")
    ),
    RunnerPattern(
        "jest-worker",
        role=WORKER_ROLE,
        programs=("processChild.js", "child.js"),
        path_suffixes=(
            "/jest-worker/build/workers/processChild.js",
            "/jest-worker/build/child.js",
        ),
        not_with=(),
    ),
    RunnerPattern(
        "vitest-worker",
        role=WORKER_ROLE,
        programs=("forks.js", "vmForks.js", "child.js", "process.js"),
        path_suffixes=(
            "/vitest/dist/workers/forks.js",
            "/vitest/dist/workers/vmForks.js",
            "/vitest/dist/child.js",
            # tinypool's child_process entry: vitest 1-3 run their forks pool through it
            "/tinypool/dist/entry/process.js",
            "/tinypool/dist/esm/entry/process.js",
        ),
        not_with=(),
    ),
    # --- build systems ---
    RunnerPattern(
        "make-test",
        programs=("make", "gmake", "bmake"),
        any_arg=("test", "tests", "check", "test-*", "test_*"),
        value_options=(
            "-C",
            "--directory",
            "-f",
            "--file",
            "--makefile",
            "-I",
            "--include-dir",
            "-o",
            "--old-file",
            "--assume-old",
            "-W",
            "--what-if",
            "--new-file",
            "--assume-new",
        ),
        not_with=(*_H, "-v", "-n", "--dry-run", "--just-print", "--recon", "-q", "--question"),
    ),
    RunnerPattern(
        "ninja-test",
        programs=("ninja",),
        any_arg=("test", "check"),
        value_options=("-C", "-f", "-j", "-k", "-l", "-d", "-w"),
        not_with=(*_H, "-n", "-t"),
    ),
    RunnerPattern(
        "meson-test", programs=("meson",), subcommand=("test",), not_with=(*_H, "--list")
    ),
    RunnerPattern(
        "ctest",
        programs=("ctest",),
        not_with=(*_H, "-N", "--show-only", "--show-only=*", "--print-labels"),
    ),
    RunnerPattern(
        "mvn-test",
        programs=(
            "mvn",
            "mvnw",
            "mvnd",
            # what the mvn and mvnw scripts exec: java with these main classes
            "org.codehaus.plexus.classworlds.launcher.Launcher",
            "org.apache.maven.wrapper.MavenWrapperMain",
        ),
        # every lifecycle phase from test on runs the tests
        any_arg=(
            "test",
            "integration-test",
            "verify",
            "package",
            "install",
            "deploy",
            "*:test",
            "*:integration-test",
        ),
        value_options=(
            "-f",
            "--file",
            "-s",
            "--settings",
            "-gs",
            "--global-settings",
            "-t",
            "--toolchains",
            "-pl",
            "--projects",
            "-rf",
            "--resume-from",
            "-P",
            "--activate-profiles",
            "-T",
            "--threads",
            "-l",
            "--log-file",
            "-D",
            "--define",
            "-b",
            "--builder",
        ),
        not_with=(
            *_H,
            "-v",
            "-DskipTests",
            "-DskipTests=true",
            "-Dmaven.test.skip",
            "-Dmaven.test.skip=true",
        ),
    ),
    RunnerPattern(
        "gradle-test",
        programs=(
            "gradle",
            "gradlew",
            # what the gradle and gradlew scripts exec: java with these main classes
            "org.gradle.wrapper.GradleWrapperMain",
            "org.gradle.launcher.GradleMain",
        ),
        any_arg=(
            "test",
            "check",
            "build",
            "integrationTest",
            "*:test",
            "*:check",
            "*:build",
            "*:integrationTest",
            "*UnitTest",
            "connectedCheck",
        ),
        value_options=(
            "-x",
            "--exclude-task",
            "-p",
            "--project-dir",
            "-b",
            "--build-file",
            "-c",
            "--settings-file",
            "-g",
            "--gradle-user-home",
            "-I",
            "--init-script",
            "-D",
            "-P",
            "--console",
            "--warning-mode",
        ),
        not_with=(*_H, "-?", "-v", "--dry-run", "-m"),
    ),
    *rows(
        "bazel-test",
        [("test",), ("coverage",)],
        programs=("bazel", "bazelisk"),
        not_with=_H,
    ),
    # --- ruby, .NET ---
    RunnerPattern("rspec", programs=("rspec",), not_with=(*_H, "-v", "--dry-run", "--init")),
    RunnerPattern(
        "rake-test",
        programs=("rake",),
        any_arg=("test", "spec", "test:*", "spec:*"),
        value_options=("-f", "--rakefile", "-C", "--directory", "-I", "--libdir", "-r", "-R", "-j"),
        not_with=(*_H, "-V", "-T", "--tasks", "-n", "--dry-run", "-P", "--prereqs", "-W", "-D"),
    ),
    *rows("rails-test", [("test",), ("test:*",)], programs=("rails",), not_with=_H),
    *rows(
        "dotnet-test",
        [("test",), ("vstest",)],
        programs=("dotnet",),
        not_with=(*_H, "-?", "--list-tests", "-t"),
    ),
)
