"""The builtin runner table: data only, one :class:`~runctx.runners.pattern.RunnerPattern` per row.

Rows are tried in order, user rows (from ``[tool.runctx]`` and the user's own
configuration file) first. A row matches an argv once the walk
(:mod:`runctx.runners.walk`) has seen through wrappers and interpreters to the
program; its argument rules then decide (``go test`` is a run, ``go test
-list .`` is not). Information requests (``--help``, ``--version``, listing
and dry-run options) are never runs: they touch nothing a suite touches.

Task rows (role ``task``, at the end) name task runners whose task is a run
only if its text runs a runner (``npm run unit``): the hook reads that text
from the project's files (:mod:`runctx.runners.tasks`), a scan sees whether a
runner runs below the task. A task that is a run by its name alone
(``npm test``, ``make check``) has a runner row.

The same table serves the hook's reading of a command string and the scan's
reading of ``/proc/PID/cmdline``; the list of runners in ``docs/runners.md`` is
checked against it by the test suite.
"""

from __future__ import annotations

from runctx.runners.pattern import (
    DEFAULT_NOT_WITH,
    TASK_ROLE,
    WORKER_ROLE,
    RunnerPattern,
    rows,
)
from runctx.runners.programs import (
    HATCH_VALUE_OPTIONS,
    MAKE_CHDIR_OPTIONS,
    MAKE_FILE_OPTIONS,
    MAKE_NOT_WITH,
    MAKE_NUMBER_OPTIONS,
    MAKE_PROGRAMS,
    MAKE_VALUE_OPTIONS,
    NODE_VALUES,
    NPM_CHDIR_OPTIONS,
    NPM_PROGRAMS,
    NPM_VALUE_OPTIONS,
    PNPM_CHDIR_OPTIONS,
    PNPM_OWN_COMMANDS,
    PNPM_PROGRAMS,
    PNPM_VALUE_OPTIONS,
    YARN_OWN_COMMANDS,
    YARN_PROGRAMS,
    YARN_VALUE_OPTIONS,
)

_H = (*DEFAULT_NOT_WITH, "-h")
_PYTEST_VALUES = (
    *("-k", "-m", "-p", "-r", "-o", "--override-ini", "-W", "--pythonwarnings", "-c"),
    *("-n", "--numprocesses", "--rootdir", "--basetemp", "--confcutdir"),
)

_PYTHON_BOOTSTRAPS = (
    # execnet's popen bootstrap line, as pytest-xdist starts each worker.
    "import sys;exec(eval(sys.stdin.readline()))",
    "import sys;import json;exec(json.loads(sys.stdin.readline()))",
)

MELOS_OWN_COMMANDS = (
    *("bootstrap", "bs", "clean", "exec", "format", "analyze", "list", "publish", "version"),
    *("run", "pub", "init", "help"),
)
"""melos's own commands; any other word is a script of ``melos.yaml`` (``melos test``)."""

CARGO_OWN_COMMANDS = (
    *("build", "b", "check", "c", "clean", "doc", "d", "new", "init", "add", "remove", "run"),
    *("r", "test", "t", "bench", "update", "search", "publish", "install", "uninstall"),
    *("fmt", "clippy", "fix", "tree", "vendor", "metadata", "package", "login", "owner"),
    *("yank", "help", "rustc", "rustdoc", "fetch", "generate-lockfile", "locate-project"),
    *("pkgid", "report", "verify-project", "version", "config", "info", "logout"),
)
"""cargo's own commands: any other word may be an alias of ``.cargo/config.toml``."""

_RUN_TESTS_SCRIPTS = tuple(
    stem + ext
    for stem in (
        *("run_tests", "run-tests", "runtests", "runTests", "RunTests", "run_test", "run-test"),
        *("runtest", "runTest", "RunTest"),
    )
    for ext in ("", ".py", ".sh", ".bash")
)

TEST_PROGRAM_OPTIONS = (
    "--gtest_*",  # googletest
    "--run_test*",  # Boost.Test
    *("--dt-*", "--test-case=*", "-tc=*"),  # doctest
    *("--test-threads*", "--nocapture"),  # a Rust test harness (libtest)
)
"""Options only a test framework's programs take: a program named by its path and given one
(``./unit --gtest_filter=Suite.*``) is a test program run."""

RUNNER_ONLY_TOLD = ("--help", "--version", "--collect-only", "--co")
"""Arguments an environment hands on to its runner (``tox -e py -- --collect-only``, ``nox -s
tests -- --help``) that make the runner print and run no test."""

CORE_TEST_NAMES = ("test", "test:*")
"""Task names that are test runs whatever their text (``npm test``, ``npm run test:unit``)."""
NAMED_TEST_NAMES = ("tests", "test-*", "test_*", "*:test", "*:test:*")
"""Task names that say "test run" (``yarn test-unit``, ``make test_all``): a run when
the task's text cannot be read, and otherwise as its text says."""
TEST_TASK_NAMES = (*CORE_TEST_NAMES, *NAMED_TEST_NAMES)
"""Every test-ish task name, for task runners whose tasks runctx cannot read
(``pixi run test:unit``, ``nx run app:test``, ``yarn workspace app test-e2e``)."""

_MAKE_TARGETS = ("test", "tests", "check", "check-TESTS", "distcheck", "installcheck", "testall")
"""make targets that run tests whatever their recipe (``make test``, ``make check``,
automake's ``check-TESTS``/``distcheck``); any other target counts when its recipe
runs a runner (the ``make-target`` task row)."""
MAKE_TEST_PREREQUISITES = ("test", "check-TESTS")
"""Of those, the ones that run tests whatever their recipe as another target's prerequisite
too (``ci: lint test``); ``all: lib tests`` builds the test programs, ``ci: lint check``
often only lints: as prerequisites, their recipes decide."""
_MAKE_TEST_NAMES = (
    *("test-*", "test_*", "tests-*", "unittest", "unittests", "unit-test", "unit-tests"),
    *("integration-test", "integration-tests", "e2e-test", "e2e-tests"),
)
"""make targets whose name says "test run": so decided when the recipe cannot be read."""

_JUST_VALUES = (
    *("--set", "--shell", "--shell-arg", "--dotenv-filename", "--dotenv-path"),
    *("--color", "--command-color", "--chooser", "--list-heading", "--list-prefix"),
)
_JUST_NOT_WITH = (
    *_H,
    *("-l", "--list", "--summary", "-n", "--dry-run", "--evaluate", "--show", "-s"),
    *("--dump", "--fmt", "--init", "--edit", "-e", "--choose", "--variables"),
    *("--completions", "--groups", "--changelog"),
)
_TASK_VALUES = ("--output", "-o", "--concurrency", "-C", "--interval", "--sort")
_TASK_NOT_WITH = (
    *_H,
    *("-l", "--list", "-a", "--list-all", "--summary", "-n", "--dry", "--init", "-i"),
    *("--status", "--json"),
)

_GRADLE_VALUES = (
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
    "--max-workers",
    "--priority",
    "--include-build",
    "--tests",
)

_MAVEN_SKIPS = (
    *("-DskipTests", "-DskipTests=true", "-Dmaven.test.skip", "-Dmaven.test.skip=true"),
    *("-Dmaven.test.skip.exec", "-Dmaven.test.skip.exec=true", "-Dtest.skip=true"),
)
"""Options with which Maven runs no test."""
_EARTHLY_TEST_TARGETS = (
    *("test", "tests", "test-*", "test_*", "tests-*", "*-test", "*_test", "*-tests", "*_tests"),
    *("e2e", "e2e-*", "*-e2e"),
)
_EARTHLY_VALUES = (
    *("-s", "--secret", "--secret-file", "--build-arg", "--platform", "--config"),
    *("--remote-cache", "--cache-from", "--buildkit-host", "--org", "--sat", "--satellite"),
    "--project",
)
_EARTHLY_NOT_WITH = (*_H, "-a", "--artifact", "--image")
_MAVEN_VALUES = (
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
    "-e",
)

_XCODEBUILD_VALUES = (
    "-project",
    "-workspace",
    "-scheme",
    "-target",
    "-destination",
    "-destination-timeout",
    "-sdk",
    "-arch",
    "-configuration",
    "-derivedDataPath",
    "-resultBundlePath",
    "-resultBundleVersion",
    "-only-testing",
    "-skip-testing",
    "-testPlan",
    "-only-test-configuration",
    "-skip-test-configuration",
    "-xcconfig",
    "-toolchain",
    "-jobs",
    "-maximum-concurrent-test-device-destinations",
    "-maximum-concurrent-test-simulator-destinations",
    "-test-iterations",
    "-testProductsPath",
    "-xctestrun",
    "-clonedSourcePackagesDirPath",
)

_TURBO_VALUE_OPTIONS = (
    *("--filter", "-F", "--concurrency", "--cache-dir", "--graph", "--output-logs"),
    *("--log-order", "--env-mode", "--profile", "--token", "--team", "--api", "--heap"),
    *("--log-prefix", "--remote-cache-timeout", "--cache", "--summarize"),
)
_TURBO_OWN_COMMANDS = (
    *("login", "logout", "link", "unlink", "prune", "gen", "daemon", "ls", "query"),
    *("generate", "info", "telemetry", "scan", "bin", "boundaries", "watch", "docs"),
)

_PDM_OWN_COMMANDS = (
    *("add", "build", "cache", "completion", "config", "export", "fix", "import", "info"),
    *("init", "install", "list", "lock", "outdated", "plugin", "publish", "py", "python"),
    *("remove", "run", "search", "self", "show", "sync", "update", "use", "venv"),
)

_COMPOSER_OWN_COMMANDS = (
    *("about", "archive", "audit", "browse", "home", "bump", "check-platform-reqs"),
    *("clear-cache", "clearcache", "cc", "config", "create-project", "depends", "why"),
    *("diagnose", "dump-autoload", "dumpautoload", "exec", "fund", "global", "help", "init"),
    *("install", "i", "licenses", "list", "outdated", "prohibits", "why-not", "reinstall"),
    *("remove", "rm", "require", "r", "run-script", "run", "search", "self-update"),
    *("selfupdate", "show", "info", "status", "suggests", "update", "u", "upgrade"),
    *("validate", "repository", "repo"),
)

