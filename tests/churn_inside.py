"""Scan in a loop while hundreds of short-lived processes a second come and go, pids wrapping.

Run by ``tests/test_churn.py`` as the first process of a fresh pid namespace
(``unshare --pid --fork --mount-proc``), so that it may set where the next
pid is allocated (``ns_last_pid``) and make pids wrap every half second
without touching the rest of the machine. It forks a churner, scans for
``--seconds``, and prints one JSON object: how many scans, processes and
wraps there were, and every violation found:

- a scan that raised;
- a pid in two runs of one report (as authority or member);
- a dead process in a run: a member, or a run's authority, that was a zombie
  both just before and just after the scan (so it was dead throughout).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import sys
import time
import traceback

BASH = shutil.which("bash") or "/bin/bash"
RUNNER = "pytest"
"""The argv[0] the churner's runs carry, so that they are detected as pytest runs."""


def _zombies() -> set[tuple[int, int]]:
    """The (pid, start) of every zombie now."""
    found = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stream:
                text = stream.read()
        except OSError:
            continue
        fields = text[text.rfind(b")") + 2 :].split()
        if fields and fields[0] in (b"Z", b"X"):
            found.add((int(name), int(fields[19])))
    return found


def _wrap(pid_max: int) -> int:
    """Make the next pids the last ones before ``pid_max``, so that they wrap soon (1 if done)."""
    try:
        with open("/proc/sys/kernel/ns_last_pid", "w") as stream:
            stream.write(str(pid_max - 40))
    except OSError:
        return 0
    return 1


def _reap(pending: list[int]) -> None:
    for pid in pending:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    pending.clear()


def churn(stop_at: float, report_fd: int, *, runs: bool) -> None:
    """Fork short-lived processes until ``stop_at``; write counts to ``report_fd``.

    With ``runs``, every other child becomes a short test run (one of them
    with a member that dies first and stays a zombie under it); the others,
    and all children without ``runs``, live for a moment and are reaped late.
    """
    with open("/proc/sys/kernel/pid_max") as stream:
        pid_max = int(stream.read())
    forks = wraps = 0
    last_wrap = 0.0
    pending: list[int] = []
    while time.monotonic() < stop_at:
        now = time.monotonic()
        if runs and now - last_wrap > 0.5:
            wraps += _wrap(pid_max)
            last_wrap = now
        kind = forks % 4 if runs else 3
        child = os.fork()
        if child == 0:  # pragma: no cover - the child
            try:
                if kind == 0:  # a run of one process
                    os.execv("/bin/sleep", [RUNNER, "0.02"])
                elif kind == 1:  # a run whose member dies first and stays a zombie under it
                    script = f"sleep 0.01 & exec -a {RUNNER} sleep 0.05"
                    os.execv(BASH, [RUNNER, "-c", script])
            finally:
                os._exit(0)  # kinds 2 and 3: a process that lives for a moment
        forks += 1
        pending.append(child)
        if len(pending) >= 32:  # reap late, so that zombies stay around for a while
            _reap(pending)
    _reap(pending)
    os.write(report_fd, json.dumps({"forks": forks, "wraps": wraps}).encode() + b"\n")


def check(report, before: set, after: set) -> list[str]:
    """The violations in one report."""
    problems = []
    seen: dict[int, int] = {}
    dead = before & after
    for judged in report.runs:
        run = judged.run
        for pid in run.members:
            if pid in seen:
                problems.append(f"pid {pid} in runs {seen[pid]} and {run.pid}")
            seen[pid] = run.pid
        problems.extend(
            f"dead pid {identity.pid} in run {run.pid}"
            for identity in run.processes
            if (identity.pid, identity.start) in dead
        )
    return problems


def reap_orphans() -> None:
    """Reap what init (this process) inherits, but not the churner (waited for apart)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def main() -> int:
    """Churn and scan; print the summary."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--cwd", required=True)
    args = parser.parse_args()
    os.chdir(args.cwd)
    from runctx.scanning import scan, viewpoint
    from runctx.sources.procfs import ProcfsSource

    read_end, write_end = os.pipe()
    stop_at = time.monotonic() + args.seconds
    churners = []
    for runs in (True, False):
        churner = os.fork()
        if churner == 0:  # pragma: no cover - a churner
            os.close(read_end)
            try:
                churn(stop_at, write_end, runs=runs)
            finally:
                os._exit(0)
        churners.append(churner)
    os.close(write_end)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    here = viewpoint(cwd=args.cwd)
    source = ProcfsSource()
    scans = runs = 0
    problems: list[str] = []
    began = time.monotonic()
    while time.monotonic() < stop_at:
        before = _zombies()
        try:
            report = scan(here, source=source, self_pid=os.getpid())
        except Exception:  # noqa: BLE001 - every exception is the finding
            problems.append(traceback.format_exc())
            continue
        after = _zombies()
        scans += 1
        runs += len(report.runs)
        problems.extend(check(report, before, after))
    elapsed = time.monotonic() - began
    with os.fdopen(read_end, "rb") as pipe:
        counts = [json.loads(line) for line in pipe.read().splitlines()]
    for churner in churners:
        os.waitpid(churner, 0)
    reap_orphans()
    summary = {
        "scans": scans,
        "runs_seen": runs,
        "forks_per_second": sum(count["forks"] for count in counts) / elapsed,
        "wraps": sum(count["wraps"] for count in counts),
        "problems": problems[:20],
        "problem_count": len(problems),
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
