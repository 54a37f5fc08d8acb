"""Rakefiles, melos scripts, cargo aliases (``runners/tasks/``): what the task runs."""

from __future__ import annotations

import pytest
from tasktools import runs, write

RAKEFILE = """\
    require "rspec/core/rake_task"
    require "rake/testtask"

    RSpec::Core::RakeTask.new(:spec)
    Rake::TestTask.new(:unit) do |t|
      t.libs << "test"
    end

    namespace :install do
      task :gem do
        sh "gem build x.gemspec"
      end
    end

    namespace :ci do
      task :all => [:spec, :unit]
    end

    task :lint do
      sh "rubocop"
    end

    task :external do
      sh "bundle exec rspec spec/external"
    end

    task default: %w[lint spec]
"""


@pytest.fixture
def rake_project(tmp_path):
    """A checkout whose Rakefile has test tasks, a lint task and a namespace."""
    write(tmp_path / "Rakefile", RAKEFILE)
    return tmp_path


class TestRake:
    """``rake`` runs its default task; a task runs its commands and dependencies."""

    @pytest.mark.parametrize(
        "command",
        ["rake", "bundle exec rake", "rake ci:all", "rake unit", "rake external", "rake -j4"],
    )
    def test_tasks_that_run_tests_are_runs(self, rake_project, command):
        """The default task, a namespaced task, a test library's task, an ``sh`` call."""
        assert runs(command, rake_project) != []

    @pytest.mark.parametrize(
        "command", ["rake lint", "rake install:gem", "rake -T", "rake nowhere"]
    )
    def test_tasks_that_run_none_are_no_runs(self, rake_project, command):
        """Lint and install tasks, listing the tasks, and an unknown task run no test."""
        assert runs(command, rake_project) == []

    def test_a_default_made_elsewhere_is_judged_by_its_name(self, tmp_path):
        """``task :default => "spec"`` with ``spec`` defined in an imported file is a run."""
        write(tmp_path / "Rakefile", 'import "tasks/spec.rake"\ntask :default => "spec"\n')
        assert runs("bundle exec rake", tmp_path) != []
        write(tmp_path / "Rakefile", 'task :default => "gem:build"\n')
        assert runs("bundle exec rake", tmp_path) == []

    def test_without_a_rakefile_rake_alone_is_no_run(self, tmp_path):
        """No Rakefile: what ``rake`` runs is not known, and its name says nothing."""
        assert runs("rake", tmp_path) == []
        assert runs("rake spec", tmp_path) != []


MELOS = """\
    name: workspace
    packages:
      - packages/*

    scripts:
      analyze: dart analyze .
      test:vm:
        name: Dart VM tests
        exec: |
          if [ -n "$CI" ]; then
            dart test --coverage=coverage
          else
            dart test
          fi
      test:all:
        run: melos run test:vm
      format:check:
        run: dart format --set-exit-if-changed .
"""


class TestMelos:
    """``melos run NAME`` and ``melos NAME`` run the script's text."""

    @pytest.mark.parametrize(
        "command", ["melos run test:vm", "melos run test:all", "melos test:vm"]
    )
    def test_scripts_that_run_tests_are_runs(self, tmp_path, command):
        """A script running ``dart test``, and one running it through another script."""
        write(tmp_path / "melos.yaml", MELOS)
        assert runs(command, tmp_path) != []

    @pytest.mark.parametrize(
        "command", ["melos run analyze", "melos run format:check", "melos bootstrap", "melos list"]
    )
    def test_scripts_that_run_none_are_no_runs(self, tmp_path, command):
        """An analyzer, a formatter and melos's own commands run no test."""
        write(tmp_path / "melos.yaml", MELOS)
        assert runs(command, tmp_path) == []

    def test_pubspec_melos_section(self, tmp_path):
        """Version 7 of melos keeps its scripts under ``melos:`` in pubspec.yaml."""
        write(
            tmp_path / "pubspec.yaml",
            "name: ws\nmelos:\n  scripts:\n    unit:\n      run: flutter test\n",
        )
        assert runs("melos run unit", tmp_path) != []

    def test_steps_run_their_commands_and_the_scripts_they_name(self, tmp_path):
        """``steps:`` (melos 6.1) runs each item: a command, or another script by its name."""
        write(
            tmp_path / "pubspec.yaml",
            """\
            name: ws
            melos:
              scripts:
                unit: flutter test
                coverage:
                  steps:
                    - melos exec -- flutter test --coverage
                    - melos exec -- genhtml coverage/lcov.info
                  packageFilters:
                    dirExists: test
                ci:
                  steps:
                    - analyze
                    - unit
                analyze: dart analyze .
                checks:
                  steps:
                    - analyze
                    - dart format --set-exit-if-changed .
            """,
        )
        assert runs("melos run coverage", tmp_path) != []
        assert runs("melos run ci", tmp_path) != []
        assert runs("melos run checks", tmp_path) == []

    def test_an_exec_mapping_is_read_for_its_command(self, tmp_path):
        """``exec:`` as a mapping (``command:`` beside ``concurrency:``) runs its command."""
        write(
            tmp_path / "pubspec.yaml",
            """\
            name: ws
            melos:
              scripts:
                test:
                  description: Run the tests of each package.
                  exec:
                    concurrency: 1
                    command: dart test
                  packageFilters:
                    dirExists: test
                analyze:
                  exec:
                    command: dart analyze .
            """,
        )
        assert runs("melos test", tmp_path) != []
        assert runs("melos analyze", tmp_path) == []