_NX_OWN_COMMANDS = (
    *("run", "run-many", "affected", "graph", "dep-graph", "init", "generate", "g"),
    *("migrate", "release", "reset", "show", "list", "format", "format:check", "format:write"),
    *("daemon", "repair", "report", "sync", "sync:check", "watch", "exec", "add", "connect"),
    *("login", "logout", "view-logs", "import", "print-affected", "affected:graph", "mcp"),
)

BUILTIN_PATTERNS: tuple[RunnerPattern, ...] = (
    # --- python ---
    RunnerPattern(
        "pytest",
        programs=("pytest", "py.test", "pytest-3"),
        modules=("pytest", "py.test"),
        # short options with a value, so that ``-kshow`` is no ``-h`` in a cluster
        value_options=_PYTEST_VALUES,
        not_with=(
            *_H,
            "-V",
            "--collect-only",
            "--collectonly",
            "--co",
            "--fixtures",
            "--funcargs",
            "--fixtures-per-test",
            "--markers",
            "--setup-plan",
            "--setup-only",
            "--cache-show",
        ),
    ),
    RunnerPattern(
        "pytest-watch",
        programs=("ptw", "pytest-watch", "pytest-watcher"),
        modules=("pytest_watch", "pytest_watcher"),
        not_with=_H,
    ),
    RunnerPattern("unittest", modules=("unittest", "xmlrunner", "doctest"), not_with=_H),
    RunnerPattern(
        "nose2", programs=("nose2",), modules=("nose2",), not_with=(*_H, "--collect-only")
    ),
    RunnerPattern(
        "nose", programs=("nosetests",), modules=("nose",), not_with=(*_H, "-V", "--collect-only")
    ),
    RunnerPattern(
        "trial",
        programs=("trial",),
        modules=("twisted.trial",),
        not_with=(*_H, "--help-reporters", "-n", "--dry-run"),
    ),
    RunnerPattern(
        "behave",
        programs=("behave",),
        modules=("behave",),
        value_options=("-f", "--format", "--runner", "-t", "--tags", "-i", "-e", "-k", "-D"),
        not_with=(
            *(*_H, "-d", "--dry-run", "--tags-help", "--lang-list", "--lang-help"),
            *("-f=help", "--format=help", "--runner=help", "--steps-catalog"),
        ),
    ),
    RunnerPattern(
        "robot",
        programs=("robot", "pybot", "pabot", "rebot"),
        modules=("robot", "pabot"),
        not_with=(*_H, "--dryrun", "-?"),
    ),
    RunnerPattern(
        "ward", programs=("ward",), modules=("ward",), not_with=_H, not_subcommands=("fixtures",)
    ),
    RunnerPattern("green", programs=("green", "green3"), modules=("green",), not_with=(*_H, "-V")),
    RunnerPattern(
        "zope-testrunner",
        programs=("zope-testrunner",),
        modules=("zope.testrunner",),
        not_with=(*_H, "--list-tests"),
    ),
    *rows(
        "setup-py-test",
        [("test",), ("pytest",), ("nosetests",)],
        programs=("setup.py",),
        not_with=_H,
    ),
    RunnerPattern(
        "tox",
        programs=("tox",),
        modules=("tox",),
        not_with=(
            *_H,
            "-l",
            "--listenvs",
            "-a",
            "--listenvs-all",
            "--showconfig",
            "--help-ini",
            "--notest",
            "--no-test",
            "--devenv",
        ),
        not_subcommands=(
            *("list", "l", "config", "c", "quickstart", "q", "depends", "de"),
            *("devenv", "d", "exec", "e", "schema"),
        ),
        value_options=("-e", "--workdir", "--root", "-r", "--recreate-pkg", "-x", "--override"),
        chdir_file_options=("-c", "--conf"),
        not_passed=RUNNER_ONLY_TOLD,
    ),
    RunnerPattern(
        "nox",
        programs=("nox",),
        modules=("nox",),
        not_with=(*_H, "-l", "--list", "--list-sessions", "--install-only", "--json"),
        value_options=("-s", "--session", "--sessions", "-e", "-p", "--python", "-t", "--tags"),
        chdir_file_options=("-f", "--noxfile"),
        not_passed=RUNNER_ONLY_TOLD,
    ),
    RunnerPattern(
        "hatch-test",
        programs=("hatch",),
        subcommand=("test",),
        value_options=HATCH_VALUE_OPTIONS,
        not_with=(*_H, "--show"),
    ),
    *rows(
        "hatch-test",
        [("run", "test"), ("run", "test:*")],
        programs=("hatch",),
        value_options=HATCH_VALUE_OPTIONS,
        not_with=_H,
    ),
    *rows(
        "python-task-test",
        [("run", name) for name in TEST_TASK_NAMES],
        programs=("pdm", "rye", "pixi", "devbox", "mise"),
        value_options=("-p", "--project", "-e", "--environment", "--manifest-path"),
        not_with=_H,
    ),
    *rows("rye-test", [("test",)], programs=("rye",), not_with=_H),
    *rows(
        "python-task-test",
        [(name,) for name in TEST_TASK_NAMES],
        programs=("pdm",),
        value_options=("-p", "--project"),
        not_with=_H,
    ),
    RunnerPattern(
        "python-task-test",
        programs=("poe", "invoke", "inv", "doit", "mage", "makers"),
        any_arg=TEST_TASK_NAMES,
        value_options=("-C", "--root", "-f", "--file", "-d", "--dir"),
        not_with=(*_H, "-l", "--list", "-n", "--dry-run"),
    ),
    # a project's suite driver asked to list its tests runs none (``run_tests.py --list``)
    RunnerPattern(
        "run-tests-script",
        programs=_RUN_TESTS_SCRIPTS,
        not_with=(*_H, "--list", "--list-tests", "--collect-only"),
    ),
    RunnerPattern(
        "django-test",
        programs=("manage.py", "django-admin", "django-admin.py"),
        modules=("django",),
        subcommand=("test",),
        value_options=("--settings", "--pythonpath", "-v", "--verbosity", "--testrunner"),
        not_with=_H,
    ),
    RunnerPattern("pytest-xdist-worker", role=WORKER_ROLE, codes=_PYTHON_BOOTSTRAPS, not_with=()),
    # pytest-xdist workers with setproctitle installed: their title.
    RunnerPattern(
        "pytest-xdist-worker", role=WORKER_ROLE, programs=("[pytest-xdist",), not_with=()
    ),
    # --- go ---
    RunnerPattern(
        "go-test",
        programs=("go", "richgo", "tinygo"),
        subcommand=("test",),
        chdir_options=("-C",),
        # -c builds the test binary, -list lists tests, -n prints the commands it would run
        not_with=(*_H, "-help", "-c", "-list", "-list=*", "-n"),
    ),
    # go-acc runs ``go test`` with coverage over the packages it is given
    RunnerPattern("go-test", programs=("go-acc",), not_with=(*_H, "--version")),
    # gotest: ``go test`` with colours, its flags as go test's (``gotest -v ./...``)
    RunnerPattern("go-test", programs=("gotest",), not_with=(*_H, "-c", "-list", "-list=*", "-n")),
    RunnerPattern(
        "go-test",
        programs=("gotestsum",),
        not_with=_H,
        not_subcommands=("tool",),
        value_options=(
            "--format",
            "-f",
            "--junitfile",
            "--jsonfile",
            "--packages",
            "--rerun-fails",
        ),
    ),
    RunnerPattern(
        "ginkgo",
        programs=("ginkgo",),
        not_with=(*_H, "--dry-run", "-dryRun", "--dryRun"),
        not_subcommands=(
            *("bootstrap", "generate", "version", "help", "outline", "labels", "unfocus"),
            *("build", "completion", "blur"),
        ),
    ),
    # --- rust ---
    *rows(
        "cargo-test",
        [
            ("test",),
            ("t",),
            ("tarpaulin",),
            ("miri", "test"),
            ("hack", "test"),
            ("insta", "test"),
            ("careful", "test"),
            ("mutants",),
            ("make", "test"),
            ("make", "test-*"),
            ("make", "ci-flow"),
            # an xtask (``cargo xtask``, ``cargo run -p xtask --``) named for tests
            ("xtask", "test"),
            ("xtask", "test-*"),
            ("xtask", "test_*"),
            ("xtask", "tests"),
        ],
        programs=("cargo", "cross"),
        value_options=("--config", "-Z", "-p", "--package", "--features", "--target", "-j"),
        chdir_options=("-C",),
        chdir_file_options=("--manifest-path",),
        not_with=(*_H, "-V", "--no-run"),
        not_passed=("--list",),
    ),
    RunnerPattern("cargo-test", programs=("cargo-tarpaulin",), not_with=(*_H, "-V", "--no-run")),
    RunnerPattern(
        "cargo-test",
        programs=("cargo",),
        subcommand=("llvm-cov",),
        not_subcommands=("report", "clean", "show-env", "run"),
        value_options=(
            *("--config", "-Z", "-p", "--package", "--features", "--target", "-j"),
            *("--output-path", "--output-dir", "--exclude", "--ignore-filename-regex"),
            *("--fail-under-lines", "--fail-under-functions", "--fail-under-regions"),
            *("--codecov", "--profile"),
        ),
        chdir_file_options=("--manifest-path",),
        not_with=(*_H, "-V", "--no-run"),
    ),
    RunnerPattern(
        "cargo-test",
        programs=("cargo",),
        subcommand=("watch",),
        arg_options=("-x", "--exec"),
        any_arg=("test", "test *", "t", "t *", "nextest *", "llvm-cov*"),
        value_options=("-w", "--watch", "-i", "--ignore", "-d", "--delay", "-s", "--shell"),
        not_with=_H,
    ),
    *rows(
        "cargo-nextest",
        [("nextest", "run"), ("nextest", "r"), ("miri", "nextest", "run")],
        programs=("cargo", "cargo-nextest"),
        value_options=("--config", "-Z", "-p", "--package", "--features", "--profile", "-P"),
        chdir_file_options=("--manifest-path",),
        not_with=(*_H, "-V", "--no-run"),
    ),
    # --- javascript ---
    RunnerPattern(
        "node-test",
        programs=("node", "nodejs", "tsx"),
        with_options=("--test", "--test=*"),
        leading_options=True,
        value_options=NODE_VALUES,
        not_with=(*_H, "-v", "-e", "--eval", "-p", "--print", "-c", "--check"),
    ),
    RunnerPattern(
        "jest",
        programs=("jest", "jest.js"),
        value_options=("-c", "--config", "-t", "--testNamePattern", "-w", "--maxWorkers"),
        not_with=(*_H, "-v", "--listTests", "--showConfig", "--clearCache", "--init"),
    ),
    RunnerPattern(
        "vitest",
        programs=("vitest", "vitest.mjs"),
        value_options=("-c", "--config", "-t", "--testNamePattern", "-r", "--root"),
        not_with=(*_H, "-v", "--list"),
        not_subcommands=("list", "init"),
    ),
    # vitest 1-3 write a title over their command line: ``node (vitest)``, and
    # ``node (vitest 1)`` for each worker of its forks pool
    RunnerPattern("vitest", programs=("(vitest)",), not_with=()),
    RunnerPattern(
        "mocha",
        programs=("mocha", "_mocha", "mocha.js", "ts-mocha", "electron-mocha"),
        value_options=(
            *("-g", "--grep", "-f", "--fgrep", "-R", "--reporter", "-O", "--reporter-option"),
            *("-r", "--require", "-t", "--timeout", "-s", "--slow", "-u", "--ui", "--config"),
        ),
        not_with=(*_H, "-V", "--list-files", "--list-reporters", "--list-interfaces", "--dry-run"),
        not_subcommands=("init",),
    ),
    RunnerPattern(
        "playwright-test", programs=("playwright",), subcommand=("test",), not_with=(*_H, "--list")
    ),
    RunnerPattern("ava", programs=("ava",), not_with=(*_H, "-v"), not_subcommands=("reset-cache",)),
    RunnerPattern(
        "tap",
        programs=("tap", "tape"),
        not_with=(*_H, "-v", "--list"),
        not_subcommands=(
            *("report", "replay", "plugin", "build", "list", "version", "versions"),
            *("config", "help", "repl"),
        ),
    ),
    *rows("karma", [("start",), ("run",)], programs=("karma",), not_with=_H),
    RunnerPattern("cypress", programs=("cypress",), subcommand=("run",), not_with=_H),
    *rows("ng-test", [("test",), ("t",), ("e2e",), ("e",)], programs=("ng",), not_with=_H),
    *rows(
        "react-scripts-test",
        [("test",)],
        programs=("react-scripts", "craco", "react-app-rewired", "razzle", "tsdx", "kcd-scripts"),
        not_with=_H,
    ),
    RunnerPattern(
        "jasmine",
        programs=("jasmine", "jasmine-node", "jasmine-browser-runner"),
        not_with=_H,
        not_subcommands=("init", "examples", "help", "version", "serve"),
    ),
    RunnerPattern(
        "wdio",
        programs=("wdio",),
        not_with=_H,
        not_subcommands=("config", "install", "repl"),
    ),
    RunnerPattern(
        "cucumber",
        programs=("cucumber", "cucumber-js"),
        not_with=(*_H, "-d", "--dry-run", "--i18n-languages", "--i18n-keywords", "--init"),
    ),
    RunnerPattern(
        "js-test",
        programs=(
            *("testcafe", "nightwatch", "qunit", "uvu", "web-test-runner", "wtr", "lab"),
            *("start-server-and-test", "server-test", "intern", "tape-run", "zora", "borp"),
            "tstyche",
            # Mocha's suites in a browser: mochify, mocha-headless-chrome, mocha-chrome
            *("mochify", "mocha-headless-chrome", "mocha-chrome"),
            # a TextMate grammar's tests, its assertions or snapshots (VS Code extensions)
            *("vscode-tmgrammar-test", "vscode-tmgrammar-snap"),
            "teaspoon",  # a Rails app's JavaScript suites, in a browser (the teaspoon gem)
        ),
        not_with=(*_H, "-v"),
    ),
    *rows("js-test", [("test",)], programs=("detox", "stencil", "ember"), not_with=_H),
    # Vite+'s own command line: ``vp test`` runs Vitest
    *rows("js-test", [("test",)], programs=("vp",), not_with=(*_H, "--watch", "-w")),
    # Vue CLI's test plugins (``vue-cli-service test:unit``), testem's ``testem ci``
    *rows("js-test", [("test:unit",), ("test:e2e",)], programs=("vue-cli-service",), not_with=_H),
    *rows("js-test", [("ci",)], programs=("testem",), not_with=_H),
    *rows("js-test", [("run",)], programs=("stryker",), not_with=_H),
    *rows(
        "npm-test",
        [
            ("test",),
            ("t",),
            ("tst",),
            *(("run", name) for name in CORE_TEST_NAMES),
            *(("run-script", name) for name in CORE_TEST_NAMES),
            ("install-test",),
            ("it",),
            ("install-ci-test",),
            ("cit",),
        ],
        programs=NPM_PROGRAMS,
        value_options=NPM_VALUE_OPTIONS,
        chdir_options=NPM_CHDIR_OPTIONS,
        not_with=_H,
    ),
    *rows(
        "pnpm-test",
        [
            ("t",),
            ("tst",),
            ("install-test",),
            ("it",),
            ("recursive", "t"),
            ("recursive", "install-test"),
            *((name,) for name in CORE_TEST_NAMES),
            *(("run", name) for name in CORE_TEST_NAMES),
            *(("recursive", name) for name in TEST_TASK_NAMES),
            *(("recursive", "run", name) for name in TEST_TASK_NAMES),
        ],
        programs=PNPM_PROGRAMS,
        value_options=PNPM_VALUE_OPTIONS,
        chdir_options=PNPM_CHDIR_OPTIONS,
        not_with=_H,
    ),
    *rows(
        "yarn-test",
        [
            *((name,) for name in CORE_TEST_NAMES),
            *(("run", name) for name in CORE_TEST_NAMES),
            *(
                (*prefix, name)
                for prefix in (
                    ("workspace", "*"),
                    ("workspace", "*", "run"),
                    ("workspaces", "foreach"),
                    ("workspaces", "foreach", "run"),
                    ("workspaces", "run"),
                )
                for name in TEST_TASK_NAMES
            ),
        ],
        programs=YARN_PROGRAMS,
        value_options=YARN_VALUE_OPTIONS,
        chdir_options=("--cwd",),
        not_with=_H,
    ),
    *rows(
        "bun-test",
        [*((name,) for name in CORE_TEST_NAMES), *(("run", name) for name in CORE_TEST_NAMES)],
        programs=("bun",),
        chdir_options=("--cwd",),
        not_with=_H,
    ),
    *rows(
        "deno-test",
        [("test",), ("task", "test"), ("task", "test:*")],
        programs=("deno",),
        not_with=(*_H, "--no-run"),
    ),
    *rows(
        "deno-task",  # read in deno.json (runctx.runners.tasks.json_tasks)
        [("task",)],
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="json-tasks",
        programs=("deno",),
        value_options=("--config", "-c", "--cwd"),
        not_with=_H,
    ),
    *rows(
        "monorepo-test",
        [
            (name,)
            for name in ("test", "test:*", "test-*", "e2e", "e2e-*", "*-test", "affected:test")
        ]
        + [("affected:e2e",)],
        programs=("nx",),
        not_with=(*_H, "--dry-run", "--graph"),
    ),
    *rows(
        "monorepo-test",
        [("run",), ("run-many",), ("affected",), ("exec",)],
        programs=("nx",),
        any_arg=("*:test", "*:test:*", "*:e2e", "test", "test:*", "e2e", "*,test*", "*,e2e*"),
        arg_options=("-t", "--target", "--targets"),
        value_options=("-p", "--projects", "--exclude", "--base", "--head", "--parallel", "-c"),
        not_with=(*_H, "--dry-run", "--graph"),
    ),
    # an Nx target named otherwise: read in project.json or package.json (tasks.nx_targets)
    RunnerPattern(
        "nx-target",
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="nx",
        programs=("nx",),
        subcommand=("run",),
        value_options=("-c", "--configuration"),
        not_with=(*_H, "--dry-run", "--graph"),
    ),
    RunnerPattern(
        "nx-target",  # ``nx TARGET PROJECT``
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="nx",
        task_names="all",
        programs=("nx",),
        value_options=("-c", "--configuration"),
        not_subcommands=_NX_OWN_COMMANDS,
        not_with=(*_H, "--dry-run", "--graph"),
    ),
    # the git hooks a commit or a push runs (their tests): read in the hooks and the
    # configurations of the frameworks that installed them (tasks.git_hooks)
    *(
        RunnerPattern(
            kind,
            role=TASK_ROLE,
            reader="git-hooks",
            task_names="all",
            programs=("git",),
            subcommand=(subcommand,),
            value_options=(
                *("-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "-m"),
                *("--message", "-F", "--file", "--author", "--date", "-t", "--template"),
                *("--cleanup", "--fixup", "--squash", "-o", "--push-option", "--repo"),
                *("--receive-pack", "--exec"),
            ),
            chdir_options=("-C",),
            not_with=(*_H, "-n", "--no-verify", "--dry-run"),
        )
        for kind, subcommand in (("git-commit", "commit"), ("git-push", "push"))
    ),
    # a compose service run by name: its ``command`` in the compose file (tasks.compose_services)
    *(
        RunnerPattern(
            kind,
            role=TASK_ROLE,
            reader="compose",
            # ``run SERVICE CMD`` runs CMD, read where it stands; ``up`` names services
            task_names="alone" if subcommand == "run" else "all",
            programs=programs,
            subcommand=(*prefix, subcommand),
            file_options=("-f", "--file"),
            value_options=(
                *("-p", "--project-name", "--project-directory", "--profile", "--env-file"),
                *("-e", "--env", "-v", "--volume", "-w", "--workdir", "--name", "-u"),
                *("--user", "--entrypoint", "-l", "--label", "--exit-code-from", "--scale"),
                *("-t", "--timeout", "--pull", "--wait-timeout", "--attach", "--no-attach"),
                *("-H", "--host", "--context", "--config", "--log-level", "--cap-add"),
                *("--cap-drop", "--publish", "--network"),
            ),
            not_with=(*_H, "--dry-run", "--no-start"),  # detached services run all the same
        )
        for programs, prefix in (
            (("docker", "podman", "nerdctl"), ("compose",)),
            (("docker-compose", "podman-compose"), ()),
        )
        for kind, subcommand in (("compose-run", "run"), ("compose-up", "up"))
    ),
    # ``pre-commit run [HOOK] --all-files``, ``lefthook run pre-push``: the same hooks, run
    # by the framework itself
    RunnerPattern(
        "pre-commit-run",
        role=TASK_ROLE,
        reader="git-hooks",
        task_names="all",
        programs=("pre-commit",),
        subcommand=("run",),
        file_options=("-c", "--config"),
        value_options=("--files", "--from-ref", "--to-ref", "-s", "-o", "--source", "--origin"),
        not_with=_H,
    ),
    RunnerPattern(
        "lint-staged",
        role=TASK_ROLE,
        reader="git-hooks",
        task_names="all",
        programs=("lint-staged",),
        value_options=("-c", "--config", "-p", "--concurrent", "--cwd", "--diff", "--diff-filter"),
        not_with=(*_H, "--version", "-V"),
    ),
    RunnerPattern(
        "lefthook-run",
        role=TASK_ROLE,
        reader="git-hooks",
        task_names="first",
        programs=("lefthook",),
        subcommand=("run",),
        value_options=("--commands", "--jobs", "--tags", "--file", "--files-from-stdin"),
        not_with=_H,
    ),
    *rows(
        "nx-many",
        [("run-many",), ("affected",)],
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="nx",
        task_names="all",
        programs=("nx",),
        arg_options=("-t", "--target", "--targets"),
        value_options=("-p", "--projects", "--exclude", "--base", "--head", "--parallel", "-c"),
        not_with=(*_H, "--dry-run", "--graph"),
    ),
    RunnerPattern(
        "monorepo-test",
        programs=("turbo",),
        any_arg=(*TEST_TASK_NAMES, "*#test", "*#test:*", "e2e", "*#e2e"),
        value_options=_TURBO_VALUE_OPTIONS,
        chdir_options=("--cwd",),
        not_with=(*_H, "--dry-run", "--dry", "--dry-run=*", "--dry=*", "--graph"),
        not_subcommands=_TURBO_OWN_COMMANDS,
    ),
    # turbo and lerna run a task named otherwise in every package that has the script (or in
    # those --filter and --scope select): read there (runctx.runners.tasks.package_json)
    *(
        RunnerPattern(
            "turbo-task",
            role=TASK_ROLE,
            run_names=NAMED_TEST_NAMES,
            reader="package-json",
            task_names="all",
            programs=("turbo",),
            subcommand=subcommand,
            value_options=_TURBO_VALUE_OPTIONS,
            chdir_options=("--cwd",),
            not_with=(*_H, "--dry-run", "--dry", "--dry-run=*", "--dry=*", "--graph"),
            # ``turbo unit`` is ``turbo run unit`` when no command of turbo's is named
            not_subcommands=() if subcommand else (*_TURBO_OWN_COMMANDS, "run"),
        )
        for subcommand in (("run",), ())
    ),
    RunnerPattern(
        "lerna-script",
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="package-json",
        programs=("lerna",),
        subcommand=("run",),
        value_options=("--scope", "--ignore", "--concurrency", "--since", "--to", "--from"),
        not_with=_H,
    ),
    *rows(
        "monorepo-test",
        [*(("run", name) for name in TEST_TASK_NAMES), ("run", "e2e")],
        programs=("lerna", "rush", "rushx"),
        value_options=("--scope", "--ignore", "--concurrency", "--since", "-t", "--to", "--from"),
        not_with=_H,
    ),
    *rows(
        "monorepo-test",
        [(name,) for name in TEST_TASK_NAMES],
        programs=("rush", "rushx", "ultra", "wireit"),
        not_with=_H,
    ),
    RunnerPattern(
        "npm-test",
        programs=("npm-run-all", "npm-run-all2", "run-s", "run-p"),
        any_arg=TEST_TASK_NAMES,
        not_with=_H,
    ),
    # npm-run-all's scripts named otherwise (``run-p lint unit``): read in package.json
    RunnerPattern(
        "npm-run-all",
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="package-json",
        task_names="all",
        programs=("npm-run-all", "npm-run-all2", "run-s", "run-p"),
        value_options=("--npm-path", "--max-parallel"),
        not_with=_H,
    ),
    RunnerPattern(
        "jest-worker",
        role=WORKER_ROLE,
        programs=("processChild.js", "child.js"),
        path_suffixes=(
            "/jest-worker/build/workers/processChild.js",  # jest 27-29
            "/jest-worker/build/processChild.js",  # jest 30
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
    RunnerPattern(
        "vitest-worker", role=WORKER_ROLE, programs=("(vitest",), subcommand=("*)",), not_with=()
    ),
    RunnerPattern(
        "mocha-worker",
        role=WORKER_ROLE,
        programs=("worker.js",),
        path_suffixes=("/mocha/lib/nodejs/worker.js",),
        not_with=(),
    ),
    # --- build systems ---
    RunnerPattern(
        "make-test",
        programs=MAKE_PROGRAMS,
        any_arg=_MAKE_TARGETS,
        value_options=(*MAKE_VALUE_OPTIONS, *MAKE_FILE_OPTIONS),
        number_options=MAKE_NUMBER_OPTIONS,
        chdir_options=MAKE_CHDIR_OPTIONS,
        # automake's ``check`` with no tests asked of it builds them only
        not_with=(*MAKE_NOT_WITH, "TESTS="),
    ),
    RunnerPattern(
        "just-test",
        programs=("just",),
        any_arg=CORE_TEST_NAMES,
        value_options=_JUST_VALUES,
        file_options=("-f", "--justfile"),
        chdir_options=("-d", "--working-directory"),
        not_with=_JUST_NOT_WITH,
    ),
    RunnerPattern(
        "taskfile-test",
        programs=("task", "go-task"),
        any_arg=CORE_TEST_NAMES,
        value_options=_TASK_VALUES,
        file_options=("-t", "--taskfile"),
        chdir_options=("-d", "--dir"),
        not_with=_TASK_NOT_WITH,
    ),
    RunnerPattern(
        "ninja-test",
        programs=("ninja",),
        any_arg=("test", "check"),
        value_options=("-f", "-j", "-k", "-l", "-d", "-w"),
        chdir_options=("-C",),
        not_with=(*_H, "-n", "-t"),
    ),
    RunnerPattern(
        "meson-test",
        programs=("meson",),
        subcommand=("test",),
        chdir_options=("-C",),
        not_with=(*_H, "--list"),
    ),
    # ``meson dist`` builds the tarball and runs its test suite unless told not to
    RunnerPattern(
        "meson-test",
        programs=("meson",),
        subcommand=("dist",),
        chdir_options=("-C",),
        value_options=("--formats",),
        not_with=(*_H, "--no-tests"),
    ),
    RunnerPattern(
        "ctest",
        programs=("ctest",),
        chdir_options=("--test-dir",),
        value_options=("-j", "--parallel", "-L", "-R", "-E", "-C", "--build-config", "-T"),
        not_with=(*_H, "-N", "--show-only", "--show-only=*", "--print-labels"),
    ),
    RunnerPattern(
        "ctest",
        programs=("cmake",),
        with_options=("--build",),
        arg_options=("--target", "-t"),
        any_arg=("test", "check", "RUN_TESTS", "*_test", "*-test", "tests"),
        value_options=("--build", "-j", "--parallel", "--config"),
        not_with=_H,
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
        value_options=_MAVEN_VALUES,
        chdir_file_options=("-f", "--file"),
        not_with=(*_H, "-v", *_MAVEN_SKIPS),
    ),
    # ``mvn`` with no goal runs the pom's default goal (read by the hook)
    RunnerPattern(
        "mvn-default-goal",
        role=TASK_ROLE,
        reader="maven",
        task_names="all",
        programs=("mvn", "mvnw", "mvnd"),
        value_options=_MAVEN_VALUES,
        chdir_file_options=("-f", "--file"),
        not_with=(*_H, "-v", *_MAVEN_SKIPS),
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
            *("test", "test*", "check", "build", "allTests", "*Test", "*Tests", "connectedCheck"),
            *("*:test", "*:test*", "*:check", "*:build", "*:allTests", "*:*Test", "*:*Tests"),
            "*:connectedCheck",
        ),
        # tasks that build, install or report on tests without running them (a
        # task path's last part: ``:app:assembleDebugAndroidTest``)
        # and the tasks code-quality plugins add for each source set, its name last
        # (``checkstyleTest``, ``detektTest``: the test sources analysed, none run)
        except_args=(
            *("assemble*", "compile*", "install*", "bundle*", "package*", "lint*", "*Classes"),
            *("*Report", "testFixtures*", "*Sources", "*Jar", "process*", "javadoc*"),
            *("checkstyle*", "pmd*", "spotbugs*", "codenarc*", "detekt*", "ktlint*"),
        ),
        exclude_options=("-x", "--exclude-task"),
        aggregates=("build", "check", "*:build", "*:check"),
        value_options=_GRADLE_VALUES,
        chdir_options=("-p", "--project-dir"),
        not_with=(*_H, "-?", "-v", "--dry-run", "-m", "--status", "--stop"),
    ),
    # Gradle's daemon (no child of ``gradle test``) forks the test JVMs: workers,
    # each a run of its own while the daemon lives.
    RunnerPattern(
        "gradle-test",
        role=WORKER_ROLE,
        programs=("worker.org.gradle.process.internal.worker.GradleWorkerMain",),
        not_with=(),
    ),
    *rows(
        "bazel-test",
        [("test",), ("coverage",)],
        programs=("bazel", "bazelisk"),
        not_with=_H,
    ),
    # Bazel's server (a daemon, no child of ``bazel test``) starts each test
    # through this script: a worker, a run of its own while the server lives.
    RunnerPattern(
        "bazel-test",
        role=WORKER_ROLE,
        programs=("test-setup.sh",),
        path_suffixes=("/tools/test/test-setup.sh",),
        not_with=(),
    ),
    *rows("build-test", [("test",)], programs=("buck", "buck2", "plz", "please"), not_with=_H),
    RunnerPattern(
        "build-test",
        programs=("pants", "pants.pex"),
        any_arg=("test",),
        not_with=(*_H, "--help-advanced", "help", "-ldebug-only"),
    ),
    # --- jvm languages, clojure ---
    RunnerPattern(
        "sbt-test",
        programs=("sbt", "sbtn", "sbt-launch.jar", "xsbt.boot.Boot"),
        any_arg=(
            *("test", "testOnly*", "testQuick*", "*/test", "*:test", "*/testOnly*", "it:test"),
            *("*;test", "*;test;*", "*; test*", "coverage*test*", "test *", "Test/test"),
            *("testFull", "*/testFull", "*;testFull*"),  # sbt 2: every test, not those changed
            *("jacoco", "*/jacoco"),  # sbt-jacoco: the tests run with coverage, then its report
        ),
        not_with=_H,
        short_clusters=False,  # ``sbt -batch``, ``-mem 2048``: single-dash long options
    ),
    RunnerPattern(
        "sbt-test",
        programs=("sbt", "sbtn"),
        with_options=("+test", "+test *"),
        not_with=_H,
        short_clusters=False,
    ),
    RunnerPattern(
        "sbt-alias",  # build.sbt's addCommandAlias (runctx.runners.tasks.sbt_aliases)
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="sbt-aliases",
        task_names="all",
        programs=("sbt", "sbtn"),
        not_with=_H,
        short_clusters=False,
    ),
    RunnerPattern(
        "lein-test",
        programs=("lein",),
        any_arg=("test", "midje", "kaocha", "eftest", "test2junit", "cloverage", "test-refresh"),
        not_with=_H,
    ),
    RunnerPattern(
        "clojure-test",
        programs=("clojure", "clj"),
        with_options=("-M*test*", "-X*test*", "-A*test*", "-M*:kaocha*", "-X*:kaocha*"),
        not_with=(*_H, "-Spath", "-Stree", "-Sdescribe"),
    ),
    RunnerPattern("clojure-test", programs=("kaocha",), not_with=(*_H, "--print-config")),
    # babashka's tasks (``bb.edn``): a task named for tests is a run, as with npm
    *rows(
        "clojure-test",
        [*((name,) for name in CORE_TEST_NAMES), *(("run", name) for name in CORE_TEST_NAMES)],
        programs=("bb",),
        not_with=_H,
    ),
    RunnerPattern(
        "mill-test",
        programs=("mill", "millw"),
        any_arg=("*.test", "*.test.test*", "*.test.testCached", "*.test.testForked"),
        value_options=("-j", "--jobs", "--import"),
        not_with=(*_H, "-v"),
        # tasks that name a test task without running it
        not_subcommands=("resolve", "inspect", "plan", "path", "visualize", "clean"),
    ),
    *rows("scala-cli-test", [("test",)], programs=("scala-cli",), not_with=_H),
    RunnerPattern(
        "ant-test",
        programs=("ant",),
        any_arg=("test", "tests", "junit", "unittest", "test-*", "test.*", "test_*"),
        value_options=(
            *("-l", "-logfile", "-lib", "-propertyfile", "-inputhandler", "-logger", "-listener"),
            *("-main", "-nice", "-s", "-find"),
        ),
        chdir_file_options=("-f", "-file", "-buildfile"),
        not_with=(*_H, "-version", "-p", "-projecthelp", "-diagnostics"),
    ),
    # --- ruby ---
    RunnerPattern("rspec", programs=("rspec",), not_with=(*_H, "-v", "--dry-run", "--init")),
    RunnerPattern(
        "rspec",
        programs=("parallel_rspec", "parallel_test", "parallel_cucumber", "turbo_tests"),
        not_with=_H,
    ),
    RunnerPattern(
        "rake-test",
        programs=("rake",),
        any_arg=(
            *("test", "spec", "test:*", "spec:*", "default", "teaspoon"),
            # knapsack's and Knapsack Pro's tasks split a suite and run this node's share
            *(
                f"{gem}:{queue}{suite}*"
                for gem in ("knapsack", "knapsack_pro")
                for queue in ("", "queue:")
                for suite in ("rspec", "minitest", "cucumber", "spinach", "test_unit")
            ),
        ),
        value_options=("-f", "--rakefile", "-I", "--libdir", "-r", "-R", "-j"),
        chdir_options=("-C", "--directory"),
        not_with=(*_H, "-V", "-T", "--tasks", "-n", "--dry-run", "-P", "--prereqs", "-W", "-D"),
    ),
    # Ruby's own runner of Test::Unit files (before minitest): ``testrb test/``
    RunnerPattern("ruby-test", programs=("testrb",), not_with=_H),
    # ``t`` is rails' own alias of ``test`` (as ``g`` is of ``generate``)
    *rows("rails-test", [("test",), ("t",), ("test:*",)], programs=("rails",), not_with=_H),
    RunnerPattern(
        "ruby-test",
        programs=("ruby", "jruby"),
        with_options=("-Itest*", "-I*:test*", "-Ispec*", "-I*:spec*"),
        leading_options=True,
        not_with=(*_H, "-c", "-y", "--yydebug", "--dump=*"),
    ),
    *rows(
        "ruby-test",
        [
            *(("*_test.rb",), ("test_*.rb",), ("*/test_*.rb",), ("*_spec.rb",)),
            *(("test/*.rb",), ("*/test/*.rb",), ("spec/*.rb",), ("*/spec/*.rb",)),
        ],
        programs=("ruby", "jruby"),
        value_options=("-I", "-r", "-C", "-E", "-F", "--encoding"),
        not_with=(*_H, "-c", "-e"),
    ),
    # --- php ---
    RunnerPattern(
        "phpunit",
        programs=("phpunit", "phpunit.phar", "paratest", "simple-phpunit"),
        not_with=(
            *_H,
            *("--list-suites", "--list-groups", "--list-tests", "--list-tests-xml"),
            *("--list-test-files", "--check-version", "--generate-configuration"),
            *("--migrate-configuration", "--atleast-version", "--list-tests-xml=*"),
            "--warm-coverage-cache",
        ),
    ),
    RunnerPattern(
        "pest",
        programs=("pest",),
        not_with=(*_H, "--init", "--list-tests", "--list-suites"),
    ),
    *rows("php-test", [("test",), ("dusk",), ("test:*",)], programs=("artisan",), not_with=_H),
    # Orchestra Testbench, a package's Laravel app: ``vendor/bin/testbench package:test``
    *rows("php-test", [("package:test",)], programs=("testbench",), not_with=_H),
    *rows("php-test", [("run",)], programs=("codecept", "codecept.phar", "phpspec"), not_with=_H),
    RunnerPattern("php-test", programs=("behat", "infection"), not_with=(*_H, "--dry-run")),
    *rows(
        "php-test",
        [("test",), ("test:*",), ("run", "test"), ("run", "test:*"), ("run-script", "test")],
        programs=("composer", "composer.phar"),
        chdir_options=("-d", "--working-dir"),
        not_with=_H,
    ),
    # a composer script named otherwise: read in composer.json (runctx.runners.tasks.json_tasks)
    *rows(
        "composer-script",
        [("run-script",), ("run",)],
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="json-tasks",
        programs=("composer", "composer.phar"),
        chdir_options=("-d", "--working-dir"),
        not_with=_H,
    ),
    RunnerPattern(
        "composer-script",  # ``composer NAME`` runs the script NAME when it is no command
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="json-tasks",
        programs=("composer", "composer.phar"),
        chdir_options=("-d", "--working-dir"),
        not_subcommands=_COMPOSER_OWN_COMMANDS,
        not_with=_H,
    ),
    # --- .NET ---
    *rows(
        "dotnet-test",
        [("test",), ("vstest",), ("watch", "test")],
        programs=("dotnet",),
        value_options=(
            *("--project", "-c", "--configuration", "-f", "--framework", "-r", "--runtime"),
            *("-v", "--verbosity", "--logger", "-l", "--filter", "-s", "--settings", "-o"),
            *("--output", "--results-directory", "--collect", "-a", "--test-adapter-path"),
        ),
        not_with=(*_H, "-?", "--list-tests", "-t"),
        short_clusters=False,  # MSBuild's ``-tl``, ``-bl``, ``-nologo``: single-dash long options
    ),
    # the console runners of VSTest, NUnit and xUnit.net: ``vstest.console.exe Tests.dll``
    RunnerPattern(
        "dotnet-test",
        programs=("vstest.console", "nunit3-console", "nunit-console", "xunit.console"),
        # (vstest's ``/ListTests`` spelling is a word to this table: still taken for a run)
        not_with=(
            *(*_H, "-?", "--ListTests", "--listtests", "-lt", "--lt", "--ListDiscoverers"),
            *("--ListExecutors", "--ListLoggers", "--ListSettingsProviders", "--explore"),
            *("--list-extensions", "--version"),
        ),
    ),
    RunnerPattern(
        "dotnet-test",
        programs=("coverlet",),
        arg_options=("--targetargs",),
        any_arg=("test*", "vstest*"),
        value_options=(
            *("-t", "--target", "-o", "--output", "-f", "--format", "--exclude", "--include"),
            *("-v", "--verbosity", "--threshold", "--threshold-type", "--exclude-by-file"),
        ),
        not_with=_H,
    ),
    # Cake build scripts: a target named for tests (``dotnet cake --target=Test``)
    *rows(
        "cake-test",
        [(), ("cake",), ("tool", "run", "dotnet-cake"), ("tool", "run", "cake")],
        programs=("dotnet", "dotnet-cake", "cake"),
        with_options=tuple(
            f"{option}={name}"
            for option in ("--target", "-t", "-target")
            for name in ("Test", "test", "Test*", "test*", "*Test", "*Tests", "*-test*")
        ),
        not_with=(*_H, "--dryrun", "--dry-run", "--noop", "--tree", "--description"),
        short_clusters=False,
    ),
    # NUKE builds: ``nuke Test``, ``nuke --target RunTests`` (a target named for tests)
    RunnerPattern(
        "nuke-test",
        programs=("nuke",),
        any_arg=("Test", "Tests", "Test*", "*Test", "*Tests", "test", "tests", "test*"),
        arg_options=("--target", "-target", "--targets", "-t"),
        not_with=(*_H, "--plan", "--describe", "--skip=*Test*"),
        short_clusters=False,
    ),
    # --- other languages ---
    *rows("mix-test", [("test",), ("coveralls*",)], programs=("mix",), not_with=_H),
    # ``mix ci`` where mix.exs's aliases make ci an alias (runctx.runners.tasks.mix_aliases)
    RunnerPattern(
        "mix-alias",
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="mix-aliases",
        programs=("mix",),
        # ex_check's tools picked by name (``mix check --only credo``): not read
        not_with=(*_H, "--only", "-o", "--except", "-x"),
    ),
    RunnerPattern(
        "swift-test",
        programs=("swift",),
        subcommand=("test",),
        not_subcommands=("list",),
        not_with=(*_H, "--list-tests", "-l"),
    ),
    # what ``swift test`` becomes: the driver runs ``swift-test``
    RunnerPattern(
        "swift-test",
        programs=("swift-test",),
        not_subcommands=("list",),
        not_with=(*_H, "--list-tests", "-l"),
    ),
    RunnerPattern(
        "xcodebuild-test",
        programs=("xcodebuild",),
        any_arg=("test", "test-without-building"),
        value_options=_XCODEBUILD_VALUES,
        not_with=(
            *_H,
            *("-help", "-usage", "-version", "-list", "-showsdks", "-showBuildSettings"),
            *("-showdestinations", "-showTestPlans", "-dry-run", "-n"),
        ),
    ),
    *rows(
        "dart-test",
        [
            *(("test",), ("drive",), ("run", "test"), ("run", "test:test")),
            # what ``flutter test`` becomes: dart running flutter's tool snapshot
            *(("*/flutter_tools.snapshot", "test"), ("*/flutter_tools.snapshot", "drive")),
        ],
        programs=("flutter", "dart", "very_good"),
        not_with=_H,
    ),
    # Very Good CLI's commands per toolchain: ``very_good dart test``, ``very_good flutter test``
    *rows(
        "dart-test", [("dart", "test"), ("flutter", "test")], programs=("very_good",), not_with=_H
    ),
    *rows(
        "haskell-test",
        [("test",), ("v2-test",), ("new-test",)],
        programs=("stack", "cabal"),
        # stack test is stack build --test: --no-run-tests builds the suites, runs none
        not_with=(*_H, "--dry-run", "--no-run-tests"),
    ),
    # ``stack install`` is ``stack build --copy-bins``: either runs the suites given ``--test``
    *rows(
        "haskell-test",
        [("build",), ("install",)],
        programs=("stack",),
        with_options=("--test", "--test-arguments=*"),
        not_with=(*_H, "--dry-run", "--no-run-tests"),
    ),
    RunnerPattern(
        "zig-test",
        programs=("zig",),
        subcommand=("build",),
        any_arg=("test", "test-*", "test:*", "test_*"),
        not_with=_H,
    ),
    RunnerPattern("zig-test", programs=("zig",), subcommand=("test",), not_with=_H),
    RunnerPattern("busted", programs=("busted", "vusted"), not_with=(*_H, "-l", "--list")),
    RunnerPattern("busted", programs=("luarocks",), subcommand=("test",), not_with=_H),
    # neovim plugins' suites, run headless: plenary's busted, mini.test
    RunnerPattern(
        "busted",
        programs=("nvim",),
        any_arg=("*PlenaryBusted*", "*MiniTest.run*", "*busted*"),
        value_options=("-u", "-i", "--cmd"),
        not_with=_H,
    ),
    RunnerPattern(
        "r-check",
        programs=("R", "Rscript"),
        subcommand=("CMD", "check"),
        not_with=(*_H, "--no-tests"),
    ),
    RunnerPattern(
        "r-check",
        programs=("R", "Rscript"),
        any_arg=(
            *("*devtools::test*", "*devtools::check(*", "*testthat::*", "*test_check(*"),
            *("*test_file(*", "*test_dir(*", "*test_local(*", "*test_package(*"),
            *("*rcmdcheck(*", "*tinytest::*", "*tests/testthat.R", "*covr::*coverage(*"),
            "*library(devtools)*test()*",
        ),
        not_with=_H,
    ),
    RunnerPattern(
        "julia-test",
        programs=("julia",),
        any_arg=("*Pkg.test(*", "*runtests.jl"),
        value_options=("-t", "--threads", "-p", "--procs", "-J", "--sysimage"),
        not_with=(*_H, "-v"),
    ),
    RunnerPattern("perl-test", programs=("prove", "yath"), not_with=(*_H, "--dry")),
    # perl running a test file itself, as prove runs each: ``perl -Ilib t/basic.t``
    *rows(
        "perl-test",
        [("*.t",)],
        programs=("perl",),
        value_options=("-I", "-M", "-m"),
        not_with=(*_H, "-c", "-e", "-E", "-v", "-V"),
    ),
    RunnerPattern("raku-test", programs=("zef",), subcommand=("test",), not_with=_H),
    RunnerPattern("bats", programs=("bats",), not_with=(*_H, "-v", "-c", "--count")),
    # shelltestrunner: command-line tests in .test files (``shelltest tests/``)
    RunnerPattern("shelltest", programs=("shelltest",), not_with=(*_H, "-l", "--list")),
    RunnerPattern(
        "shellspec",
        programs=("shellspec",),
        not_with=(*_H, "-v", "--count", "--list", "--syntax-check", "--dry-run", "--init"),
    ),
    RunnerPattern(
        "rebar3-test",
        programs=("rebar3",),
        any_arg=("eunit", "eunit,*", "*,eunit", "ct", "ct,*", "*,ct", "proper"),
        not_with=(*_H, "-v"),
    ),
    # Erlang's Common Test (what ``rebar3 ct`` and erlang.mk's ``ct-*`` targets start)
    RunnerPattern("ct-run", programs=("ct_run",), not_with=(*_H, "-version")),
    *rows("dune-test", [("test",), ("runtest",)], programs=("dune",), not_with=_H),
    RunnerPattern(
        "dune-test",
        programs=("dune",),
        subcommand=("build",),
        any_arg=("@runtest", "@*/runtest", "@test", "@*/test", "@@runtest", "@@*/runtest"),
        not_with=_H,
    ),
    *rows("gleam-test", [("test",)], programs=("gleam",), not_with=_H),
    *rows("crystal-spec", [("spec",)], programs=("crystal",), not_with=_H),
    *rows("nim-test", [("test",)], programs=("nimble",), not_with=_H),
    # Nim's own test tool: ``testament all``, ``testament pattern "tests/*.nim"``
    *rows(
        "nim-test",
        [("all",), ("pattern",), ("cat",), ("category",), ("r",), ("run",)],
        programs=("testament",),
        not_with=_H,
    ),
    # a Nim test file compiled and run: ``nim c -r tests/test_x.nim``, ``nim r tests/tx.nim``
    *rows(
        "nim-test",
        [
            *(("c", "*test*.nim"), ("compile", "*test*.nim"), ("cpp", "*test*.nim")),
            *(("r", "*test*.nim"), ("js", "*test*.nim")),
        ],
        programs=("nim",),
        with_options=("-r", "--run"),
        not_with=_H,
    ),
    *rows("nim-test", [("r", "*test*.nim")], programs=("nim",), not_with=_H),
    # D: ``dub test`` builds and runs the package's unittest blocks
    *rows("dub-test", [("test",)], programs=("dub",), not_with=_H),
    # xmake runs the tests its targets declare (``add_tests``): ``xmake test``
    *rows("xmake-test", [("test",)], programs=("xmake",), not_with=_H),
    # OpenStack's runners of subunit tests: ``stestr run``, ``testr run``, ``ostestr``
    *rows(
        "stestr",
        [("run",)],
        programs=("stestr", "testr"),
        modules=("stestr",),
        value_options=("--test-path", "-t", "--top-dir", "--config", "-c", "--repo-url"),
        not_with=(*_H, "--list", "-l", "--analyze-isolation"),
    ),
    RunnerPattern("stestr", programs=("ostestr",), not_with=(*_H, "--list", "-l")),
    # fastlane: the scan action runs an app's tests (``fastlane scan``,
    # ``fastlane run run_tests``); a lane named for tests (``fastlane test``)
    *rows(
        "fastlane-test",
        [("scan",), ("run", "scan"), ("run", "run_tests"), ("test",), ("tests",)],
        programs=("fastlane",),
        not_with=_H,
    ),
    # any other lane (``fastlane ios ci``): its Fastfile says what it runs (tasks.fastfile)
    RunnerPattern(
        "fastlane-lane",
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="fastlane",
        task_names="all",
        programs=("fastlane",),
        not_with=_H,
    ),
    *rows("raco-test", [("test",)], programs=("raco",), not_with=_H),
    *rows("wasm-pack-test", [("test",)], programs=("wasm-pack",), not_with=_H),
    # Fermyon's ``spin test`` runs the app's tests (the spin-test plugin)
    *rows("spin-test", [("test",)], programs=("spin",), not_with=_H),
    # Perl distributions: Module::Build's ``./Build test`` (``testall``, ``testcover``),
    # Dist::Zilla's ``dzil test`` and ``dzil smoke``, Minilla's ``minil test``
    *rows(
        "perl-test",
        [("test",), ("testall",), ("testcover",)],
        programs=("Build",),
        not_with=_H,
    ),
    *rows("perl-test", [("test",), ("smoke",), ("xtest",)], programs=("dzil",), not_with=_H),
    *rows("perl-test", [("test",)], programs=("minil",), not_with=_H),
    # infrastructure code: ``molecule test`` and ``molecule verify`` run a role's
    # verifier tests; ``terraform test`` (and OpenTofu's ``tofu test``) its test files
    *rows("molecule-test", [("test",), ("verify",)], programs=("molecule",), not_with=_H),
    *rows(
        "terraform-test",
        [("test",)],
        programs=("terraform", "tofu"),
        value_options=("-chdir",),
        not_with=(*_H, "-help"),
    ),
    # more languages' own test commands
    RunnerPattern(
        "elm-test",
        programs=("elm-test-rs",),
        not_subcommands=("init", "install"),
        not_with=(*_H, "--version"),
    ),
    *rows("spago-test", [("test",)], programs=("spago",), not_with=_H),
    *rows("roc-test", [("test",)], programs=("roc",), not_with=_H),
    *rows("v-test", [("test",)], programs=("v",), not_with=_H),
    *rows("odin-test", [("test",)], programs=("odin",), not_with=_H),
    *rows("dart-test", [("run", "test")], programs=("pub",), not_with=_H),
    # Tuist runs an Xcode project's test schemes: ``tuist test``
    *rows("tuist-test", [("test",)], programs=("tuist",), not_with=_H),
    # Rush Stack's heft runs jest through its plugin; lage and moon run the
    # packages' tasks named for tests (``lage test``, ``moon run :test``)
    *rows("heft-test", [("test",)], programs=("heft",), not_with=(*_H, "--help")),
    RunnerPattern(
        "js-task-test",
        programs=("lage",),
        any_arg=CORE_TEST_NAMES,
        not_with=(*_H, "--dry-run"),
    ),
    RunnerPattern(
        "js-task-test",
        programs=("moon",),
        subcommand=("run",),
        any_arg=("test", ":test", "*:test", "*:test-*", "*:test:*"),
        not_with=(*_H, "--dry-run"),
    ),
    *rows(
        "js-task-test",
        [("test",), ("tests",)],
        programs=("gulp", "grunt"),
        not_with=(*_H, "--tasks", "-T", "--tasks-simple"),
    ),
    # firmware: PlatformIO's unit tests (``pio test``), Zephyr's twister
    *rows("pio-test", [("test",)], programs=("pio", "platformio"), not_with=(*_H, "--list-tests")),
    RunnerPattern(
        "twister",
        programs=("twister",),
        not_with=(*_H, "--list-tests", "--list-tags", "--test-tree", "--dry-run", "-y"),
    ),
    *rows(
        "twister",
        [("twister",)],
        programs=("west",),
        not_with=(*_H, "--list-tests", "--list-tags", "--test-tree", "--dry-run", "-y"),
    ),
    # LLVM's lit runs the tests of the directories it is given
    RunnerPattern(
        "lit",
        programs=("lit", "llvm-lit"),
        not_subcommands=("localize", "labs", "init", "help"),  # the Lit web framework's CLI
        not_with=(*_H, "--version", "--show-tests", "--show-suites"),
    ),
    # MATLAB runs a suite with ``runtests`` (``matlab -batch "runtests('tests')"``)
    RunnerPattern(
        "matlab-test",
        programs=("matlab",),
        any_arg=("runtests", "runtests(*", "*runtests(*", "*runtests;*", "*testrunner*"),
        not_with=(*_H,),
    ),
    # Ruby: ``m`` runs the tests of a file or a line, flatware the suite in
    # parallel processes, storybook's runner the stories as tests
    RunnerPattern(
        "ruby-test",
        programs=("m",),
        any_arg=("*_test.rb", "*_test.rb:*", "test", "test/*", "*_spec.rb", "*_spec.rb:*"),
        not_with=_H,
    ),
    *rows("rspec", [("rspec",), ("cucumber",)], programs=("flatware",), not_with=_H),
    RunnerPattern(
        "storybook-test", programs=("test-storybook",), not_with=(*_H, "--version", "--listTests")
    ),
    # Flutter's patrol runs integration tests (``patrol test``, ``patrol develop``)
    *rows("patrol-test", [("test",), ("develop",)], programs=("patrol",), not_with=_H),
    # smart contracts: Foundry's ``forge test`` (``--list`` only lists), Hardhat,
    # Truffle, Anchor, Brownie, Ape, the Move CLIs of Sui and Aptos, Cairo's
    # Scarb and Starknet Foundry, Clarinet
    *rows("forge-test", [("test",)], programs=("forge",), not_with=(*_H, "--list")),
    *rows(
        "contract-test",
        [("test",)],
        programs=(
            *("hardhat", "truffle", "anchor", "brownie", "ape", "scarb", "snforge"),
            "clarinet",
        ),
        not_with=_H,
    ),
    *rows("contract-test", [("move", "test")], programs=("sui", "aptos"), not_with=_H),
    # data and policy tests: ``dbt test`` and ``dbt build`` (models and their
    # tests), OPA's ``opa test``, the helm-unittest plugin's ``helm unittest``
    *rows("dbt-test", [("test",), ("build",)], programs=("dbt",), not_with=_H),
    *rows("opa-test", [("test",)], programs=("opa",), not_with=_H),
    # Earthly builds a target of an Earthfile (``+test``, ``./tests+env-test``,
    # ``github.com/org/repo+test``): one named for tests runs them. A word
    # starting with ``+`` reads as an option: the local form is one.
    RunnerPattern(
        "earthly-test",
        programs=("earthly",),
        with_options=tuple(f"+{name}" for name in _EARTHLY_TEST_TARGETS),
        value_options=_EARTHLY_VALUES,
        not_with=_EARTHLY_NOT_WITH,
    ),
    RunnerPattern(
        "earthly-test",
        programs=("earthly",),
        any_arg=tuple(f"*+{name}" for name in _EARTHLY_TEST_TARGETS),
        value_options=_EARTHLY_VALUES,
        not_with=_EARTHLY_NOT_WITH,
    ),
    # sqllogictest-rs runs each .slt script against a database
    RunnerPattern(
        "sqllogictest",
        programs=("sqllogictest",),
        value_options=(
            *("-e", "--engine", "--host", "--port", "-d", "--db", "-u", "--user", "-w"),
            *("--pass", "--options", "--label", "--junit", "-j", "--jobs", "--color"),
        ),
        not_with=_H,
    ),
    # HPC test frameworks: buildtest builds and runs the tests of its buildspecs
    # (``buildtest build -t e4s``, alias ``bd``), ReFrame runs its checks (``-r``)
    *rows(
        "hpc-test",
        [("build",), ("bd",)],
        programs=("buildtest",),
        value_options=(
            *("-b", "--buildspec", "-x", "--exclude", "-t", "--tags", "-e", "--executor"),
            *("-n", "--name", "--testdir", "--max-pend-time", "--stage", "--filter"),
            *("--rerun", "--timeout", "--procs", "--nodes", "--account", "--modules"),
        ),
        not_with=(*_H, "--dry-run", "--stage=parse", "--stage=build", "--validate"),
    ),
    RunnerPattern(
        "hpc-test",
        programs=("reframe",),
        with_options=("-r", "--run"),
        value_options=(
            *("-c", "--checkpath", "-C", "--config-file", "-n", "--name", "-x", "--exclude"),
            *("-t", "--tag", "-p", "--prgenv", "--system", "-S", "--setvar", "-J"),
            *("--job-option", "--prefix", "-o", "--output", "-s", "--stage", "--mode"),
        ),
        not_with=(*_H, "-V", "-l", "-L", "--list", "--list-detailed", "--dry-run"),
    ),
    # Spack: a package built with its build-time tests (``spack install
    # --test=root``, ``spack dev-build --test=all``: ``make check`` and the
    # like, run in the build), and ``spack test run``, its stand-alone tests
    *rows(
        "spack-test",
        [("install",), ("dev-build",)],
        programs=("spack",),
        with_options=("--test", "--test=*"),
        value_options=(
            *("-j", "--jobs", "-u", "--until", "-b", "--before", "-d", "--source-path"),
            *("--only", "--log-format", "--log-file", "-f", "--file", "-C", "--config-scope"),
        ),
        not_with=_H,
    ),
    RunnerPattern(
        "spack-test",
        programs=("spack",),
        subcommand=("test", "run"),
        value_options=("--alias", "--log-format", "--log-file"),
        not_with=(*_H, "--help-cdash"),
    ),
    *rows("helm-unittest", [("unittest",)], programs=("helm",), not_with=_H),
    # Unity's editor runs a project's tests with ``-runTests``
    RunnerPattern(
        "unity-test",
        programs=("Unity", "Unity.exe", "unity-editor"),
        with_options=("-runTests",),
        not_with=(),
    ),
    # xdoctest runs a module's doctests (``xdoctest pkg``, ``python -m xdoctest pkg all``)
    RunnerPattern(
        "xdoctest", programs=("xdoctest",), modules=("xdoctest",), not_with=(*_H, "--version")
    ),
    # --- a test file run directly by its language's interpreter (python's: a project
    # script named for tests, runctx.runners.tasks.scripts) ---
    RunnerPattern(
        "elixir-test-file",
        programs=("elixir",),
        any_arg=("*_test.exs",),
        # ``-r``/``-pr`` load files, run as any file given: ``elixir -r test/test_helper.exs
        # -pr "test/**/*_test.exs"`` (how elixir's own Makefile runs a suite) runs the tests
        value_options=("-pa", "-pz", "-e", "--eval", "--sname", "--name"),
        not_with=(*_H, "-v", "--version"),
    ),
    RunnerPattern(
        "dart-test-file",
        programs=("dart",),
        any_arg=("*_test.dart",),
        not_subcommands=("analyze", "format", "fix", "compile", "doc", "pub", "create", "info"),
        not_with=(*_H, "--version"),
    ),
    RunnerPattern(
        "crystal-spec",
        programs=("crystal",),
        any_arg=("*_spec.cr",),
        not_subcommands=("build", "tool", "docs", "init", "env", "clear_cache"),
        not_with=(*_H, "-v", "--version"),
    ),
    # --- a compiled test binary run directly: named for its tests ---
    RunnerPattern(
        "test-binary",
        program_globs=(
            *("*_test", "*_tests", "*-test", "*-tests", "*_unittest", "*_unittests", "*.test"),
            *("*_spec", "*_specs"),  # a compiled spec binary (crystal's std_spec)
            *("*run_tests*", "*run-tests*", "*runtests*", "*test_runner*", "*test-runner*"),
        ),
        not_with=(*_H, "--gtest_list_tests", "--list", "--list-tests", "-l"),
        not_passed=("--list",),
    ),
    # --- a program of the project, named by its path, given a test framework's options ---
    RunnerPattern(
        "test-binary",
        program_globs=("*",),
        by_path=True,
        with_options=TEST_PROGRAM_OPTIONS,
        not_with=(*_H, "--gtest_list_tests", "--list_content*", "--list-test-*", "-ltc", "-lts"),
        not_passed=("--list",),
    ),
    # --- task runners: a run when the task's text runs a runner ---
    *rows(
        "npm-script",
        [("run",), ("run-script",), ("rum",), ("urn",)],
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="package-json",
        programs=NPM_PROGRAMS,
        value_options=NPM_VALUE_OPTIONS,
        chdir_options=NPM_CHDIR_OPTIONS,
        not_with=_H,
    ),
    # ``yarn workspace NAME [run] SCRIPT``, ``yarn workspaces foreach [-A] run SCRIPT`` and
    # yarn 1's ``yarn workspaces run SCRIPT``: the script of other packages of the monorepo
    *(
        RunnerPattern(
            "yarn-script",
            role=TASK_ROLE,
            run_names=NAMED_TEST_NAMES,
            reader="package-json",
            programs=YARN_PROGRAMS,
            subcommand=subcommand,
            value_options=(*YARN_VALUE_OPTIONS, "--from", "--exclude"),
            chdir_options=("--cwd",),
            not_with=_H,
        )
        for subcommand in (
            ("workspace", "*", "run"),
            ("workspace", "*"),
            ("workspaces", "foreach", "run"),
            ("workspaces", "run"),
        )
    ),
    RunnerPattern(
        "yarn-script",
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="package-json",
        programs=YARN_PROGRAMS,
        subcommand=("run",),
        value_options=YARN_VALUE_OPTIONS,
        chdir_options=("--cwd",),
        not_with=_H,
    ),
    RunnerPattern(
        "yarn-script",
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="package-json",
        programs=YARN_PROGRAMS,
        not_subcommands=YARN_OWN_COMMANDS,
        value_options=YARN_VALUE_OPTIONS,
        chdir_options=("--cwd",),
        not_with=_H,
    ),
    RunnerPattern(
        "pnpm-script",
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="package-json",
        programs=PNPM_PROGRAMS,
        subcommand=("recursive", "run"),  # ``pnpm -r run``'s long form: every package
        value_options=PNPM_VALUE_OPTIONS,
        chdir_options=PNPM_CHDIR_OPTIONS,
        not_with=_H,
    ),
    RunnerPattern(
        "pnpm-script",
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="package-json",
        programs=PNPM_PROGRAMS,
        subcommand=("run",),
        value_options=PNPM_VALUE_OPTIONS,
        chdir_options=PNPM_CHDIR_OPTIONS,
        not_with=_H,
    ),
    RunnerPattern(
        "pnpm-script",
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="package-json",
        programs=PNPM_PROGRAMS,
        not_subcommands=PNPM_OWN_COMMANDS,
        value_options=PNPM_VALUE_OPTIONS,
        chdir_options=PNPM_CHDIR_OPTIONS,
        not_with=_H,
    ),
    RunnerPattern(
        "bun-script",
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="package-json",
        programs=("bun",),
        subcommand=("run",),
        value_options=("--filter", "-F"),
        chdir_options=("--cwd",),
        not_with=_H,
    ),
    # tasks kept in TOML (runctx.runners.tasks.toml_tasks): pdm, poe, rye, pixi, mise
    *rows(
        "pdm-script",
        [("run",)],
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="toml-tasks",
        programs=("pdm",),
        value_options=("-p", "--project"),
        not_with=_H,
    ),
    RunnerPattern(
        "pdm-script",  # ``pdm NAME`` runs the script NAME when pdm has no such command
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="toml-tasks",
        programs=("pdm",),
        value_options=("-p", "--project"),
        not_subcommands=_PDM_OWN_COMMANDS,
        not_with=_H,
    ),
    RunnerPattern(
        "invoke-task",  # the @task function of tasks.py (runctx.runners.tasks.invoke_tasks)
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="invoke",
        programs=("invoke", "inv"),
        value_options=("-c", "--collection", "-r", "--search-root", "-f", "--config"),
        not_with=(*_H, "-l", "--list", "-d", "--debug", "--complete"),
    ),
    RunnerPattern(
        "poe-task",
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="toml-tasks",
        programs=("poe", "poethepoet"),
        value_options=("-C", "--root", "--directory", "-e", "--executor"),
        not_with=(*_H, "-d", "--dry-run"),
    ),
    *rows(
        "rye-script",
        [("run",)],
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="toml-tasks",
        programs=("rye",),
        value_options=("--pyproject",),
        not_with=_H,
    ),
    # ``pipenv run NAME``: the Pipfile's ``[scripts]`` (a program of that name otherwise)
    *rows(
        "pipenv-script",
        [("run",)],
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="toml-tasks",
        programs=("pipenv",),
        value_options=("--python",),
        not_with=_H,
    ),
    *rows(
        "pixi-task",
        [("run",)],
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="toml-tasks",
        programs=("pixi",),
        value_options=("-e", "--environment", "--manifest-path"),
        not_with=(*_H, "--dry-run", "-n"),
    ),
    *rows(
        "mise-task",
        [("run",), ("r",)],
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="toml-tasks",
        programs=("mise",),
        value_options=("-E", "--env", "-j", "--jobs"),
        chdir_options=("-C", "--cd"),
        not_with=(*_H, "-n", "--dry-run"),
    ),
    RunnerPattern(
        "hatch-script",
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="hatch",
        programs=("hatch",),
        subcommand=("run",),
        value_options=HATCH_VALUE_OPTIONS,
        not_with=_H,
    ),
    RunnerPattern(
        "make-target",
        role=TASK_ROLE,
        run_names=_MAKE_TEST_NAMES,
        reader="make",
        task_names="all",
        programs=MAKE_PROGRAMS,
        value_options=MAKE_VALUE_OPTIONS,
        number_options=MAKE_NUMBER_OPTIONS,
        file_options=MAKE_FILE_OPTIONS,
        chdir_options=MAKE_CHDIR_OPTIONS,
        not_with=MAKE_NOT_WITH,
    ),
    RunnerPattern(
        "just-recipe",
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="just",
        task_names="all",
        programs=("just",),
        value_options=_JUST_VALUES,
        file_options=("-f", "--justfile"),
        chdir_options=("-d", "--working-directory"),
        not_with=_JUST_NOT_WITH,
    ),
    RunnerPattern(
        "cargo-alias",
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="cargo-alias",
        programs=("cargo",),
        value_options=("--config", "-Z", "-C"),
        not_subcommands=CARGO_OWN_COMMANDS,
        not_with=(*_H, "-V", "--version", "--list"),
    ),
    # ``node --run NAME``: a package.json script, run by node itself
    RunnerPattern(
        "node-run-script",
        programs=("node", "nodejs"),
        with_options=("--run",),
        any_arg=CORE_TEST_NAMES,
        not_with=_H,
    ),
    RunnerPattern(
        "node-run-script",
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="package-json",
        programs=("node", "nodejs"),
        with_options=("--run",),
        not_with=_H,
    ),
    RunnerPattern(
        "rake-task",
        role=TASK_ROLE,
        run_names=("test", "spec", "test:*", "spec:*", "test_*", "spec_*"),
        reader="rake",
        task_names="all",
        programs=("rake",),
        value_options=("-f", "--rakefile", "-I", "--libdir", "-r", "-R", "-j"),
        file_options=("-f", "--rakefile"),
        chdir_options=("-C", "--directory"),
        not_with=(*_H, "-V", "-T", "--tasks", "-n", "--dry-run", "-P", "--prereqs", "-W", "-D"),
    ),
    *rows(
        "melos-script",
        [("run",)],
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="melos",
        programs=("melos",),
        not_with=(*_H, "--list", "-l", "--json"),
    ),
    RunnerPattern(
        "melos-script",
        role=TASK_ROLE,
        run_names=CORE_TEST_NAMES,
        reader="melos",
        programs=("melos",),
        not_subcommands=MELOS_OWN_COMMANDS,
        not_with=(*_H, "--list", "-l", "--json"),
    ),
    RunnerPattern(
        "taskfile-task",
        role=TASK_ROLE,
        run_names=NAMED_TEST_NAMES,
        reader="taskfile",
        task_names="all",
        programs=("task", "go-task"),
        value_options=_TASK_VALUES,
        file_options=("-t", "--taskfile"),
        chdir_options=("-d", "--dir"),
        not_with=_TASK_NOT_WITH,
    ),
)
