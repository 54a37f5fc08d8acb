"""The project's own scripts (``runners/tasks/scripts.py``): read, or judged by their name.

A script of the checkout that a command runs (``scripts/test``, ``bash ci/run.sh``,
``./ci.sh``) is read and its text parsed: a run when it starts one. A script that
cannot be read is a run when its name says so.
"""

from __future__ import annotations

import os

import pytest
from tasktools import runs, write

from runctx.runners.tasks.scripts import named_for_tests, script_path
from runctx.shell.commands import SCRIPT_KIND


def _script(path, text):
    write(path, text)
    path.chmod(0o755)


class TestRead:
    """A script that can be read is what its text runs, whatever its name."""

    @pytest.mark.parametrize("command", ["scripts/test", "./scripts/test -x", "sh scripts/test"])
    def test_a_script_running_a_runner_is_a_run(self, tmp_path, command):
        """``scripts/test`` running ``coverage run -m pytest`` is a run, however it is started."""
        _script(tmp_path / "scripts" / "test", '#!/bin/sh -e\ncoverage run -m pytest "$@"\n')
        assert runs(command, tmp_path) == [(SCRIPT_KIND, str(tmp_path))]

    def test_a_script_named_otherwise_is_read(self, tmp_path):
        """``./ci.sh`` that installs and then runs pytest is a run: its text says so."""
        _script(tmp_path / "ci.sh", "#!/bin/bash\nset -ex\npip install -e .\npytest -W error\n")
        assert runs("source .venv/bin/activate && ./ci.sh", tmp_path) == [
            (SCRIPT_KIND, str(tmp_path))
        ]

    def test_a_test_named_script_that_runs_no_runner_is_no_run(self, tmp_path):
        """``ci/print-test-failures.sh`` only prints: read, it is no run despite its name."""
        _script(tmp_path / "ci" / "print-test-failures.sh", "#!/bin/sh\ncat t/test-results/*\n")
        _script(tmp_path / "scripts" / "test", "#!/bin/sh\nruff check .\nmypy src\n")
        assert runs("ci/print-test-failures.sh", tmp_path) == []
        assert runs("bash scripts/test", tmp_path) == []

    def test_scripts_are_followed_a_few_levels_deep(self, tmp_path):
        """``scripts/ci`` calling ``scripts/unit`` calling ``go test`` is a run."""
        _script(tmp_path / "scripts" / "ci", "#!/bin/sh\nscripts/lint\nscripts/unit\n")
        _script(tmp_path / "scripts" / "lint", "#!/bin/sh\ngolangci-lint run\n")
        _script(tmp_path / "scripts" / "unit", "#!/bin/sh\ngo test ./...\n")
        assert runs("scripts/ci", tmp_path) == [(SCRIPT_KIND, str(tmp_path))]
        assert runs("scripts/lint", tmp_path) == []

    def test_a_script_that_calls_itself_ends(self, tmp_path):
        """A script that runs itself is read a bounded number of times, and is no run."""
        _script(tmp_path / "scripts" / "loop", "#!/bin/sh\nscripts/loop\n")
        assert runs("scripts/loop", tmp_path) == []

    @pytest.mark.parametrize(
        "command",
        [
            "uv run --no-sync bash scripts/test-cov.sh $PYTEST_OPTIONS",
            "sudo -E PATH=$PATH ./scripts/test-cov.sh",
            "poetry run scripts/test-cov.sh",
        ],
    )
    def test_a_script_behind_wrappers_is_read(self, tmp_path, command):
        """The script a wrapper runs is read as when it is run alone.

        ``test-cov.sh`` runs ``bash scripts/unit.sh``, which runs pytest;
        ``scripts/lint.sh`` behind the same wrappers is no run.
        """
        _script(tmp_path / "scripts" / "test-cov.sh", "#!/bin/sh\nbash scripts/unit.sh --cov\n")
        _script(tmp_path / "scripts" / "unit.sh", '#!/bin/sh\npytest -n auto tests "$@"\n')
        _script(tmp_path / "scripts" / "lint.sh", "#!/bin/sh\nruff check .\n")
        assert runs(command, tmp_path) == [(SCRIPT_KIND, str(tmp_path))]
        assert runs(command.replace("test-cov", "lint"), tmp_path) == []

    def test_a_program_after_a_variable_prefix_is_the_program(self, tmp_path):
        """``${PREFIX}coverage run -m pytest`` (``PREFIX`` a venv's bin) runs pytest.

        So it does with options held in a variable (``$branch_option``) before
        ``-m``. ``${PREFIX}mypy`` runs no test.
        """
        _script(
            tmp_path / "scripts" / "test",
            '#!/bin/sh\nexport PREFIX=""\n[ -d venv ] && PREFIX="venv/bin/"\n'
            '${PREFIX}coverage run $branch_option -m pytest "$@"\n',
        )
        _script(
            tmp_path / "scripts" / "check", "#!/bin/sh\n${PREFIX}mypy src\n${PREFIX}ruff check\n"
        )
        assert runs("scripts/test", tmp_path) == [(SCRIPT_KIND, str(tmp_path))]
        assert runs("scripts/check", tmp_path) == []
        assert runs("${PREFIX}pytest -x", tmp_path) != []
        assert runs("${PREFIX}${BIN}pytest -x", tmp_path) == []

    def test_a_script_in_a_cd_target_is_read_there(self, tmp_path):
        """``cd sub && ./run.sh`` reads ``sub/run.sh``."""
        _script(tmp_path / "sub" / "run.sh", "#!/bin/sh\ncargo test\n")
        assert runs("cd sub && ./run.sh", tmp_path) == [(SCRIPT_KIND, str(tmp_path / "sub"))]

    @pytest.mark.needs_root
    def test_a_script_another_user_owns_is_not_read(self, tmp_path):
        """A script owned by another user is never read: its name decides, and says no run."""
        _script(tmp_path / "scripts" / "check", "#!/bin/sh\npytest\n")
        assert runs("scripts/check", tmp_path) == [(SCRIPT_KIND, str(tmp_path))]
        os.chown(tmp_path / "scripts" / "check", 65534, 65534)
        assert runs("scripts/check", tmp_path) == []


