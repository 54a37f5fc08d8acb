"""tox and nox environments (``runners/tasks/environments.py``): a run unless they run no test.

``tox -e lint`` whose ``lint`` environment runs ruff is no run; ``tox -e py312``
running pytest is; what cannot be read stays a run, as the runner's name says.
"""

from __future__ import annotations

import pytest
from tasktools import runs, write

from runctx.runners.tasks.environments import named_environments

TOX_INI = """\
    [tox]
    env_list = py312, lint, docs

    [testenv]
    deps = pytest
    commands =
        tests: pytest {posargs:-n auto}
        mypy: mypy src
        python -m pytest {posargs}

    [testenv:lint]
    skip_install = true
    commands =
        ruff check .
        ruff format --check .

    [testenv:docs-{build,linkcheck}]
    commands = sphinx-build -W docs docs/_build

    [testenv:typing]
    commands = mypy src

    [testenv:unit]
    commands = {[testenv]commands}
"""


@pytest.fixture
def tox_project(tmp_path):
    """A checkout whose tox.ini has test, lint, docs and typing environments."""
    write(tmp_path / "tox.ini", TOX_INI)
    return tmp_path


class TestTox:
    """What the named tox environments run decides."""

    @pytest.mark.parametrize(
        "command",
        [
            "tox -e lint",
            "tox run -e lint",
            "python -m tox -e lint,typing",
            "uvx --with tox-uv tox run -e docs-build",
            "tox --env=docs-linkcheck",
            "tox -elint",
        ],
    )
    def test_environments_that_run_no_tests_are_no_run(self, tox_project, command):
        """Environments whose commands run linters, type checkers or docs builds run no test."""
        assert runs(command, tox_project) == []

    @pytest.mark.parametrize(
        "command",
        [
            "tox",
            "tox -e py312",
            "tox -e lint,py312",
            "tox -e 3.13-tests",
            "tox -e unit",
            "tox -e $TOXENV",
            "tox -e ${{ matrix.env }}",
            "tox -f lint",
            "tox -e ALL",
            "tox -e nowhere-defined",
        ],
    )
    def test_environments_that_run_tests_or_are_unknown_are_runs(self, tox_project, command):
        """An environment running pytest, or one that cannot be read, leaves the command a run."""
        assert [kind for kind, _ in runs(command, tox_project)] == ["tox"]

    def test_without_a_configuration_the_name_decides(self, tmp_path):
        """No tox.ini, setup.cfg or pyproject section: ``tox -e lint`` stays a run."""
        assert [kind for kind, _ in runs("tox -e lint", tmp_path)] == ["tox"]

    def test_pyproject_native_configuration(self, tmp_path):
        """``[tool.tox]`` with ``env_run_base`` and ``env.NAME`` tables is read."""
        write(
            tmp_path / "pyproject.toml",
            """\
            [tool.tox]
            env_list = ["py3.13", "style", "typing"]

            [tool.tox.env_run_base]
            commands = [["pytest", "-v", { replace = "posargs", extend = true }]]

            [tool.tox.env.style]
            commands = [["pre-commit", "run", "--all-files"]]

            [tool.tox.env.typing]
            commands = [["mypy"], ["pyright"]]
            """,
        )
        assert runs("tox run -e style,typing", tmp_path) == []
        assert [kind for kind, _ in runs("tox run -e py3.13", tmp_path)] == ["tox"]

    def test_tox_toml(self, tmp_path):
        """A ``tox.toml`` holds the native tables at its top level.

        An environment that sets no commands runs the base's.
        """
        write(
            tmp_path / "tox.toml",
            """\
            env_list = ["3.13", "type"]

            [env_run_base]
            commands = [["pytest", "-ra", { replace = "posargs", extend = true }]]

            [env.type]
            commands = [["mypy", { replace = "posargs", extend = true }]]

            [env.docs]
            commands = [["sphinx-build", "-W", "docs", "out"]]

            [env.path]
            commands_pre = [["python", "-m", "pip", "uninstall", "-y", "pkg"]]
            """,
        )
        assert runs("tox -e type --skip-pkg-install", tmp_path) == []
        assert runs("uv tool run --with tox-uv tox r -e docs", tmp_path) == []
        assert [kind for kind, _ in runs("tox -e path", tmp_path)] == ["tox"]
        assert [kind for kind, _ in runs("tox -e 3.13", tmp_path)] == ["tox"]

    def test_pyproject_legacy_ini(self, tmp_path):
        """``legacy_tox_ini`` is read as a tox.ini."""
        write(
            tmp_path / "pyproject.toml",
            '[tool.tox]\nlegacy_tox_ini = """\n[testenv]\ncommands = pytest\n'
            '[testenv:docs]\ncommands = sphinx-build docs out\n"""\n',
        )
        assert runs("tox -e docs", tmp_path) == []
        assert [kind for kind, _ in runs("tox -e py311", tmp_path)] == ["tox"]


