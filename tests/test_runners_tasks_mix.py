"""Mix aliases (``runners/tasks/mix_aliases.py``): what ``mix NAME`` runs when NAME is an alias."""

from __future__ import annotations

import pytest
from tasktools import runs, write

from runctx.runners.tasks.mix_aliases import aliases_of

MIX_EXS = """\
defmodule Shop.MixProject do
  use Mix.Project

  def project do
    [app: :shop, version: "0.1.0", aliases: aliases(), deps: deps()]
  end

  defp deps, do: [{:phoenix, "~> 1.7"}]

  defp aliases do
    [
      setup: ["deps.get", "ecto.setup"],
      "ecto.setup": ["ecto.create", "ecto.migrate", "run priv/repo/seeds.exs"],
      ci: ["format --check-formatted", "credo --strict", "test --warnings-as-errors"],
      check: ["ci"],
      "assets.deploy": ["esbuild default --minify", "phx.digest"],
      quality: &quality/1
    ]
  end

  defp quality(_), do: Mix.shell().cmd("mix test")
end
"""


@pytest.fixture
def project(tmp_path):
    """A Phoenix-like project whose aliases run tests (ci, check) or not (setup)."""
    write(tmp_path / "mix.exs", MIX_EXS)
    return tmp_path


@pytest.mark.parametrize("command", ["mix ci", "MIX_ENV=test mix ci", "mix check"])
def test_an_alias_that_runs_the_tests_is_a_run(project, command):
    """``ci`` runs ``mix test``; ``check`` runs the ``ci`` alias."""
    assert runs(command, project) != [], command


@pytest.mark.parametrize(
    "command", ["mix setup", "mix assets.deploy", "mix quality", "mix compile", "mix nosuch"]
)
def test_an_alias_that_runs_none_is_no_run(project, command):
    """Setup and asset aliases, a function alias runctx does not read, mix's own tasks."""
    assert runs(command, project) == [], command


def test_the_aliases_read_from_the_keyword_list():
    """Names plain and quoted, each with its task lines; a function alias has none."""
    found = aliases_of(MIX_EXS.encode())
    assert found["ci"][0] == "format --check-formatted"
    assert found["ci"][-1] == "test --warnings-as-errors"
    assert found["ecto.setup"][-1] == "run priv/repo/seeds.exs"
    assert found["quality"] == []
    assert "deps" not in found


def test_an_escaped_quote_does_not_end_a_task_line():
    """A task line holding an escaped quote and a comma is one line; the list goes on."""
    text = b'defp aliases do\n  [ci: ["cmd echo \\"a, b\\"", "test"], x: ["y"]]\nend\n'
    found = aliases_of(text)
    assert found["ci"] == ['cmd echo \\"a, b\\"', "test"]
    assert found["x"] == ["y"]


def test_ex_checks_check_runs_its_test_tools(tmp_path):
    """ex_check's ``mix check`` runs ``mix test`` (a ``test`` directory) and assets' ``npm test``.

    Each unless ``.check.exs`` turns it off; ``--only``/``--except`` are not
    read; without ex_check, or with ``check`` an alias, the alias decides.
    """
    exs = MIX_EXS.replace('[{:phoenix, "~> 1.7"}]', '[{:ex_check, "~> 0.16", only: :dev}]')
    write(tmp_path / "mix.exs", exs.replace('check: ["ci"],\n', ""))
    assert runs("mix check", tmp_path) == []  # no test directory: ex_unit is skipped
    write(tmp_path / "test" / "test_helper.exs", "ExUnit.start()\n")
    assert runs("mix check", tmp_path) != []
    assert runs("mix check --retry", tmp_path) != []
    assert runs("mix check --only credo", tmp_path) == []
    assert runs("mix check -x ex_unit", tmp_path) == []
    write(tmp_path / ".check.exs", "[tools: [{:dialyzer, false}, {:ex_unit, false}]]\n")
    assert runs("mix check", tmp_path) == []
    write(tmp_path / "assets" / "package.json", '{"scripts": {"test": "jest"}}')
    assert runs("mix check", tmp_path) != []  # npm_test
    write(tmp_path / ".check.exs", "[tools: [{:ex_unit, enabled: false}, {:npm_test, false}]]\n")
    assert runs("mix check", tmp_path) == []
    write(tmp_path / "mix.exs", MIX_EXS.replace('check: ["ci"],\n', ""))
    (tmp_path / ".check.exs").unlink()
    assert runs("mix check", tmp_path) == []  # no ex_check: no such task known
    write(tmp_path / "mix.exs", exs.replace('check: ["ci"]', 'check: ["format"]'))
    assert runs("mix check", tmp_path) == []  # the project's own alias decides