@pytest.mark.parametrize(
    "command",
    [
        "elixir -r test/test_helper.exs test/x_test.exs",
        "bin/elixir lib/mix/test/mix/x_test.exs",
        "dart run test/io_test.dart",
        "crystal i spec/std_spec.cr -- --junit_output out",
        "bin/crystal run spec/compiler_spec.cr",
        "tinygo test -tags safe ./...",
        "go-acc . -- -race -v",
        "wasm-pack test --node",
        "cargo xtask test --all",
        "python tests/test_api.py",
        "python examples/service/test_embedding.py",
        "python3 share/tool/tests/test.py",
        "elixir -r test/test_helper.exs -pr 'test/**/*_test.exs'",
        "ct_run -dir test -suite http_SUITE",
        "python -m gevent.tests --second-chance",
        "python3 -mtests -v",
        "uv run python -m app.test_all",
        "dart run tool/test_with_ddc.dart",
    ],
)
def test_a_test_file_or_runner_spelled_otherwise_is_a_run(tmp_path, command):
    """A test file run by its interpreter, and the runners of other toolchains."""
    assert runs(command, tmp_path) != []


@pytest.mark.parametrize(
    "command",
    [
        "crystal build spec/std_spec.cr",
        "dart format test/io_test.dart",
        "cargo xtask dist",
        "python tools/release.py",
        "cat tests/test_api.py",
        "python tests/integration_sources.py",
        "elixir -r test/test_helper.exs",
        "python -m pkg.tests.fixtures",
        "python -m http.server",
        "python -c 'import sys' -m x.tests",
        "dart run tool/build.dart",
    ],
)
def test_a_test_file_only_named_is_no_run(tmp_path, command):
    """Building, formatting or reading a test file runs no test."""
    assert runs(command, tmp_path) == []


class TestCargoAlias:
    """``cargo NAME`` where ``.cargo/config.toml`` defines the alias NAME."""

    def test_aliases_are_followed(self, tmp_path):
        """An alias running nextest is a run, one running clippy is not, one of another too."""
        write(
            tmp_path / ".cargo" / "config.toml",
            """\
            [alias]
            ci-test = "nextest run --profile ci"
            again = "ci-test"
            lint = ["clippy", "--all-targets"]
            xtask = "run --package xtask --"
            """,
        )
        assert runs("cargo ci-test", tmp_path) != []
        assert runs("cargo again", tmp_path) != []
        assert runs("cargo lint", tmp_path) == []
        assert runs("cargo xtask dist", tmp_path) == []
        assert runs("cargo ci-test", tmp_path / "sub") != []

    def test_the_words_after_an_alias_follow_its_expansion(self, tmp_path):
        """As cargo does: ``cargo xtask ci e2e --test`` runs the xtask given ``ci e2e --test``.

        ``cargo t --no-run`` builds the tests of ``t = "test --workspace"``, no more.
        """
        write(
            tmp_path / ".cargo" / "config.toml",
            '[alias]\nxtask = "run --package xtask --"\nt = "test --workspace"\n',
        )
        assert runs("cargo xtask ci e2e --test", tmp_path) != []
        assert runs("cargo xtask ci e2e --build", tmp_path) == []
        assert runs("cargo t --no-run", tmp_path) == []
        assert runs("cargo t -p core", tmp_path) != []

    def test_without_a_config_an_unknown_subcommand_is_no_run(self, tmp_path):
        """No config: ``cargo ci-test`` is not known, and cargo's own ``cargo test`` still is."""
        assert runs("cargo ci-test", tmp_path) == []
        assert runs("cargo test", tmp_path) != []


