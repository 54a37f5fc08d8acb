"""The runner table's forms across ecosystems: runners, wrappers, look-alikes, tasks.

Parsers fed argvs as ``/proc/PID/cmdline`` shows them (the walk of
:mod:`runctx.runners.walk` over the table of :mod:`runctx.runners.table`).
Real processes are in ``test_runners_live.py``; command strings in
``test_corpus.py``.
"""

from __future__ import annotations

import pytest

from runctx.runners import RunnerMatch, detect_runner, resolve_command
from runctx.runners.pattern import TASK_ROLE, RunnerPattern, directory_of_file, glob

# (argv, kind): one line per form. Every kind of the table appears here or in
# test_runners.py.
FORMS = [
    # python
    (["python", "setup.py", "test"], "setup-py-test"),
    (["trial", "mypkg.test"], "trial"),
    (["python", "-m", "twisted.trial", "mypkg"], "trial"),
    (["behave", "features/"], "behave"),
    (["robot", "--outputdir", "out", "tests/"], "robot"),
    (["python", "-m", "robot", "tests"], "robot"),
    (["pabot", "--processes", "4", "tests"], "robot"),
    (["ward"], "ward"),
    (["ward", "test", "--path", "tests"], "ward"),
    (["ptw", "--", "-x"], "pytest-watch"),
    (["green", "-vvv", "mypkg"], "green"),
    (["python", "-m", "xmlrunner", "discover", "-o", "reports"], "unittest"),
    (["python", "-m", "doctest", "README.txt"], "unittest"),
    (["zope-testrunner", "--test-path=src"], "zope-testrunner"),
    (["django-admin", "test", "--settings", "proj.settings"], "django-test"),
    (["tox", "-c", "sub/tox.ini", "-e", "py"], "tox"),
    (["hatch", "run", "test:cov"], "hatch-test"),
    (["hatch", "run", "dev:test"], "hatch-script"),
    (["pdm", "run", "test"], "python-task-test"),
    (["pixi", "run", "test"], "python-task-test"),
    (["poe", "test"], "python-task-test"),
    (["invoke", "test"], "python-task-test"),
    (
        ["/venv/bin/python", "-u", "-c", "import sys;exec(eval(sys.stdin.readline()))"],
        "pytest-xdist-worker",
    ),
    # javascript
    (["node", "--test"], "node-test"),
    (["node", "--test", "--test-reporter=spec", "test/"], "node-test"),
    (["node", "--experimental-test-coverage", "--test"], "node-test"),
    (["node", "--test-reporter", "tap", "--test", "test/a.test.js"], "node-test"),
    (["tsx", "--test", "src/**/*.test.ts"], "node-test"),
    (["ava", "--verbose"], "ava"),
    (["tap", "test/*.js"], "tap"),
    (["karma", "start", "--single-run"], "karma"),
    (["cypress", "run", "--browser", "chrome"], "cypress"),
    (["ng", "test", "--watch=false"], "ng-test"),
    (["react-scripts", "test", "--watchAll=false"], "react-scripts-test"),
    (["jasmine"], "jasmine"),
    (["wdio", "run", "wdio.conf.js"], "wdio"),
    (["cucumber-js"], "cucumber"),
    (["testcafe", "chrome", "tests/"], "js-test"),
    (["deno", "task", "test"], "deno-test"),
    (["nx", "test", "my-app"], "monorepo-test"),
    (["nx", "run", "my-app:test"], "monorepo-test"),
    (["nx", "run-many", "-t", "test"], "monorepo-test"),
    (["nx", "run-many", "--target=test", "--all"], "monorepo-test"),
    (["nx", "affected", "-t", "lint,test"], "monorepo-test"),
    (["npx", "nx", "run-many", "-t", "test"], "monorepo-test"),
    (["turbo", "run", "test"], "monorepo-test"),
    (["turbo", "test", "--filter=web"], "monorepo-test"),
    (["lerna", "run", "test", "--stream"], "monorepo-test"),
    (["yarn", "workspaces", "foreach", "-A", "run", "test"], "yarn-test"),
    (["yarn", "workspaces", "foreach", "--all", "--parallel", "-j", "4", "test"], "yarn-test"),
    (["pnpm", "recursive", "test"], "pnpm-test"),
    (["pnpm", "-r", "test"], "pnpm-test"),
    (["npm-run-all", "lint", "test:*"], "npm-test"),
    (["run-s", "build", "test"], "npm-test"),
    (["nyc", "--reporter=lcov", "mocha"], "mocha"),
    (["nyc", "-r", "text", "npm", "test"], "npm-test"),
    (["c8", "node", "--test"], "node-test"),
    (["c8", "-r", "lcov", "ava"], "ava"),
    (["/r/node_modules/jest-worker/build/processChild.js"], "jest-worker"),
    (["node", "/r/node_modules/mocha/lib/nodejs/worker.js"], "mocha-worker"),
    # go
    (["ginkgo", "-r", "--randomize-all"], "ginkgo"),
    (["ginkgo", "run", "./..."], "ginkgo"),
    (["richgo", "test", "./..."], "go-test"),
    (["go", "-C", "sub", "test", "./..."], "go-test"),
    # rust
    (["cargo", "llvm-cov", "--lcov", "--output-path", "lcov.info"], "cargo-test"),
    (["cargo", "llvm-cov", "nextest"], "cargo-test"),
    (["cargo", "tarpaulin", "--out", "Xml"], "cargo-test"),
    (["cargo", "+nightly", "miri", "test"], "cargo-test"),
    (["cargo", "hack", "--feature-powerset", "test"], "cargo-test"),
    (["cargo", "insta", "test", "--review"], "cargo-test"),
    (["cross", "test", "--target", "aarch64-unknown-linux-gnu"], "cargo-test"),
    (["cargo", "watch", "-x", "test"], "cargo-test"),
    (["cargo", "--manifest-path", "sub/Cargo.toml", "test"], "cargo-test"),
    # jvm, build systems
    (["./gradlew", "connectedAndroidTest"], "gradle-test"),
    (["./gradlew", "allTests"], "gradle-test"),
    (["./gradlew", "jvmTest"], "gradle-test"),
    (["./gradlew", ":app:testDebugUnitTest"], "gradle-test"),
    (["./gradlew", "build", "-x", "lint"], "gradle-test"),
    (["./gradlew", "test", "-x", ":app:lint"], "gradle-test"),
    (["cmake", "--build", "build", "--target", "test"], "ctest"),
    (["cmake", "--build", ".", "-t", "check", "-j", "4"], "ctest"),
    (["make", "distcheck"], "make-test"),
    (["make", "check-TESTS"], "make-test"),
    (["make", "--directory=sub", "test"], "make-test"),
    (["dotnet", "watch", "test"], "dotnet-test"),
    (["dotnet", "watch", "--project", "src/App.Tests", "test"], "dotnet-test"),
    (["sbt", "test"], "sbt-test"),
    (["sbt", "clean", "coverage", "test", "coverageReport"], "sbt-test"),
    (["sbt", "testOnly *UserSpec"], "sbt-test"),
    (["sbt", "+test"], "sbt-test"),
    (["lein", "test"], "lein-test"),
    (["clojure", "-M:test"], "clojure-test"),
    (["clj", "-X:test"], "clojure-test"),
    (["buck2", "test", "//..."], "build-test"),
    (["pants", "test", "::"], "build-test"),
    (["./pants", "--changed-since=main", "test"], "build-test"),
    (["just", "test"], "just-test"),
    (["task", "test"], "taskfile-test"),
    # ruby, php
    (["ruby", "-Itest", "test/models/user_test.rb"], "ruby-test"),
    (
        ["ruby", "-Ilib:test", "-e", "Dir.glob('./test/**/*_test.rb').each { |f| require f }"],
        "ruby-test",
    ),
    (["ruby", "test/unit/parser_test.rb"], "ruby-test"),
    (["bundle", "exec", "cucumber"], "cucumber"),
    (["vendor/bin/phpunit", "--coverage-clover", "build/logs/clover.xml"], "phpunit"),
    (["php", "-d", "memory_limit=-1", "vendor/bin/phpunit"], "phpunit"),
    (["php", "-dxdebug.mode=coverage", "vendor/bin/pest", "--coverage"], "pest"),
    (["php", "artisan", "test", "--parallel"], "php-test"),
    (["composer", "test"], "php-test"),
    (["composer", "run-script", "test"], "php-test"),
    # other languages
    (["mix", "test", "--cover"], "mix-test"),
    (["swift", "test", "--parallel"], "swift-test"),
    (
        ["xcodebuild", "test", "-scheme", "App", "-destination", "platform=iOS Simulator"],
        "xcodebuild-test",
    ),
    (["flutter", "test", "--coverage"], "dart-test"),
    (["dart", "test"], "dart-test"),
    (["dart", "run", "test"], "dart-test"),
    (["fvm", "flutter", "test"], "dart-test"),
    (["stack", "test"], "haskell-test"),
    (["stack", "build", "--test", "--fast"], "haskell-test"),
    (["cabal", "test", "all"], "haskell-test"),
    (["zig", "build", "test"], "zig-test"),
    (["busted", "--coverage"], "busted"),
    (["R", "CMD", "check", "pkg_1.0.tar.gz"], "r-check"),
    (["Rscript", "-e", "devtools::test()"], "r-check"),
    (["julia", "--project", "-e", "using Pkg; Pkg.test()"], "julia-test"),
    (["julia", "--project=.", "test/runtests.jl"], "julia-test"),
    (["prove", "-lr", "t"], "perl-test"),
    (["./gradlew", "testDemoDebug", ":lint:test"], "gradle-test"),
    (["clojure", "-M:cljs-test:adv"], "clojure-test"),
    (["cargo", "careful", "test"], "cargo-test"),
    (["cargo", "llvm-cov", "--no-report", "nextest"], "cargo-test"),
    (["make.exe", "test"], "make-test"),
    (["zig", "build", "check", "test", "--summary", "all"], "zig-test"),
    (["yarn", "test-integration"], "yarn-script"),
    (["pnpm", "test-unit"], "pnpm-script"),
    (["pnpm", "run", "test-e2e"], "pnpm-script"),
    (["bun", "test:deno"], "bun-test"),
    (["lerna", "run", "test-unit"], "monorepo-test"),
    (["pdm", "test"], "python-task-test"),
    (["borp", "--coverage"], "js-test"),
    (["npx", "jest@29", "--ci"], "jest"),
    (["go", "run", "github.com/onsi/ginkgo/v2/ginkgo", "-r", "-p"], "ginkgo"),
    (["go", "run", "gotest.tools/gotestsum@latest", "--", "./..."], "go-test"),
    (["istanbul", "cover", "_mocha", "--", "--timeout", "3000"], "mocha"),
    (
        ["coverlet", "t.dll", "--target", "dotnet", "--targetargs", "test proj --no-build"],
        "dotnet-test",
    ),
    (["poetry", "run", "coverage", "run", "-m", "ward"], "ward"),
    (["cargo", "mutants", "--test-tool=nextest"], "cargo-test"),
    (["meson", "dist", "-C", "build"], "meson-test"),
    (["make", "-j", "test", "V=1"], "make-test"),
    (["ctest.exe", "-V", "-C", "Debug"], "ctest"),
    (["luarocks", "test", "--", "--exclude-tags=ssh"], "busted"),
    (["nvim", "--headless", "-c", "PlenaryBustedDirectory tests/plenary/"], "busted"),
    (["Rscript", "-e", "library(devtools); test()"], "r-check"),
    (["Rscript", "-e", "devtools::test_active_file('tests/testthat/test-a.R')"], "r-check"),
    (["pnpm", "-r", "install-test"], "pnpm-test"),
    (["script", "-qec", "go test ./...", "/dev/null"], "go-test"),
    (["ruby", "test/runner.rb", "--verbose"], "ruby-test"),
    (["gdb", "--args", "build/uv_run_tests_a", "tcp_ping_pong"], "test-binary"),
    (["./build/unit_tests", "--gtest_filter=Foo.*"], "test-binary"),
    (["beam.smp", "--", "-root", "/usr/lib/erlang", "-extra", "/usr/bin/mix", "test"], "mix-test"),
    (["lua", "/usr/local/bin/busted", "--coverage"], "busted"),
    (["perl", "/usr/bin/prove", "-lr", "t"], "perl-test"),
    (
        ["dart", "--disable-dart-dev", "/opt/flutter/bin/cache/flutter_tools.snapshot", "test"],
        "dart-test",
    ),
    (["/usr/bin/swift-test", "--parallel"], "swift-test"),
    (["/usr/bin/valgrind.bin", "--tool=memcheck", "pytest"], "pytest"),
    (["node", "/usr/lib/node_modules/nyc/bin/nyc.js", "mocha"], "mocha"),
    # wrappers
    (["git", "bisect", "run", "pytest", "-x"], "pytest"),
    (["git", "-C", "sub", "bisect", "run", "make", "test"], "make-test"),
    (["entr", "-c", "pytest"], "pytest"),
    (["entr", "-s", "make test"], "make-test"),
    (["watchexec", "-e", "py", "pytest"], "pytest"),
    (["watchexec", "--", "cargo", "test"], "cargo-test"),
    (["nodemon", "--exec", "npm test"], "npm-test"),
    (["nodemon", "-x", "mocha"], "mocha"),
    (["script", "-q", "-c", "pytest -x", "/dev/null"], "pytest"),
    (["watch", "-n", "5", "pytest", "-x"], "pytest"),
    (["screen", "-dmS", "tests", "pytest"], "pytest"),
    (["tmux", "new", "-d", "-s", "t", "pytest -x"], "pytest"),
    (["tmux", "new-session", "-d", "make test"], "make-test"),
    (["strace", "-f", "-o", "trace.txt", "pytest"], "pytest"),
    (["gdb", "-batch", "-ex", "run", "--args", "python", "-m", "pytest"], "pytest"),
    (["systemd-run", "--user", "--scope", "-p", "MemoryMax=2G", "pytest"], "pytest"),
    (["flock", "/tmp/tests.lock", "pytest"], "pytest"),
    (["flock", "-w", "60", "/tmp/tests.lock", "-c", "make test"], "make-test"),
    (["find", ".", "-name", "*_test.py", "-exec", "pytest", "{}", "+"], "pytest"),
    (["valgrind", "--leak-check=full", "ctest"], "ctest"),
    (["perf", "stat", "cargo", "test"], "cargo-test"),
    (["py-spy", "record", "-o", "p.svg", "--", "python", "-m", "pytest"], "pytest"),
    (["memray", "run", "-m", "pytest"], "pytest"),
    (["nix", "develop", "-c", "pytest"], "pytest"),
    (["nix-shell", "--run", "pytest -x"], "pytest"),
    (["su", "ci", "-c", "pytest"], "pytest"),
    (["cross-env", "NODE_ENV=test", "jest"], "jest"),
    (["dotenv", "-e", ".env.test", "--", "jest"], "jest"),
    (["mise", "exec", "--", "pytest"], "pytest"),
    (["mise", "run", "test"], "python-task-test"),
    (["eatmydata", "pytest"], "pytest"),
]

