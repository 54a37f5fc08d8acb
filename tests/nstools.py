"""Real processes in other namespaces for the identity tests: unshare and bind mounts.

Every helper starts real processes with util-linux (``unshare``, ``mount``)
through the run factory (the ``runs`` fixture), which reaps them by process
group: a run in its own mount namespace with a bind mount only it sees, a
command in a child pid namespace that still sees this ``/proc``. The tests
that use them are marked ``needs_root``; a missing tool skips them, except in
CI (``CI`` set), where it fails them.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from hooktools import hook_env
from proctools import PYTHON, Orphan
from runfactory import RUN_TESTS_SCRIPT, RunFactory, clean_env


def require_tools(*names: str) -> dict[str, str]:
    """The named programs, by full path; fail in CI, skip elsewhere, when one is missing."""
    found = {name: shutil.which(name) for name in names}
    missing = [name for name, path in found.items() if path is None]
    if missing:
        msg = f"needs {', '.join(missing)} (util-linux) on PATH"
        if os.environ.get("CI"):
            pytest.fail(msg, pytrace=False)
        pytest.skip(msg)
    return {name: path for name, path in found.items() if path is not None}


def start_run_in_mount_namespace(
    runs: RunFactory, source: Path, target: Path, ready: Path
) -> Orphan:
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
    return runs.orphan(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", shell],
        target.parent,
        env=clean_env(),
        executable=tools["unshare"],
        ready=ready,
    )


def mount_namespace(pid: int) -> str:
    """The mount namespace of ``pid`` (``mnt:[INODE]``), which psutil does not give.

    The kernel's own link, read whole: nothing is parsed.
    """
    return os.readlink(f"/proc/{pid}/ns/mnt")


def child_pid_namespace_argv(argv: list[str]) -> list[str]:
    """``argv`` as pid 1 of a new pid namespace that still sees this ``/proc``.

    ``unshare --pid --fork`` without ``--mount-proc``: the command's own pids
    are those of its namespace, while ``/proc`` lists the parent's. The
    command is the one child of ``unshare``.
    """
    return [require_tools("unshare")["unshare"], "--pid", "--fork", *argv]


def in_child_pid_namespace(
    runs: RunFactory, argv: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` to its end as pid 1 of a new pid namespace that still sees this ``/proc``.

    Started by the run factory in a process group of its own, so the
    namespace's processes are reaped with it whatever happens.
    """
    process = runs.child(
        child_pid_namespace_argv(argv),
        cwd=cwd,
        env=env if env is not None else clean_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        encoding="utf-8",
        errors="replace",
    )
    stdout, stderr = process.communicate(timeout=120)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def without_proc(*command: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """Run ``command`` in a private mount namespace where /proc is unmounted (needs root)."""
    tools = require_tools("unshare")
    script = 'umount -l /proc && exec "$@"'
    return subprocess.run(
        [tools["unshare"], "-m", "sh", "-c", script, "sh", *command],
        input=stdin,
        capture_output=True,
        text=True,
        env=hook_env(),
        timeout=60,
        check=False,
    )