class TestOwnDirectory:
    """A script calls the scripts beside it through its own directory: they are read."""

    @pytest.mark.parametrize(
        "call",
        [
            '"$(dirname "$0")/unit.sh"',
            'DIR="$( cd "$( dirname "${BASH_SOURCE[0]}" )" && pwd )"\n"$DIR/unit.sh" -q',
            'SCRIPT_DIR=$(dirname -- "$0")\n$SCRIPT_DIR/unit.sh',
            'cd "$(dirname "$0")"\n./unit.sh',
            'here=$(cd "$(dirname "$0")" >/dev/null 2>&1 && pwd -P)\nbash "${here}/unit.sh"',
            '"${0%/*}/unit.sh"',
            'root="$( cd -P "$( dirname "${BASH_SOURCE[0]}" )" && pwd )"\n"$root/unit.sh"',
            '. "$(dirname "$0")/unit.sh" --coverage',
            'root=$(dirname "$(realpath "$0")")\nsh $root/unit.sh',
        ],
    )
    def test_a_sibling_called_through_the_scripts_directory_is_read(self, tmp_path, call):
        """``$(dirname "$0")``, ``${BASH_SOURCE[0]}``, ``$(cd … && pwd)``: its directory."""
        _script(tmp_path / "ci" / "unit.sh", "#!/bin/sh\npytest -q\n")
        _script(tmp_path / "ci" / "build.sh", "#!/bin/sh\ncargo build\n")
        _script(tmp_path / "ci" / "run.sh", f"#!/bin/bash\nset -e\n{call}\n")
        assert runs("./ci/run.sh", tmp_path) == [(SCRIPT_KIND, str(tmp_path))]
        _script(tmp_path / "ci" / "run.sh", f"#!/bin/bash\n{call.replace('unit.sh', 'build.sh')}\n")
        assert runs("./ci/run.sh", tmp_path) == []

    @pytest.mark.parametrize("command", ["source ci/unit.sh", ". ./ci/unit.sh --coverage"])
    def test_a_sourced_script_runs_its_text(self, tmp_path, command):
        """``. ci/build.sh --test``: the file's text runs in the shell that sources it."""
        _script(tmp_path / "ci" / "unit.sh", "#!/bin/sh\npytest -q\n")
        _script(tmp_path / "ci" / "env.sh", "export PGHOST=localhost\n")
        assert runs(command, tmp_path) == [(SCRIPT_KIND, str(tmp_path))]
        assert runs("source ci/env.sh && ruff check .", tmp_path) == []

    def test_another_variable_is_not_the_scripts_directory(self, tmp_path):
        """``$TOOLS/unit.sh`` with ``TOOLS`` from elsewhere names no file of the checkout."""
        _script(tmp_path / "ci" / "unit.sh", "#!/bin/sh\npytest -q\n")
        _script(tmp_path / "ci" / "run.sh", '#!/bin/bash\nTOOLS="$HOME/ci"\n"$TOOLS/unit.sh"\n')
        assert runs("./ci/run.sh", tmp_path) == []