# Look-alikes: commands that name a runner but run no tests.
NOT_RUNS = [
    ["./gradlew", "build", "-x", "test"],
    ["./gradlew", "check", "-x", "test"],
    ["./gradlew", "build", "--exclude-task", "test"],
    ["./gradlew", "assembleDebugAndroidTest"],
    ["./gradlew", "compileTestKotlin"],
    ["mvn", "install", "-Dmaven.test.skip.exec=true"],
    ["mvn", "package", "-DskipTests"],
    ["node", "app.js"],
    ["node", "app.js", "--test"],
    ["node", "-e", "require('node:test')"],
    ["tox", "--notest"],
    ["tox", "-e", "py", "--notest"],
    ["tox", "list"],
    ["tox", "config"],
    ["nox", "--list"],
    ["nox", "-l"],
    ["cargo", "llvm-cov", "report"],
    ["cargo", "llvm-cov", "clean", "--workspace"],
    ["cargo", "test", "--no-run"],
    ["go", "test", "-c", "-o", "x.test"],
    ["go", "test", "-list", "."],
    ["ginkgo", "bootstrap"],
    ["ginkgo", "version"],
    ["cmake", "--build", "build"],
    ["cmake", "-S", ".", "-B", "build"],
    ["nyc", "report", "--reporter=lcov"],
    ["c8", "report"],
    ["git", "bisect", "start"],
    ["git", "log", "--grep", "pytest"],
    ["find", ".", "-name", "pytest"],
    ["gdb", "python"],
    ["screen", "-ls"],
    ["tmux", "attach", "-t", "tests"],
    ["watch", "-n", "1", "ls"],
    ["strace", "-p", "1234"],
    ["xcodebuild", "build-for-testing", "-scheme", "App"],
    ["xcodebuild", "-scheme", "test", "build"],
    ["swift", "build"],
    ["swift", "test", "--list-tests"],
    ["flutter", "build", "apk"],
    ["stack", "build"],
    ["stack", "build", "--test", "--no-run-tests"],
    ["sbt", "compile"],
    ["sbt", "test:compile"],
    ["cypress", "install"],
    ["cypress", "open"],
    ["karma", "init"],
    ["jasmine", "init"],
    ["wdio", "config"],
    ["phpunit", "--version"],
    ["phpunit", "--list-tests"],
    ["composer", "install"],
    ["php", "-l", "tests/FooTest.php"],
    ["R", "CMD", "build", "."],
    ["ruby", "-e", "puts 1"],
    ["ruby", "app.rb"],
    ["dotnet", "build"],
    ["dotnet", "watch", "run"],
    ["turbo", "run", "build"],
    ["turbo", "prune", "web"],
    ["nx", "run", "app:build"],
    ["nx", "affected", "-t", "lint"],
    ["nx", "graph"],
    ["lerna", "run", "build"],
    ["pnpm", "install"],
    ["pnpm", "recursive", "install"],
    ["yarn", "install"],
    ["yarn", "workspaces", "foreach", "-A", "run", "build"],
    ["make", "-n", "test"],
    ["make", "test", "--dry-run"],
    ["behave", "--dry-run"],
    ["robot", "--dryrun", "tests"],
    ["just", "--list"],
    ["task", "--list"],
    ["pants", "lint", "::"],
    ["bundle", "exec", "cucumber", "--init"],
    ["tox", "-e", "py", "--devenv", "venv"],
    ["phpunit", "--warm-coverage-cache"],
    ["mocha", "init", "dir"],
    ["go", "run", "./cmd/server"],
    ["./gradlew", ":app:lintDebug"],
    ["./gradlew", "testClasses"],
    ["behave", "-f", "help"],
    ["behave", "--runner=help"],
    ["behave", "--lang-list"],
    ["trial", "-n", "buildbot"],
    ["pytest", "--cache-show"],
    ["turbo", "build", "test", "--dry=json"],
    ["npx", "mocha", "--dry-run"],
    ["swift", "test", "list"],
    ["cargo", "test", "--workspace", "--", "--list"],
    ["meson", "dist", "--no-tests"],
    ["./build/unit_tests", "--gtest_list_tests"],
    ["./unit_tests", "--", "--list"],
    ["cat", "unit_tests"],
]