def test_mvn_with_no_goal_runs_the_poms_default_goal(tmp_path):
    """``mvn -B`` runs ``<defaultGoal>``: ``clean verify`` runs the tests, ``compile`` does not.

    A default goal set only in a profile is not the command's, and a goal on
    the command line, or a test-skipping option, wins over the default.
    """
    pom = (
        "<project><build><defaultGoal>{goal}</defaultGoal></build>"
        "<profiles><profile><build><defaultGoal>install</defaultGoal></build></profile>"
        "</profiles></project>"
    )
    write(tmp_path / "pom.xml", pom.format(goal="clean verify checkstyle:check"))
    assert runs("mvn --batch-mode --no-transfer-progress -Ddoclint=all", tmp_path) != []
    assert runs("./mvnw -B -e", tmp_path) != []
    assert runs("mvn -B compile", tmp_path) == []
    assert runs("mvn -B -DskipTests", tmp_path) == []
    write(tmp_path / "pom.xml", pom.format(goal="compile"))
    assert runs("mvn -B", tmp_path) == []
    write(tmp_path / "pom.xml", "<project><!-- <defaultGoal>test</defaultGoal> --></project>")
    assert runs("mvn -B", tmp_path) == []


def test_node_run_reads_package_json(tmp_path):
    """``node --run NAME`` runs a package.json script, as ``npm run NAME`` does."""
    (tmp_path / "package.json").write_text('{"scripts": {"unit": "jest", "lint": "eslint ."}}')
    assert runs("node --run unit", tmp_path) != []
    assert runs("node --run lint", tmp_path) == []
    assert runs("node --run test:e2e", tmp_path) != []


class TestRakeTasksRunFromCode:
    """Tasks run or forgotten by ``Rake::Task[NAME]``, and the ones Rails loads."""

    def test_a_task_invoked_from_a_body_runs(self, tmp_path):
        """``Rake::Task[:spec].invoke`` in ``ci``'s body runs ``spec``; a variable's is unknown."""
        write(
            tmp_path / "Rakefile",
            """\
            RSpec::Core::RakeTask.new(:spec)
            task :ci do
              Rake::Task["lint"].invoke
              Rake::Task[:spec].invoke(ENV["SEED"])
            end
            task :chosen do
              Rake::Task[name].invoke
            end
            task :lint do
              sh "rubocop"
            end
            task :again do
              Rake::Task[:spec].reenable
            end
            """,
        )
        assert runs("rake ci", tmp_path) != []
        assert runs("rake chosen", tmp_path) == []
        assert runs("rake again", tmp_path) == []

    def test_a_cleared_task_runs_only_what_is_added_after(self, tmp_path):
        """``Rake::Task[:default].clear`` then ``task default: :lint``: lint alone."""
        write(
            tmp_path / "Rakefile",
            """\
            RSpec::Core::RakeTask.new(:spec)
            task :lint do
              sh "rubocop"
            end
            task default: :spec
            Rake::Task[:default].clear
            task default: :lint
            """,
        )
        assert runs("rake", tmp_path) == []
        write(
            tmp_path / "Rakefile",
            (tmp_path / "Rakefile").read_text().replace(".clear", ".clear_actions"),
        )
        assert runs("rake", tmp_path) != []

    @pytest.mark.parametrize(
        "loads", ["Rails.application.load_tasks", "Shop::Application.load_tasks"]
    )
    def test_a_rails_apps_default_task_runs_its_tests(self, tmp_path, loads):
        """Rails defines ``default`` on ``test``; a task of the app's own adds to it."""
        write(
            tmp_path / "Rakefile",
            f"""\
            require_relative "config/application"
            {loads}
            task :audit do
              sh "bundle audit"
            end
            task default: :audit
            """,
        )
        assert runs("bundle exec rake", tmp_path) != []
        assert runs("bundle exec rake audit", tmp_path) == []
