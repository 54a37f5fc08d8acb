"""Real processes in other namespaces for the identity tests: unshare, bind mounts, setpriv.

Every helper starts real processes with util-linux (``unshare``, ``mount``):
a run in its own mount namespace with a bind mount only it sees, a command in
a child pid namespace that still sees this ``/proc``. They need root; in CI
(``CI`` set) a missing tool or privilege fails the test instead of skipping it.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

from proctools import PYTHON, Orphan, require_root, spawn_orphan, wait_for
from runfixtures import RUN_TESTS_SCRIPT, clean_env


def require_tools(*names: str) -> dict[str, str]:
    """Root and the named programs, by full path; fail in CI, skip elsewhere, when missing."""
    require_root()
    found = {name: shutil.which(name) for name in names}
    missing = [name for name, path in found.items() if path is None]
    if missing:
        msg = f"needs {', '.join(missing)} (util-linux) on PATH"
        if os.environ.get("CI"):
            raise AssertionError(msg)
        import pytest

        pytest.skip(msg)
    return {name: path for name, path in found.items() if path is not None}


def start_run_in_mount_namespace(source: Path, target: Path, ready: Path) -> Orphan:
    """An orphaned ``python run_tests.py`` in its own mount namespace, in ``target``.

    There ``source`` is bind-mounted over ``target`` (only that namespace sees
    the mount: propagation is private), and the run works in ``target``; the
    process is the one ``unshare`` started (``sh`` execs python), so its pid
    leads the run. ``ready`` (outside both) is touched once it runs.
    """
    tools = require_tools("unshare", "mount")
    (source / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
    shell = (
        f"{shlex.quote(tools['mount'])} --bind {shlex.quote(str(source))} "
        f"{shlex.quote(str(target))} && cd {shlex.quote(str(target))} && "
        f"exec {shlex.quote(PYTHON)} run_tests.py {shlex.quote(str(ready))}"
    )
    run = spawn_orphan(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", shell],
        target.parent,
        env=clean_env(),
        executable=tools["unshare"],
    )
    wait_for(ready.exists, what="the run in its own mount namespace to start")
    return run


def mount_namespace(pid: int) -> str:
    """The mount namespace of ``pid`` (``mnt:[INODE]``)."""
    return os.readlink(f"/proc/{pid}/ns/mnt")


def in_child_pid_namespace(
    argv: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` as pid 1 of a new pid namespace that still sees this ``/proc``.

    ``unshare --pid --fork`` without ``--mount-proc``: the command's own pids
    are those of its namespace, while ``/proc`` lists the parent's.
    """
    tools = require_tools("unshare")
    return subprocess.run(
        [tools["unshare"], "--pid", "--fork", *argv],
        cwd=cwd,
        env=env if env is not None else clean_env(),
        capture_output=True,
        encoding="utf-8",
        errors="replace",
        check=False,
        timeout=120,
    )
