"""Real processes in other namespaces for the identity tests: unshare and bind mounts.

Every helper starts real processes with util-linux (``unshare``, ``mount``)
through the run factory (the ``runs`` fixture), which reaps them by process
group: a run in its own mount namespace with a bind mount only it sees, a
command in a child pid namespace that still sees this ``/proc``, a hook asked
in a pid namespace of its own (with its own ``/proc``) next to the runs a
test starts there and nothing else. The tests that use them are marked
``needs_root``; a missing tool skips them, except in CI (``CI`` set), where
it fails them.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from collections.abc import Sequence
from pathlib import Path

from hooktools import hook_env
from proctools import PYTHON, Orphan
from require import require
from runfactory import RUN_TESTS_SCRIPT, SPIN_SCRIPT, RunFactory, clean_env, ready_dir


def require_tools(*names: str) -> dict[str, str]:
    """The named programs (util-linux), by full path: :func:`require.require` for each."""
    return {name: require(name) for name in names}


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


SANDBOX = r"""
import json, os, pathlib, signal, subprocess, sys, time
spec = json.loads(sys.argv[1])
children = []
try:
    for argv, cwd, ready in spec["runs"]:
        children.append(subprocess.Popen(
            argv, cwd=cwd, start_new_session=True, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, env=spec["env"]))  # the sandbox's stdout is its answer
    deadline = time.monotonic() + 60
    while not all(pathlib.Path(ready).exists() for _, _, ready in spec["runs"]):
        if time.monotonic() > deadline:
            raise SystemExit("the runs did not start")
        time.sleep(0.02)
    until = spec["until"].format(*(child.pid for child in children)) if spec["until"] else ""
    replies = []
    for _ in range(spec["tries"]):
        done = subprocess.run(spec["hook"], input=spec["payload"].encode(), capture_output=True,
                              env=spec["env"], cwd=spec["cwd"], timeout=60)
        replies.append({"code": done.returncode, "stdout": done.stdout.decode(),
                        "stderr": done.stderr.decode()})
        if not until or until in done.stdout.decode():
            break
    print(json.dumps({"pids": [child.pid for child in children], "replies": replies}))
finally:
    for child in children:
        os.killpg(child.pid, signal.SIGKILL)
"""
"""Pid 1 of the namespace: starts the runs, waits for each to say it is up, runs the command."""


def sandboxed_run(
    checkout: Path, *, spinning: bool = False, python: str = PYTHON
) -> tuple[list[str], Path, Path]:
    """A ``run_tests.py`` for :func:`in_own_pid_namespace`: (argv, cwd, ready file).

    It sleeps once up, or keeps a CPU busy with ``spinning``; ``python`` runs
    it (the suite's own by default, whose environment the hook's test command
    shares).
    """
    (checkout / "run_tests.py").write_text(SPIN_SCRIPT if spinning else RUN_TESTS_SCRIPT)
    ready = ready_dir(checkout) / ("spinning" if spinning else "sleeping")
    return [python, "run_tests.py", str(ready)], checkout, ready


def in_own_pid_namespace(  # noqa: PLR0913 - each is a knob of the sandbox
    runs: RunFactory,
    started: Sequence[tuple[list[str], Path, Path]],
    command: list[str],
    stdin: str,
    *,
    cwd: Path,
    until: str = "",
    tries: int = 1,
    env: dict[str, str] | None = None,
) -> dict[str, list]:
    """Start ``started``, then run ``command`` in a pid namespace of their own.

    ``started`` are (argv, cwd, ready file); the namespace (``unshare --pid
    --fork --mount-proc``) holds nothing but them, the sandbox that starts
    them and ``command`` (given ``stdin``): other runs on a shared box never
    decide what it finds. Everything in it dies with the sandbox, which the
    run factory reaps. ``command`` runs up to ``tries`` times, until its
    output holds ``until`` (formatted with the runs' pids); ``env`` is added
    to the environment of the runs and of ``command``. Returns the pids
    (as the namespace numbers them) and each run's ``code``, ``stdout`` and
    ``stderr``.
    """
    tools = require_tools("unshare")
    env = {k: v for k, v in {**clean_env(), **(env or {})}.items() if not k.startswith("RUNCTX_")}
    spec = {
        "runs": [[list(argv), str(where), str(ready)] for argv, where, ready in started],
        "hook": command,
        "payload": stdin,
        "cwd": str(cwd),
        "env": env,
        "until": until,
        "tries": tries,
    }
    argv = [tools["unshare"], "--pid", "--fork", "--mount-proc", PYTHON, "-c", SANDBOX]
    process = runs.child(
        [*argv, json.dumps(spec)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        encoding="utf-8",
        errors="replace",
    )
    stdout, stderr = process.communicate(timeout=600)
    assert process.returncode == 0, stderr
    found: dict[str, list] = json.loads(stdout)
    return found


def hook_in_own_pid_namespace(  # noqa: PLR0913 - each is a knob of the sandbox
    runs: RunFactory,
    started: Sequence[tuple[list[str], Path, Path]],
    payload: dict[str, object],
    *,
    cwd: Path,
    until: str = "",
    tries: int = 1,
) -> dict[str, list]:
    """Ask ``runctx hook claude`` with ``payload`` next to ``started`` and nothing else."""
    command = [PYTHON, "-m", "runctx", "hook", "claude"]
    return in_own_pid_namespace(
        runs, started, command, json.dumps(payload), cwd=cwd, until=until, tries=tries
    )