class TestByName:
    """A script that cannot be read (absent, not shell) is a run when its name says so."""

    @pytest.mark.parametrize(
        "command",
        [
            "scripts/test tests/test_x.py",
            "bash scripts/test.sh",
            ".ci/test.sh",
            "./test ios",
            "tools/test.py",
            "./run_tests.py --fast",
            "ci/run-test-slice.sh 1 10",
            "sh t/t1234-rebase.sh",
            "scripts/unit_tests.sh",
            "build/release/test/unittest '*'",  # a built test program
            "mpiexec -n 4 ./tst_nonblocking",
            "python tools/testrunner.py --shard 2",
            "mpiexec -n 2 python test/main.py -v",  # a suite's entry in its tests' directory
            "python3 tests/runner.py browser.test_x",
            "node test/index.js",
            "./ci/build-and-test.sh",  # both
        ],
    )
    def test_a_test_named_script_is_a_run(self, tmp_path, command):
        """Absent from the checkout, a script named for tests counts as a test run."""
        assert runs(command, tmp_path) != []

    @pytest.mark.parametrize(
        "command",
        [
            "scripts/build",
            "./configure",
            "ci/install-test-deps.sh",
            "ci/print-test-failures.sh",
            "./scripts/lint.sh",
            "ls ./tests",
            "bash -c 'echo scripts/test'",
            "/usr/local/bin/test",
            "../other/scripts/test",
            "python src/main.py",
            "python tests/fixtures/main.py",
            "python tests/conftest.py",
            "python tools/test.py --help",  # asked to print: it runs no test
            "./tests/run_tests.py --list",  # asked to list the tests: it runs none
            "scripts/test --collect-only -q",
            "./scripts/test --version",
            "vendor/bin/run-linter-tests",  # named for tests, and for linting them
            "./ci/phpstan-tests.sh",
            "scripts/compile_tests.sh",
        ],
    )
    def test_other_scripts_are_no_runs(self, tmp_path, command):
        """Absent scripts named otherwise, and paths out of the checkout, are no runs."""
        assert runs(command, tmp_path) == []

    def test_a_python_test_script_is_judged_by_its_name_even_when_present(self, tmp_path):
        """A python script is not shell: ``tools/test.py`` present is still a run by its name."""
        write(tmp_path / "tools" / "test.py", "import subprocess\n")
        assert runs("python tools/test.py", tmp_path) != []
        assert named_for_tests("tools/test.py")

    def test_only_checkout_paths_are_scripts(self):
        """Absolute paths, ``~``, variables and ``..`` name no script of the checkout."""
        assert script_path(["/bin/test"]) is None
        assert script_path(["~/bin/test"]) is None
        assert script_path(["$ROOT/test"]) is None
        assert script_path(["../x/test"]) is None
        assert script_path(["bash", "-c", "pytest"]) is None
        assert script_path(["bash", "-ex", "ci/run.sh"]) == "ci/run.sh"