def _ids(cases):
    return [" ".join(argv) for argv, *_ in cases]


# (argv, kind): workers, which a runner or a build daemon starts.
WORKER_FORMS = [
    (
        ["java", "-cp", "g.jar", "worker.org.gradle.process.internal.worker.GradleWorkerMain", "x"],
        "gradle-test",
    ),
    (
        ["/bin/bash", "external/bazel_tools/tools/test/test-setup.sh", "//pkg:foo_test"],
        "bazel-test",
    ),
    (["node", "/r/node_modules/jest-worker/build/processChild.js"], "jest-worker"),
    (["[pytest-xdist", "running]", "tests/test_a.py::test_x"], "pytest-xdist-worker"),
]


@pytest.mark.parametrize(("argv", "kind"), WORKER_FORMS, ids=_ids(WORKER_FORMS))
def test_a_worker_form_is_a_worker(argv, kind):
    """Workers are detected with role worker: they fold into a runner above them, if any."""
    assert detect_runner(argv) == RunnerMatch(kind, "worker")


@pytest.mark.parametrize(("argv", "kind"), FORMS, ids=_ids(FORMS))
def test_a_form_names_its_runner(argv, kind):
    """Each runner form, behind its wrappers, is detected as its kind."""
    match = detect_runner(argv)
    assert match is not None
    assert match.kind == kind
    assert match.role in {"runner", "worker"}