NOXFILE = """\
    import nox

    @nox.session(python=["3.12", "3.13"])
    def tests(session):
        session.install(".[test]")
        session.run("pytest", *session.posargs)

    @nox.session(name="pep484")
    def mypy_check(session):
        session.run(
            "mypy", "src",
        )

    @nox.session
    def lint(session):
        files = ["src", "tests"]
        session.run("ruff", "check", *files)

    def _helper(session):
        session.run("pytest")

    @nox.session
    def coverage(session):
        _helper(session)

    @nox.session
    def dynamic(session):
        session.run(*session.posargs)

    def _types(session):
        session.run("mypy", "src")

    @nox.session
    def style(session):
        lint(session)
        _types(session)

    @nox.session
    def loop(session):
        loop(session)
"""


class TestNox:
    """What the named nox sessions run decides."""

    @pytest.mark.parametrize(
        "command",
        [
            "nox -s pep484",
            "nox -s lint pep484",
            "nox --session=lint",
            "nox -e lint",
            "nox -s style",
        ],
    )
    def test_sessions_that_run_no_tests_are_no_run(self, tmp_path, command):
        """Sessions whose ``session.run`` calls run linters run no test.

        ``style`` calls another session and a helper of the noxfile: their
        calls are its own.
        """
        write(tmp_path / "noxfile.py", NOXFILE)
        assert runs(command, tmp_path) == []

    @pytest.mark.parametrize(
        "command",
        [
            "nox",
            "nox -s tests",
            "nox -s lint tests",
            "nox -s coverage",
            "nox -s dynamic",
            "nox -t fast",
            "nox -s missing",
            "nox -s loop",
        ],
    )
    def test_sessions_that_run_tests_or_are_unknown_are_runs(self, tmp_path, command):
        """Pytest (through a helper too), a session calling itself, a tag: a run.

        So is a program made at run time.
        """
        write(tmp_path / "noxfile.py", NOXFILE)
        assert [kind for kind, _ in runs(command, tmp_path)] == ["nox"]

    def test_a_noxfile_that_does_not_parse_leaves_a_run(self, tmp_path):
        """A noxfile that is not python stays unread: the command is a run."""
        write(tmp_path / "noxfile.py", "def (:\n")
        assert [kind for kind, _ in runs("nox -s lint", tmp_path)] == ["nox"]


def test_named_environments():
    """The names read from the command line, and what makes them unknown."""
    assert named_environments("tox", ["tox", "-e", "a,b", "--", "-e", "x"]) == ("a", "b")
    assert named_environments("nox", ["nox", "-s", "a", "b", "-r"]) == ("a", "b")
    assert named_environments("tox", ["tox"]) is None
    assert named_environments("tox", ["tox", "-e", "$ENV"]) is None
    assert named_environments("nox", ["nox", "-k", "a", "-s", "b"]) is None