class TestInterpretersTestFiles:
    """A test file an interpreter runs, past the interpreter's own options."""

    @pytest.mark.parametrize(
        "command",
        [
            "node test/parser.test.js",
            "node --enable-source-maps dist/api.test.mjs",
            "node -r esm test-client.cjs",
            "bun test/parser.test.ts",  # bun runs a file as node does
            "bun --smol tests/run-all.test.ts",
            "php tests/test.php",
            "php -d memory_limit=-1 tests/pathological/test.php",
            "php -dxdebug.mode=off run-tests.php",
            "lua tests/test_parser.lua",
            "lua -e 'package.path=\"src/?.lua;\"..package.path' tests/test_parser.lua",
            "luajit -l luaunit spec_test.lua",
            "python -W error tests/test.py",
            "python3 -X dev -u runtests.py",
            "ruby -w test/test_parser.rb",
            "tclsh tests/test_helper.tcl --single unit/expire",
            "tclsh8.6 tests/testrunner.tcl veryquick",
            "dart dev/bots/test.dart",
            "bin/cache/dart-sdk/bin/dart --enable-asserts tool/test.dart",
            "dart run test/all_test.dart",
            "$TCLSH tests/test_helper.tcl",  # an interpreter named by a variable
            "${PYTHON} tools/run_tests.py -v",
        ],
    )
    def test_a_test_named_file_is_a_run(self, tmp_path, command):
        """Named as node --test, luaunit and PHP's own suites name their test files."""
        assert runs(command, tmp_path) != []

    def test_bun_runs_the_file_it_is_given_as_node_does(self, tmp_path):
        """``bun ./scripts/each.mjs test``: what the script starts decides, its argument too."""
        write(
            tmp_path / "scripts" / "each.mjs",
            "import { spawnSync } from 'node:child_process';\n"
            "const [name] = process.argv.slice(2);\n"
            "spawnSync('npm', ['run', name], { stdio: 'inherit' });\n",
        )
        write(tmp_path / "scripts" / "bundle.mjs", "await Bun.build({ entrypoints: ['x.ts'] });\n")
        assert runs("bun ./scripts/each.mjs test", tmp_path) != []
        assert runs("bun ./scripts/each.mjs lint", tmp_path) == []
        assert runs("bun scripts/bundle.mjs", tmp_path) == []

    @pytest.mark.parametrize(
        "command",
        [
            "php -l tests/test.php",
            "php tests/ParserTest.php",
            "node --check test/parser.test.js",
            "node -e 'require(1)' test/parser.test.js",
            "node build.js",
            "bun build.ts",
            "bun install",
            "bun build ./index.ts --outdir dist",
            "lua -e 'print(1)'",
            "luajit -b tests/test_parser.lua out.o",
            "lua main.lua",
            "ruby -c test/test_parser.rb",
            "perl -c t/basic.t",
            "python -c 'import x' tests/test.py",
            "tclsh tools/mkdist.tcl",
            "dart tool/build.dart",
            "dart run build_runner test",  # a package's executable, not a file
            "$EDITOR tests/test_x.py",
            "$PYTHON setup.py build",
        ],
    )
    def test_a_check_code_or_another_file_is_no_run(self, tmp_path, command):
        """A syntax check, code in place of a script, a PHPUnit class file: no run."""
        assert runs(command, tmp_path) == []