@pytest.mark.parametrize("argv", NOT_RUNS, ids=[" ".join(a) for a in NOT_RUNS])
def test_a_look_alike_is_no_run(argv):
    """Installers, listings, dry runs, skip flags and excluded test tasks are no runs."""
    match = detect_runner(argv)
    assert match is None or match.role == TASK_ROLE


# (argv, kind, task names): task runners asked for a task that is no run by its name.
TASK_FORMS = [
    (["npm", "run", "unit"], "npm-script", ("unit",)),
    (["npm", "--prefix", "web", "run", "e2e"], "npm-script", ("e2e",)),
    (["yarn", "unit"], "yarn-script", ("unit",)),
    (["yarn", "run", "unit"], "yarn-script", ("unit",)),
    (["pnpm", "unit"], "pnpm-script", ("unit",)),
    (["pnpm", "-C", "web", "run", "ci"], "pnpm-script", ("ci",)),
    (["bun", "run", "ci"], "bun-script", ("ci",)),
    (["hatch", "run", "cov"], "hatch-script", ("cov",)),
    (["hatch", "-e", "dev", "run", "lint:all"], "hatch-script", ("lint:all",)),
    (["make"], "make-target", ()),
    (["make", "-j4", "ci", "V=1"], "make-target", ("ci", "V=1")),
    (["just"], "just-recipe", ()),
    (["just", "ci", "fast"], "just-recipe", ("ci", "fast")),
    (["task", "ci"], "taskfile-task", ("ci",)),
]


