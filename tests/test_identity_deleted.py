"""Runs whose working tree was removed: judged by what is still known of their directory."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from hooktools import claude_pre_tool_use, hook_env, reply, run_hook
from proctools import make_checkout

from runctx.identity import Verdict
from runctx.scanning import scan, viewpoint
from runctx.sources.psutil import PsutilSource

RUNCTX = [sys.executable, "-m", "runctx"]


def the_run(report, pid):
    """The judged run led by ``pid``; fails when there is none."""
    matches = [judged for judged in report.runs if judged.run.pid == pid]
    assert matches, f"no run led by pid {pid}"
    return matches[0]


def worktree_of(main, path):
    """A real ``git worktree`` of ``main`` at ``path``."""
    subprocess.run(["git", "-C", str(main), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(main), "commit", "-qm", "init"], check=True)
    subprocess.run(["git", "-C", str(main), "worktree", "add", "-q", str(path)], check=True)
    return path


def test_a_run_in_a_removed_worktree_is_foreign_to_every_checkout(shared_tmp, runs):
    """A leftover run whose worktree was removed is foreign to the main and every other checkout."""
    main = make_checkout(shared_tmp, "proj")
    other = make_checkout(shared_tmp / "elsewhere", "proj")
    worktree = worktree_of(main, shared_tmp / "proj-wt")
    (worktree / "sub").mkdir()
    run = runs.run_tests_script(worktree / "sub")
    subprocess.run(
        ["git", "-C", str(main), "worktree", "remove", "--force", str(worktree)], check=True
    )
    assert not worktree.exists()
    for here in (main, other):
        for source in (None, PsutilSource()):
            judged = the_run(scan(viewpoint(cwd=str(here)), source=source), run.pid)
            assert judged.judgement.verdict is Verdict.FOREIGN, judged.judgement.reasons
            assert judged.run.root == str(worktree)  # the removed directory on its path
            assert judged.run.root.deleted
            assert (
                f"root {worktree} (deleted) != {here}: removed, and not inside {here}"
                in judged.judgement.reasons
            )
    status = subprocess.run(
        [*RUNCTX, "status", "--json"], cwd=main, capture_output=True, check=True
    )
    entry = next(
        e for e in json.loads(status.stdout.decode(errors="replace"))["runs"] if e["pid"] == run.pid
    )
    assert entry["deleted"] is True
    assert entry["foreign"] is True
    assert entry["root"] == str(worktree)
    text = subprocess.run([*RUNCTX, "status"], cwd=main, capture_output=True, check=True)
    assert f"{worktree} (deleted)" in text.stdout.decode(errors="replace")


def test_the_hook_lets_a_run_start_next_to_a_removed_worktrees_leftover(shared_tmp, runs):
    """In the main checkout the leftover is contention, not a run of this checkout."""
    main = make_checkout(shared_tmp, "proj")
    worktree = worktree_of(main, shared_tmp / "proj-wt")
    run = runs.run_tests_script(worktree)
    shutil.rmtree(worktree)
    answer = reply(run_hook("claude", claude_pre_tool_use("pytest -x", main), env=hook_env()))
    output = answer["hookSpecificOutput"]
    assert "permissionDecision" not in output
    assert f"pid {run.pid}" in output["additionalContext"]
    assert "foreign" in output["additionalContext"]
    assert "removed, and not inside" in output["additionalContext"]


def test_a_directory_removed_inside_this_checkout_stays_unknown(shared_tmp, runs):
    """A run whose cwd was removed from inside this checkout may have been ours: unknown."""
    main = make_checkout(shared_tmp, "proj")
    nested = main / ".worktrees" / "wt" / "sub"
    nested.mkdir(parents=True)
    run = runs.run_tests_script(nested)
    shutil.rmtree(main / ".worktrees")
    judged = the_run(scan(viewpoint(cwd=str(main))), run.pid)
    assert judged.judgement.verdict is Verdict.UNKNOWN
    assert judged.run.root == str(main / ".worktrees")
    assert any("was removed from inside" in r for r in judged.judgement.reasons)
    elsewhere = make_checkout(shared_tmp / "elsewhere", "proj")
    assert the_run(scan(viewpoint(cwd=str(elsewhere))), run.pid).foreign
