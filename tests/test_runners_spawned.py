"""The commands Python, JavaScript and Ruby code starts (``runners/spawned.py``).

A script of the checkout in one of these languages is read for the commands
its code starts (and the runners it calls in its own process): one that
starts a run makes the script a run, whatever its name. The parser of
literals is fed text; the verdicts come from real files of a checkout.
"""

from __future__ import annotations

import os

import pytest
from tasktools import runs, write

from runctx.runners.spawned import MAX_LITERAL_CHARS, language, spawned
from runctx.shell.commands import SCRIPT_KIND


class TestRead:
    """The commands a script's code starts, from its literals."""

    @pytest.mark.parametrize(
        ("text", "commands"),
        [
            ('subprocess.run(["pytest", "-x"])', ("pytest -x",)),
            (
                "subprocess.run([sys.executable, '-m', 'pytest', *args])",
                ("python -m pytest $VALUE",),
            ),
            ('subprocess.check_call("tox -e py", shell=True)', ("tox -e py",)),
            ('os.system(f"pytest {path} -q")', ("pytest $VALUE -q",)),
            (
                'subprocess.run(\n    [\n        "cargo",\n        "test",\n    ]\n)',
                ("cargo test",),
            ),
            ('check_output(("go", "test", "./..."))', ("go test ./...",)),
            ('subprocess.run(r"pytest tests\\unit")', ("pytest tests\\unit",)),
            ("subprocess.run(cmd)", ()),
            ("subprocess.run(['a b', \"it's\"])", ("'a b' 'it'\"'\"'s'",)),
            ('print("pytest")', ()),
            ("raise SystemExit(pytest.main(['-q']))", ("python -m pytest",)),
            ("unittest.main(verbosity=2)", ("python -m unittest",)),
        ],
    )
    def test_python_calls(self, text, commands):
        """Each process call with a literal command gives it; an expression gives nothing."""
        assert spawned("python", text).commands == commands

    @pytest.mark.parametrize(
        ("text", "commands"),
        [
            ("execSync('npx jest --ci', { stdio: 'inherit' })", ("npx jest --ci",)),
            ('cp.spawnSync("npm", ["run", "unit", ...rest])', ("npm run unit $VALUE",)),
            ("await $`vitest run ${dir}`", ("vitest run $VALUE",)),
            ("execa('mocha', ['--reporter', 'dot'])", ("mocha --reporter dot",)),
            ("spawn(process.execPath, ['--test'])", ("node --test",)),
            ("spawn(binary, ['--test'])", ()),  # the program is an expression
            ("const m = /x/.exec(line)", ()),
            ("await runCLI(argv, [root])", ("jest",)),
        ],
    )
    def test_javascript_calls(self, text, commands):
        """A string command, a program with an array of words, zx's template."""
        assert spawned("javascript", text).commands == commands

    @pytest.mark.parametrize(
        ("text", "commands"),
        [
            ('system("bundle exec rspec")', ("bundle exec rspec",)),
            ("system 'bin/rails', 'test'", ("bin/rails test",)),
            ("out = `rake spec`", ("rake spec",)),
            ("%x(make check)", ("make check",)),
            ('system("rspec #{files}")', ("rspec $VALUE",)),
            ("system(command)", ()),
        ],
    )
    def test_ruby_calls(self, text, commands):
        """``system`` with or without parentheses, backticks, ``%x()``."""
        assert spawned("ruby", text).commands == commands

    def test_dispatch_marks(self):
        """Subcommands chosen from the arguments are said; plain options are not."""
        assert spawned("python", "p.add_subparsers()").dispatches
        assert spawned("python", "if sys.argv[1] == 'test':").dispatches
        assert not spawned("python", "p.add_argument('--fast')").dispatches
        assert spawned("javascript", "switch (process.argv[2]) {").dispatches
        assert spawned("ruby", "case ARGV[0]").dispatches

    def test_language_by_shebang_or_suffix(self):
        """The ``#!`` line first, then the name's suffix; a shell script is none of these."""
        assert language("bin/ci", "#!/usr/bin/env ruby\n") == "ruby"
        assert language("scripts/ci", "#!/usr/bin/python3 -u\n") == "python"
        assert language("scripts/ci.mjs", "import x\n") == "javascript"
        assert language("scripts/ci.py", "#!/bin/sh\n") is None
        assert language("scripts/v1.0/ci", "x\n") is None

    def test_a_literal_is_read_a_bounded_distance(self):
        """An unclosed list is not read past the bound: no command, and no error."""
        text = 'subprocess.run(["pytest", ' + '"x", ' * MAX_LITERAL_CHARS
        assert spawned("python", text).commands == ()