@pytest.mark.parametrize(("argv", "kind", "names"), TASK_FORMS, ids=_ids(TASK_FORMS))
def test_a_task_runner_names_its_tasks(argv, kind, names):
    """A task runner's task that is no run by name is a task, with the names it asks for."""
    assert detect_runner(argv) == RunnerMatch(kind, TASK_ROLE)
    resolution = resolve_command(argv)
    assert resolution.match is None
    assert resolution.task is not None
    assert (resolution.task.kind, resolution.task.names) == (kind, names)


@pytest.mark.parametrize(
    "argv",
    [
        ["npm", "run"],  # lists the scripts
        ["npm", "install"],
        ["yarn"],
        ["yarn", "add", "jest"],
        ["pnpm", "install"],
        ["hatch", "env", "create"],
        ["make", "-n"],
        ["just", "--list"],
    ],
)
def test_a_task_runner_doing_its_own_work_is_no_task(argv):
    """Installing, listing and other own subcommands of a task runner are not tasks."""
    assert detect_runner(argv) is None


@pytest.mark.parametrize(
    ("argv", "chdir"),
    [
        (["make", "-C", "../b/proj", "test"], "../b/proj"),
        (["make", "--directory=../b/proj", "test"], "../b/proj"),
        (["make", "--directory", "sub", "-C", "deeper", "check"], "sub/deeper"),
        (["pnpm", "-C", "web", "test"], "web"),
        (["pnpm", "--dir=web", "exec", "vitest"], "web"),
        (["go", "-C", "svc", "test", "./..."], "svc"),
        (["yarn", "--cwd", "web", "test"], "web"),
        (["yarn", "--cwd", "web", "jest"], "web"),
        (["npm", "--prefix", "web", "test"], "web"),
        (["npm", "-C", "web", "run", "test:unit"], "web"),
        (["bun", "--cwd", "web", "test"], "web"),
        (["ninja", "-C", "build", "test"], "build"),
        (["meson", "test", "-C", "builddir"], "builddir"),
        (["ctest", "--test-dir", "build", "-j4"], "build"),
        (["./gradlew", "-p", "android", "test"], "android"),
        (["mvn", "-f", "backend/pom.xml", "verify"], "backend"),
        (["mvn", "-f", "backend", "test"], "backend"),
        (["cargo", "test", "--manifest-path", "crates/core/Cargo.toml"], "crates/core"),
        (["tox", "-c", "py/tox.ini"], "py"),
        (["rake", "-C", "gem", "spec"], "gem"),
        (["git", "-C", "other", "bisect", "run", "pytest"], "other"),
        (["env", "-C", "a", "make", "-C", "b", "test"], "a/b"),
        (["systemd-run", "--user", "--working-directory=/srv/app", "pytest"], "/srv/app"),
        (["make", "-C", "/abs/proj", "test"], "/abs/proj"),
    ],
)
def test_directory_options_move_the_run(argv, chdir):
    """A runner's or wrapper's directory option says where the run works, like ``cd DIR &&``."""
    resolution = resolve_command(argv)
    assert resolution.match is not None or resolution.task is not None
    assert resolution.chdir == chdir


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
