"""The scan's assembly: each run's environment, and who shares it, on real processes."""

from __future__ import annotations

import pytest
from envtools import live_run, make_venv, shared_worktrees

from runctx.environment import Environment
from runctx.scanning import scan, viewpoint


@pytest.fixture(scope="module")
def worktrees(tmp_path_factory):
    """Worktrees ``a`` and ``b`` of one repository on one venv."""
    return shared_worktrees(tmp_path_factory.mktemp("scanning-envs"))


def runs_by_pid(directory, *pids):
    """The runs led by ``pids``, from a real scan judged from ``directory``."""
    report = scan(viewpoint(cwd=str(directory)))
    return {j.run.pid: j.run for j in report.runs if j.run.pid in pids}


def test_two_checkouts_on_one_environment_name_each_other(worktrees, runs):
    """Runs in ``a`` and ``b`` on the venv: each one's ``shares_environment_with`` is the other."""
    in_a = live_run(runs, worktrees.a, worktrees.venv)
    in_b = live_run(runs, worktrees.b, worktrees.venv)
    found = runs_by_pid(worktrees.a, in_a.pid, in_b.pid)
    assert isinstance(found[in_a.pid].environment, Environment)
    assert found[in_a.pid].shares_environment_with == (in_b.pid,)
    assert found[in_b.pid].shares_environment_with == (in_a.pid,)


def test_two_runs_of_one_checkout_do_not_share_an_environment_with_each_other(worktrees, runs):
    """Two runs of ``a`` on the venv share a checkout (another ground): no environment flag."""
    first = live_run(runs, worktrees.a, worktrees.venv)
    second = live_run(runs, worktrees.a, worktrees.venv)
    found = runs_by_pid(worktrees.a, first.pid, second.pid)
    assert found[first.pid].shares_environment_with == ()
    assert found[second.pid].shares_environment_with == ()


def test_runs_on_environments_of_their_own_share_nothing(worktrees, runs, tmp_path):
    """``a`` on the venv, ``b`` on a venv of its own: nothing shared."""
    own = make_venv(tmp_path / "own")
    in_a = live_run(runs, worktrees.a, worktrees.venv)
    in_b = live_run(runs, worktrees.b, own)
    found = runs_by_pid(worktrees.b, in_a.pid, in_b.pid)
    assert found[in_a.pid].shares_environment_with == ()
    assert found[in_b.pid].shares_environment_with == ()
    assert found[in_b.pid].environment.prefix == str(own)
