"""Scanning while hundreds of processes a second start and end, and pids wrap.

The churn and the scans run in a private pid namespace (``tests/churn_inside.py``),
where pids are made to wrap twice a second without touching the rest of the
machine; this needs root (CI runs as root) and fails, not skips, in CI without it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from proctools import make_checkout, require_root
from runfixtures import clean_env

HERE = Path(__file__).resolve().parent


def test_scans_under_churn_and_pid_wrap_stay_sound(shared_tmp):
    """No scan raises, no run holds a dead process, no pid is in two runs, pids wrapping."""
    require_root()
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.fail("unshare (util-linux) is needed for a private pid namespace")
    checkout = make_checkout(shared_tmp)
    done = subprocess.run(
        [
            unshare,
            "--pid",
            "--fork",
            "--mount-proc",
            sys.executable,
            str(HERE / "churn_inside.py"),
            "--seconds",
            "6",
            "--cwd",
            str(checkout),
        ],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["problem_count"] == 0, summary["problems"]
    assert summary["scans"] >= 10, summary
    assert summary["runs_seen"] > 0, summary
    assert summary["forks_per_second"] >= 100, summary
    assert summary["wraps"] >= 5, summary
