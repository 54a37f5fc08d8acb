"""Wrappers (``runners/wrappers.py``) seen through on real processes.

For each wrapper installed on this machine, a real orphaned process (started
by the run factory) runs a ``pytest`` (a holding script by that name, which
writes a file once up: the handshake) through it. Whether the wrapper
replaces itself with the command (``nice``, ``env``) or starts it as a child
(``timeout``, ``flock``, ``script``, ``strace``, ``gdb``), the scan finds one
run: its authoritative process is the one started, its kind pytest, and the
holding script is a member. Descendants a wrapper put in a session of their
own (``script``) are adopted by the factory, so that every process is reaped.
Wrappers not installed here are skipped. The argv forms of every wrapper are
in ``test_runners_table.py``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from proctools import make_checkout, wait_for
from require import require, unavailable
from runfactory import RUN_TESTS_SCRIPT, clean_env

from runctx.scanning import scan, viewpoint

# (the wrapper's program, its argv around COMMAND, which stands for the holder's argv)
WRAPPED = [
    ("timeout", ["timeout", "300", "COMMAND"]),
    ("nice", ["nice", "-n", "5", "COMMAND"]),
    ("ionice", ["ionice", "-c", "3", "COMMAND"]),
    ("env", ["env", "CI=1", "COMMAND"]),
    ("stdbuf", ["stdbuf", "-oL", "COMMAND"]),
    ("taskset", ["taskset", "-c", "0", "COMMAND"]),
    ("nohup", ["nohup", "COMMAND"]),
    ("setsid", ["setsid", "-w", "COMMAND"]),
    ("flock", ["flock", "LOCK", "COMMAND"]),
    ("flock", ["flock", "-w", "60", "LOCK", "-c", "STRING"]),
    ("script", ["script", "-q", "-c", "STRING", "/dev/null"]),
    ("find", ["find", "HOLDER", "-maxdepth", "0", "-exec", "COMMAND", ";"]),
    ("xargs", ["xargs", "-0", "COMMAND"]),
    ("strace", ["strace", "-f", "-o", "/dev/null", "COMMAND"]),
    ("gdb", ["gdb", "-q", "-batch", "-ex", "run", "--args", "PYTHON", "COMMAND"]),
    ("su", ["su", "root", "-c", "STRING"]),
    ("runuser", ["runuser", "-u", "root", "--", "COMMAND"]),
    ("perf", ["perf", "stat", "-o", "/dev/null", "COMMAND"]),
    ("valgrind", ["valgrind", "--tool=none", "-q", "PYTHON", "COMMAND"]),
    ("git", ["git", "bisect", "run", "COMMAND"]),
    ("parallel", ["parallel", "-j", "2", "COMMAND", ":::", "x"]),
    ("parallel", ["parallel", ":::", "STRING"]),
    ("fakeroot", ["fakeroot", "--", "COMMAND"]),
    # two ranks of the command, each in a process group of its own
    ("mpirun", ["mpirun", "--allow-run-as-root", "--oversubscribe", "-n", "2", "COMMAND"]),
]


@pytest.mark.parametrize(("tool", "template"), WRAPPED, ids=[" ".join(t) for _, t in WRAPPED])
def test_a_real_wrapper_is_the_run_of_what_it_runs(shared_tmp, runs, tool, template):
    """The process started through the wrapper is one pytest run, the holder a member."""
    require(tool)
    if tool in {"su", "runuser"} and os.geteuid() != 0:
        unavailable(f"{tool} needs root here")
    checkout = make_checkout(shared_tmp)
    holder = checkout / "bin" / "pytest"
    holder.parent.mkdir()
    holder.write_text(f"#!{sys.executable}\n{RUN_TESTS_SCRIPT}")
    holder.chmod(0o755)
    ready = checkout / "ready"
    argv = _filled(template, holder, ready, checkout)
    if template[:2] == ["git", "bisect"]:
        _bisecting(checkout)
    run = runs.orphan(argv, checkout, env=clean_env(), executable=shutil.which(argv[0]))
    wait_for(ready.exists, what=f"the holder to start under {tool}")
    tree = _tree(run.pid)
    for pid in tree - run.members():  # a wrapper may start its command in a session of its own
        runs.adopt(pid)
    try:
        report = scan(viewpoint(cwd=str(checkout)))
        found = [j for j in report.runs if set(j.run.members) & tree]
        assert [(j.run.pid, j.run.kind) for j in found] == [(run.pid, "pytest")], [
            (j.run.pid, j.run.kind, j.run.argv) for j in found
        ]
        assert set(found[0].run.members) == tree
    finally:
        if tool in _STOPS_A_DAEMON_AT_ITS_END:
            _end_through_its_command(run.pid, tree)


_STOPS_A_DAEMON_AT_ITS_END = frozenset({"fakeroot"})
"""Wrappers that start a daemon of their own session (fakeroot's ``faked``) and stop it
only when their command ends: killed with their group, they would leave it running."""


def _end_through_its_command(pid: int, tree: set[int]) -> None:
    """End the wrapper ``pid`` the way it cleans up: its command ends, then it stops its daemon."""
    for member in tree - {pid}:
        with contextlib.suppress(ProcessLookupError):
            os.kill(member, signal.SIGTERM)

    def ended() -> bool:
        try:
            return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return True

    wait_for(ended, what="the wrapper to stop its daemon and end")


def _bisecting(checkout: Path) -> None:
    """Put the checkout in the middle of a ``git bisect``, with two commits to bisect."""
    for message in ("good", "bad"):
        subprocess.run(
            ["git", "commit", "-q", "--allow-empty", "-m", message], cwd=checkout, check=True
        )
    subprocess.run(["git", "bisect", "start", "HEAD", "HEAD~1"], cwd=checkout, check=True)


def _filled(template: list[str], holder: Path, ready: Path, checkout: Path) -> list[str]:
    """The wrapper's argv with the holder's command (or its text) in place."""
    command = [str(holder), str(ready)]
    if template[0] == "find":  # find runs -exec's command on what it found: the holder
        start = template.index("-exec") + 1
        return [template[0], str(holder), *template[2:start], *command, ";"]
    words = {
        "STRING": [" ".join(command)],
        "LOCK": [str(checkout / "lock")],
        "PYTHON": [sys.executable],
        "COMMAND": command,
    }
    return [part for word in template for part in words.get(word, [word])]


def _tree(pid: int) -> set[int]:
    """``pid`` and its live descendants (psutil, the oracle)."""
    found = {pid}
    for child in psutil.Process(pid).children(recursive=True):
        with contextlib.suppress(psutil.NoSuchProcess):
            if child.status() not in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD):
                found.add(child.pid)
    return found
