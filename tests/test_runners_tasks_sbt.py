"""sbt command aliases (``runners/tasks/sbt_aliases.py``): ``addCommandAlias`` in build.sbt."""

from __future__ import annotations

import pytest
from tasktools import runs, write

from runctx.runners.tasks.sbt_aliases import aliases_of

BUILD_SBT = """\
ThisBuild / scalaVersion := "3.4.2"

addCommandAlias("ci", ";scalafmtCheckAll;Test/compile;test")
addCommandAlias("fmt", "scalafmtAll; scalafmtSbt")
addCommandAlias("check", "ci")
addCommandAlias("cov", ";coverage;testOnly com.acme.*;coverageReport")
"""


@pytest.fixture
def project(tmp_path):
    """A build whose ci, check and cov aliases run tests and fmt does not."""
    write(tmp_path / "build.sbt", BUILD_SBT)
    return tmp_path


@pytest.mark.parametrize("command", ["sbt ci", "sbt check", "sbt clean cov", "sbtn ci"])
def test_an_alias_that_runs_tests_is_a_run(project, command):
    """``ci`` runs ``test``; ``check`` runs the ``ci`` alias; ``cov`` runs ``testOnly``."""
    assert runs(command, project) != [], command


@pytest.mark.parametrize("command", ["sbt fmt", "sbt compile", "sbt clean fmt", "sbt nosuch"])
def test_an_alias_that_runs_none_is_no_run(project, command):
    """A formatting alias, sbt's own commands, a name that is no alias."""
    assert runs(command, project) == [], command


def test_the_aliases_read_from_the_build():
    """Each alias's commands, split at their semicolons."""
    found = aliases_of(BUILD_SBT.encode())
    assert found["ci"] == ["scalafmtCheckAll", "Test/compile", "test"]
    assert found["fmt"] == ["scalafmtAll", "scalafmtSbt"]
