"""Runners seen live: real tools started in real checkouts, read back from /proc.

Each test starts the real tool where it exists on this machine (node, npm,
cargo, make...), orphaned so that it does not fold into the suite's own run,
and checks what a scan and the hook make of it. Where a tool cannot be had the
test skips.
"""

from __future__ import annotations

from pathlib import Path

from hooktools import claude_pre_tool_use, reply, run_hook
from livetools import start_npm_test
from proctools import make_checkout

from runctx.runners import BUILTIN_PATTERNS
from runctx.runners.comms import argv_filter
from runctx.scanning import scan, viewpoint


def _runs_with(report, pids):
    """The judged runs that hold any of ``pids`` as a member."""
    return [judged for judged in report.runs if set(judged.run.members) & set(pids)]


def test_npm_test_running_node_test_is_one_run_with_its_node_children(shared_tmp):
    """A live ``npm test`` running ``node --test``: one run, npm on top, node as members."""
    checkout = make_checkout(shared_tmp)
    run = start_npm_test(checkout)
    try:
        group = run.members()
        report = scan(viewpoint(cwd=str(checkout)))
        runs = _runs_with(report, group)
        assert len(runs) == 1, [(j.run.pid, j.run.kind, j.run.argv) for j in runs]
        found = runs[0].run
        assert found.pid == run.pid
        assert found.kind == "npm-test"
        assert set(found.members) == group
        assert len(group) >= 4  # npm, sh -c, node --test, one node per test file
        comm = Path(f"/proc/{run.pid}/comm").read_text().strip()
        assert comm == "npm test"  # the title npm gives itself is its comm too
        assert argv_filter(BUILTIN_PATTERNS)(comm)
        assert not runs[0].foreign
        assert found.root == str(checkout)
    finally:
        run.kill()


def test_a_second_npm_test_is_denied_here_and_noted_as_foreign_elsewhere(shared_tmp):
    """The hook denies ``npm test`` beside a live one of the checkout; elsewhere it notes it."""
    busy = make_checkout(shared_tmp / "a")
    idle = make_checkout(shared_tmp / "b")
    run = start_npm_test(busy)
    try:
        here = reply(run_hook("claude", claude_pre_tool_use("npm test", busy)))
        output = here["hookSpecificOutput"]
        assert output["permissionDecision"] == "deny"
        assert f"pid {run.pid} (npm-test" in output["permissionDecisionReason"]
        there = reply(run_hook("claude", claude_pre_tool_use("npm test", idle)))
        output = there["hookSpecificOutput"]
        assert "permissionDecision" not in output
        assert f"pid {run.pid} (npm-test" in output["additionalContext"]
        assert "foreign" in output["additionalContext"]
    finally:
        run.kill()