class TestVerdicts:
    """Scripts of a real checkout, run by the commands an agent types."""

    @pytest.mark.parametrize(
        ("path", "text", "command"),
        [
            (
                "scripts/ci.py",
                "import subprocess, sys\nsubprocess.run([sys.executable, '-m', 'pytest'])\n",
                "python scripts/ci.py",
            ),
            ("tools/check.py", "import pytest\npytest.main(['-q'])\n", "python3 -u tools/check.py"),
            (
                "scripts/ci.js",
                "require('child_process').execSync('npx jest')\n",
                "node scripts/ci.js",
            ),
            ("bin/verify", "#!/usr/bin/env ruby\nsystem('bundle exec rspec')\n", "bin/verify"),
            (
                "scripts/all.py",
                "import subprocess\nsubprocess.run(['make', 'check'])\n",
                "uv run scripts/all.py",
            ),
        ],
    )
    def test_a_script_that_starts_a_runner_is_a_run(self, tmp_path, path, text, command):
        """Named for no tests, such a script is a run because of what it starts."""
        write(tmp_path / path, text)
        (tmp_path / path).chmod(0o755)
        write(tmp_path / "Makefile", "check:\n\tpytest\n")
        assert runs(command, tmp_path) == [(SCRIPT_KIND, str(tmp_path))]

    def test_rails_bin_ci_runs_the_steps_of_config_ci(self, tmp_path):
        """Rails' ``bin/ci`` loads ``config/ci.rb``: its ``step`` commands are what it runs.

        A file it loads from outside the checkout is not read.
        """
        write(
            tmp_path / "bin" / "ci",
            '#!/usr/bin/env ruby\nrequire_relative "../config/boot"\n'
            'require "active_support/continuous_integration"\n'
            "CI = ActiveSupport::ContinuousIntegration\n"
            'require_relative "../config/ci.rb"\n',
        )
        write(
            tmp_path / "config" / "ci.rb",
            'CI.run do\n  step "Setup", "bin/setup --skip-server"\n'
            '  step "Style: Ruby", "bin/rubocop"\n  step("Tests: Rails", "bin/rails test")\nend\n',
        )
        assert runs("bin/ci", tmp_path) == [(SCRIPT_KIND, str(tmp_path))]
        write(tmp_path / "config" / "ci.rb", 'CI.run do\n  step "Style", "bin/rubocop"\nend\n')
        assert runs("bin/ci", tmp_path) == []
        checkout = tmp_path / "proj"
        write(checkout / "bin" / "ci", "#!/usr/bin/env ruby\nrequire_relative '../../ci.rb'\n")
        write(tmp_path / "ci.rb", 'CI.run do\n  step "Tests", "bin/rails test"\nend\n')
        assert runs("bin/ci", checkout) == []

    def test_a_script_that_starts_no_runner_is_no_run(self, tmp_path):
        """``scripts/lint.py`` running ruff and mypy is no run."""
        write(tmp_path / "scripts" / "lint.py", "import os\nos.system('ruff check .')\n")
        assert runs("python scripts/lint.py", tmp_path) == []

    def test_a_dispatching_script_runs_what_its_arguments_name(self, tmp_path):
        """``tools/dev.py build`` of a script with subcommands is no run; ``test`` is one."""
        write(
            tmp_path / "tools" / "dev.py",
            "import argparse, subprocess\nsub = argparse.ArgumentParser().add_subparsers()\n"
            "def test(): subprocess.run(['pytest'])\n"
            "def build(): subprocess.run(['python', '-m', 'build'])\n",
        )
        assert runs("python tools/dev.py build", tmp_path) == []
        assert runs("python tools/dev.py test", tmp_path) != []

    @pytest.mark.needs_root
    def test_a_script_another_user_owns_is_not_read(self, tmp_path):
        """A script owned by another user is never read: its name decides."""
        write(tmp_path / "scripts" / "ci.py", "import os\nos.system('pytest')\n")
        assert runs("python scripts/ci.py", tmp_path) != []
        os.chown(tmp_path / "scripts" / "ci.py", 65534, 65534)
        assert runs("python scripts/ci.py", tmp_path) == []