class TestArguments:
    """A script's arguments: the action it picks, or the command it runs."""

    @pytest.mark.parametrize(
        ("argument", "expected"),
        [
            ("./spec/requests/home_request_spec.rb", True),
            ("tests/test_parser.py::test_empty", True),
            ("src/parser.test.ts", True),
            ("src/main/java/ParserTest.java", True),
            ("app/models/user.rb", False),
            ("docs/testing.md", False),
            ("--fail-fast", False),
        ],
    )
    def test_a_dispatching_script_given_a_file_of_tests_runs_it(self, tmp_path, argument, expected):
        """``bin/test spec/x_spec.rb``: its arguments pick what it runs, and name tests."""
        _script(
            tmp_path / "bin" / "test",
            "#!/bin/bash\n"
            'if [[ -z "$1" ]] || [[ "$1" == "unit" ]]; then\n'
            "  bundle exec parallel_rspec ./spec\n"
            "fi\n"
            'if [[ "$1" == "lint" ]]; then bundle exec rubocop; fi\n'
            'if [[ "$@" ]] && [[ "$1" != "unit" ]] && [[ "$1" != "lint" ]]; then\n'
            '  bundle exec parallel_rspec "$@"\n'
            "fi\n",
        )
        assert bool(runs(f"bin/test {argument}", tmp_path)) is expected

    def test_a_dispatching_script_runs_what_its_arguments_name(self, tmp_path):
        """``build.sh -a test`` is a run, ``build.sh -a build`` is not: one text holds both."""
        _script(
            tmp_path / "build" / "ci" / "build.sh",
            """\
            #!/bin/sh
            while getopts a: opt; do ACTIONS="$ACTIONS $OPTARG"; done
            for action in $ACTIONS; do
              case "$action" in
                build) make ;;
                test) make check ;;
                install) make install ;;
              esac
            done
            """,
        )
        assert runs("./build/ci/build.sh -a test", tmp_path) != []
        assert runs("./build/ci/build.sh -a build", tmp_path) == []
        assert runs("./build/ci/build.sh --action=unit-tests", tmp_path) != []

    def test_a_script_that_parses_its_options_then_runs_tests_is_a_run(self, tmp_path):
        """Options taken by a ``case "$1"`` loop leave the ``pytest`` after it: a run."""
        _script(
            tmp_path / "ci.sh",
            """\
            #!/bin/sh
            while [ $# -gt 0 ]; do
              case "$1" in
                -v|--verbose) VERBOSE=-v ;;
                -k) FILTER="-k $2"; shift ;;
                --docs) exec mkdocs build ;;
              esac
              shift
            done
            pytest $VERBOSE $FILTER
            """,
        )
        for command in ("./ci.sh", "./ci.sh -v", "./ci.sh -k parser", "sh ci.sh --verbose"):
            assert runs(command, tmp_path) != [], command

    def test_each_argument_runs_its_arm_and_the_functions_it_calls(self, tmp_path):
        """``for arg in "$@"; do case "$arg"``: an arm that only builds is no run."""
        _script(
            tmp_path / "test",
            """\
            #!/bin/bash
            function test_unit {
                cargo test --workspace
            }
            build_release() {
                cargo build --release
            }
            for arg in "$@"; do
                case "$arg" in
                    unit) test_unit ;;
                    release) build_release ;;
                    all) build_release; test_unit ;;
                esac
            done
            """,
        )
        assert runs("./test release", tmp_path) == []
        assert runs("./test unit", tmp_path) != []
        assert runs("./test release all", tmp_path) != []
        assert runs("./test", tmp_path) != []  # no argument: the whole text is judged

    def test_a_block_not_fed_by_the_arguments_is_judged_whole(self, tmp_path):
        """``case "$(uname)"``, or ``$1`` inside a function (its own argument): nothing left out."""
        _script(
            tmp_path / "ci.sh",
            """\
            #!/bin/sh
            run() {
              case "$1" in
                unit) pytest tests/unit ;;
                lint) ruff check . ;;
              esac
            }
            case "$(uname)" in
              Linux) run unit ;;
              Darwin) run lint ;;
            esac
            case "$1" in
              --fast) FAST=1 ;;
            esac
            """,
        )
        assert runs("./ci.sh --fast", tmp_path) != []

    def test_comments_between_arms_are_no_part_of_a_pattern(self, tmp_path):
        """``# the suite`` above ``ci)``: the arm is still taken for ``ci``."""
        _script(
            tmp_path / "do.sh",
            """\
            #!/bin/sh
            case "$1" in
              # the app
              build) make ;;
              # the suite, as CI runs it
              ci|all) pytest -q ;;
            esac
            """,
        )
        assert runs("./do.sh ci", tmp_path) != []
        assert runs("./do.sh build", tmp_path) == []

    def test_a_block_that_does_not_end_is_judged_whole(self, tmp_path):
        """No ``esac``: the text is not understood, and the rule of names decides as before."""
        _script(
            tmp_path / "ci.sh",
            '#!/bin/sh\ncase "$1" in\n  build) make ;;\n  test) pytest ;;\n',
        )
        assert runs("./ci.sh build", tmp_path) == []
        assert runs("./ci.sh test", tmp_path) != []

    def test_an_unreadable_script_given_a_test_action_is_a_run(self, tmp_path):
        """``./build.cmd unit-tests``, ``./x.py test``: not shell, their first argument decides."""
        write(tmp_path / "build.cmd", "@echo off\n")
        assert runs("./build.cmd unit-tests", tmp_path) != []
        assert runs("./x.py test library/std", tmp_path) != []
        assert runs("./x.py build", tmp_path) == []
        assert runs("./build.cmd --list-tests", tmp_path) == []

    @pytest.mark.parametrize(
        ("command", "is_run"),
        [
            ("./build.sh --test", True),
            ("./build.sh --restore --build --test", True),
            ("./ci.sh --run-tests --verbose", True),
            ("./build.sh --test-data", False),
            ("./build.sh --tests=false", False),
            ("./tools/analyze -fix -test ./...", False),
        ],
    )
    def test_a_long_flag_naming_the_test_action_is_the_action(self, tmp_path, command, is_run):
        """.NET Arcade's ``./build.sh --test``: the flag is the action, wherever it is given.

        A flag about tests is none, nor a one-dash ``-test`` (a Go tool's
        "analyse test files too").
        """
        assert (runs(command, tmp_path) != []) is is_run

    @pytest.mark.parametrize(
        ("command", "is_run"),
        [
            ("python dev.py test", True),
            ("python3 x.py test library/std", True),
            ("node build.mjs test:unit", True),
            ("ruby build.rb tests", True),
            ("go run build.go test", True),
            ("python dev.py lint", False),
            ("python manage.py testserver", False),
            ("go run build.go --test-data", False),
            ("cargo run -p xtask -- test", True),
            ("cargo run --release --bin test-runner", True),
            ("timeout 600 cargo run --package=ci -- tests --all", True),
            ("cargo run -p xtask -- dist", False),
            ('cabal v2-run spec -- --match "parse bytes"', True),
            ("cabal run pkg:test:integration", True),
            ("cabal run exe:app -- --port 8080", False),
            ("python dev.py --no-build test -j 2 -- --durations 10", True),
            ("./build.sh --target RunTests", True),
            ("./build.sh --target Package", False),
            ("cargo run -- --help", False),
        ],
    )
    def test_an_interpreter_running_a_script_given_a_test_action(self, tmp_path, command, is_run):
        """``python dev.py test`` is ``./dev.py test``, and so is ``cargo run -p xtask -- test``.

        The project's program is given its action, as a script run by its
        path is: the action (or the program's name) decides, no path needed.
        """
        assert (runs(command, tmp_path) != []) is is_run

    def test_a_branch_on_a_flag_the_arguments_did_not_set_is_not_run(self, tmp_path):
        """``--restore`` leaves ``coverage=false``: ``if [[ "$coverage" == true ]]`` is dead.

        The flags are read as Arcade's driver reads them (``opt`` from ``$1``
        with ``--`` made ``-``); given ``--coverage``, the branch runs.
        """
        _script(
            tmp_path / "build.sh",
            "#!/usr/bin/env bash\n"
            "coverage=false\n"
            "while [[ $# > 0 ]]; do\n"
            '  opt="$(echo "${1/#--/-}" | tr "[:upper:]" "[:lower:]")"\n'
            '  case "$opt" in\n'
            "    -restore) restore=true ;;\n"
            "    -coverage) coverage=true ;;\n"
            "  esac\n"
            "  shift\n"
            "done\n"
            "dotnet restore\n"
            'if [[ "$coverage" == true ]]; then\n'
            "  dotnet test --collect:'XPlat Code Coverage'\n"
            "fi\n",
        )
        assert runs("./build.sh --restore", tmp_path) == []
        assert runs("./build.sh --restore --coverage", tmp_path) != []

    def test_a_script_that_runs_its_arguments_as_one_string_runs_them(self, tmp_path):
        """``./dev cargo test`` of a script running ``bash -c "$*"``: the command ``cargo test``."""
        _script(
            tmp_path / "dev",
            '#!/usr/bin/env bash\nexec nix develop --no-warn-dirty --command bash -c "$*"\n',
        )
        assert runs("./dev cargo test --workspace", tmp_path) == [(SCRIPT_KIND, str(tmp_path))]
        assert runs("./dev cargo build", tmp_path) == []

    def test_a_script_that_runs_its_arguments_runs_the_command_given(self, tmp_path):
        """``bin/ci with_build_env 'make std_spec'``: the quoted command is judged."""
        _script(
            tmp_path / "bin" / "ci",
            '#!/bin/sh\nwith_build_env() {\n  docker run --rm img sh -c "$1"\n}\n"$@"\n',
        )
        assert runs("bin/ci with_build_env 'crystal spec spec/std'", tmp_path) != []
        assert runs("bin/ci with_build_env 'make docs'", tmp_path) == []

    def test_a_script_hands_its_arguments_to_what_it_runs(self, tmp_path):
        """``./build.sh --target=Test`` of ``dotnet cake "$@"``: the tool is given them."""
        _script(tmp_path / "build.sh", '#!/bin/sh\nset -e\ndotnet tool restore\ndotnet cake "$@"\n')
        assert runs('./build.sh --target="Run-Unit-Tests"', tmp_path) != []
        assert runs("./build.sh --target=Pack", tmp_path) == []
        assert runs("./build.sh", tmp_path) == []
        _script(tmp_path / "ci.sh", '#!/bin/sh\ndotnet cake "--target=$1" --verbosity=minimal\n')
        assert runs("./ci.sh Test", tmp_path) != []  # inside a quoted word too
        assert runs("./ci.sh Pack", tmp_path) == []

    def test_a_script_hands_one_argument_to_what_it_runs(self, tmp_path):
        """``scripts/task.sh test`` of ``npm run "$1"``: the task it names is what runs."""
        _script(
            tmp_path / "scripts" / "task.sh", '#!/bin/sh\ncd "$(dirname "$0")/.."\nnpm run "${1}"\n'
        )
        assert runs("scripts/task.sh test", tmp_path) != []
        assert runs("scripts/task.sh build", tmp_path) == []
        assert runs("scripts/task.sh 'lint; pytest'", tmp_path) == []  # one word, quoted

    def test_a_runner_its_options_refuse_is_not_read_as_a_script(self, tmp_path):
        """``./gradlew test --dry-run`` and ``bin/rails test -h`` stay no runs."""
        assert runs("./gradlew test --dry-run", tmp_path) == []
        assert runs("bin/rails test -h", tmp_path) == []
