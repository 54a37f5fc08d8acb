"""``make stress``: runctx on a loaded, hostile box, measured in one run.

Where ``make bench`` measures a quiet box, this loads it the way a shared
machine is loaded, and keeps each shape that once made runctx slow alive in
turn, then measures what an agent and a person would see:

- **the hook's decision** (``runctx hook claude``) on a test command next to a
  live run of the same checkout: refused (as it must be), failed open
  (``runctx: hook failed open`` on stderr) or let through, out of N calls;
  its wall and CPU time (median and p99);
- **``runctx status --json``**: its wall and CPU time and peak RSS, against
  ``ps -eo pid,ppid,uid,args`` measured in turns with it, in the same moment;
  and the wall time of ``runctx status --timeout 2``, which must return in
  about that whatever the box holds.

The box is loaded by CPU burners to a chosen load per CPU and a storm of
runner-titled processes (``npm test``) of another user (``nobody``) in many
checkouts. Each shape is then added alone, measured, and removed:

- ``chain``: a deep chain of processes titled ``npm exec`` over one runner,
  of another user; ``ownchain``: the same, of the harness's own user, in
  another checkout (the hook cannot set it aside by its owner);
- ``mounts``: many mounts in another mount namespace (``unshare -m``), with
  runner-named processes of another user working in them;
- ``cmdlines``: runner processes with command lines of megabytes;
- ``deepdirs``: runner-named processes of another user, each in its own
  directory hundreds of levels deep (each walk up climbs them all);
- ``makefile``: a small Makefile of variables that expand into each other,
  read by the hook for ``make ci`` (the command is ``make ci && pytest``);
- ``bigmakefile``: the same, hundreds of KB of it;
- ``pyproject``: a huge ``pyproject.toml`` in the checkout itself.

``--done-when`` runs the issue's figures (``--full``: 200 hook calls a row,
10 burners on 2 CPUs, 4,000 processes, a 6,000-deep chain...) and prints
each figure beside its target, row by row as measured and in the table.
``--hold [SECONDS]`` measures nothing: it keeps 4 burners and a storm of
2,000 processes of another user alive until interrupted (or for SECONDS),
so that the test suite can be run beside it.

Needs root (to start processes as another user and to mount) and a C
compiler (``benchmarks/chain.c`` makes the processes, a few pages each); says
so and exits non-zero without them. Every process it starts is orphaned
(as another user's work is: under ``make`` a child would fold into the run
of ``make stress`` itself), leads its own process group and is killed by
that group (never by name), also on Ctrl-C; what it forks dies with it
(``PR_SET_PDEATHSIG``). Nothing here asserts a
time: it prints a table, and with ``--write`` publishes it to
``docs/performance.md``.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import platform
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.run import Launcher, build, claude_payload, clean_env

NOBODY = 65534
RUNCTX = str(Path(sys.executable).parent / "runctx")
TEST_COMMAND = "python -m pytest -q tests"
MARKER = "<!-- stress results -->"
END_MARKER = "<!-- /stress results -->"
HOOK_P99 = 2.0
SHAPE_CPU = 0.2
STATUS_CPU = 1.0
STATUS_MB = 200
SHAPES = (
    "chain",
    "ownchain",
    "mounts",
    "cmdlines",
    "deepdirs",
    "makefile",
    "bigmakefile",
    "pyproject",
)
STATUS_TIMEOUT = 2.0
TIMEOUT_SLACK = 0.5
"""How far past ``--timeout`` "about" reaches: the interpreter's start, the words printed."""
FULL_SIZES = {
    "calls": 200,
    "load_per_cpu": 5.0,
    "storm": 4000,
    "chain": 6000,
    "mounts": 7000,
    "mount_runners": 200,
    "cmdlines": 60,
    "cmdline_mb": 6.0,
    "deep_dirs": 1000,
    "deep_levels": 500,
    "makefile_kb": 7,
    "big_makefile_kb": 240,
    "pyproject_mb": 60,
}
"""The sizes the issue that asked for this harness measured (``--full``)."""
DONE_WHEN_SETTLE = 180.0
"""Seconds ``--done-when`` waits at most for the load average to reach the burners."""
HOLD_BURNERS = 4
HOLD_STORM = 2000
"""What ``--hold`` keeps alive unless told otherwise: the load the suite must pass beside."""

MOUNT_SCRIPT = r"""
import ctypes, os, sys
base, binary = sys.argv[1], sys.argv[4]
count, runners, uid = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[5])
libc = ctypes.CDLL(None, use_errno=True)
for i in range(count):
    path = os.path.join(base, f"m{i}")
    os.mkdir(path)
    if libc.mount(b"none", path.encode(), b"tmpfs", 0, b"size=16k,mode=0755") != 0:
        sys.exit(f"mount {path}: errno {ctypes.get_errno()}")
for i in range(runners):
    if os.fork() == 0:
        os.chdir(os.path.join(base, f"m{i % count}"))
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
        os.execve(binary, ["pytest", "-q", f"t{i}"], {"RUNCTX_CHAIN_MODE": "idle"})
open(sys.argv[6], "w").close()
while True:
    os.wait()
"""


def spawn_orphan(  # noqa: PLR0913 - each is how one process differs
    argv: Sequence[str],
    executable: str,
    *,
    cwd: Path,
    env: Mapping[str, str],
    uid: int | None = None,
    stack: bool = False,
) -> int:
    """Start ``argv`` orphaned (a double fork), in a session and group of its own: its pid.

    Orphaned as another user's work is: a child of the harness would fold into
    the harness's own run when the harness runs under a runner (``make stress``),
    and the live run next to which the hook is asked would be a member of it.
    ``chain.c`` is told (``RUNCTX_CHAIN_ORPHAN``) not to die with the middle process.
    """
    environment = {**env, "RUNCTX_CHAIN_ORPHAN": "1"}
    read_end, write_end = os.pipe()
    middle = os.fork()
    if middle == 0:  # the middle process: forks the orphan, says its pid, exits
        try:
            os.close(read_end)
            orphan = os.fork()
            if orphan == 0:
                os.close(write_end)
                os.setsid()
                if stack:  # the kernel allows an argv of up to a quarter of the stack
                    resource.setrlimit(resource.RLIMIT_STACK, (256 << 20, resource.RLIM_INFINITY))
                os.chdir(cwd)
                if uid is not None:
                    os.setgroups([])
                    os.setgid(uid)
                    os.setuid(uid)
                devnull = os.open(os.devnull, os.O_RDWR)
                os.dup2(devnull, 0)
                os.dup2(devnull, 1)
                os.execve(executable, list(argv), environment)  # noqa: S606 - argv as given
            os.write(write_end, str(orphan).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    os.waitpid(middle, 0)
    with os.fdopen(read_end, "rb") as pipe:
        return int(pipe.read() or b"0")


def _alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()


class Box:
    """The processes and files this run made, each removed by its own group or path."""

    def __init__(self, binary: Path, top: Path) -> None:
        """Start nothing yet; ``binary`` is the built ``chain.c``, ``top`` a scratch directory."""
        self.binary = binary
        self.top = top
        self.groups: list[int] = []
        self.burners: list[int] = []
        """The CPU burners' groups (also in ``groups``)."""

    def start(  # noqa: PLR0913 - each is how one process differs
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        mode: str | None = "idle",
        uid: int | None = None,
        env: dict[str, str] | None = None,
        stack: bool = False,
    ) -> int:
        """Start ``argv`` (``chain.c`` in ``mode``) orphaned, leading its own group: its pid."""
        environment = {"RUNCTX_CHAIN_MODE": mode} if mode else {}
        environment.update(env or {})
        pid = spawn_orphan(argv, str(self.binary), cwd=cwd, env=environment, uid=uid, stack=stack)
        self.groups.append(pid)
        return pid

    @contextlib.contextmanager
    def burners_paused(self) -> Iterator[None]:
        """The burners stopped (SIGSTOP to their groups) while a shape is built."""
        for pgid in self.burners:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGSTOP)
        try:
            yield
        finally:
            for pgid in self.burners:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pgid, signal.SIGCONT)

    def stop(self, groups: Sequence[int] | None = None) -> None:
        """Kill ``groups`` (default: all) by process group, and reap what is ours."""
        for pgid in list(groups if groups is not None else self.groups):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pgid, 0)
            self.groups.remove(pgid)
            if pgid in self.burners:
                self.burners.remove(pgid)

    def storm(self, count: int, dirs: Sequence[Path], uid: int, title: str) -> int:
        """``count`` idle processes titled ``title`` of ``uid``, in ``dirs`` in turn: one group.

        Forked by one ``chain.c`` process (a fork from this interpreter would take
        minutes on a saturated box); they die with it. Its pid (their group).
        """
        ready = self.top / f"storm-{len(self.groups)}"
        pid = self.start(
            ["storm", str(count), "0", str(uid), title, str(ready), *map(str, dirs)],
            cwd=self.top,
            mode="storm",
        )
        while not ready.exists():
            if not _alive(pid):
                msg = "make stress: the storm could not be started"
                raise SystemExit(msg)
            time.sleep(0.1)
        return pid

    def checkout(self, name: str, uid: int | None = None) -> Path:
        """A directory with a ``.git``, owned by ``uid`` when given."""
        path = self.top / name
        (path / ".git").mkdir(parents=True)
        (path / "tests").mkdir()
        if uid is not None:
            for item in (path, path / ".git", path / "tests"):
                os.chown(item, uid, uid)
        return path


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def hook_calls(checkout: Path, command: str, calls: int) -> dict[str, object]:
    """``calls`` hook answers to ``command`` in ``checkout``: decisions, wall and CPU times."""
    payload = claude_payload(command, str(checkout))
    env = clean_env()
    counts = {"refused": 0, "failed open": 0, "let through": 0}
    walls: list[float] = []
    cpus: list[float] = []
    reasons: list[str] = []
    for _ in range(calls):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        done = subprocess.run(
            [RUNCTX, "hook", "claude"], input=payload, capture_output=True, env=env, check=False
        )
        walls.append(time.perf_counter() - began)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        decision = _decision(done.stdout)
        if b"failed open" in done.stderr:
            counts["failed open"] += 1
            reasons.append(done.stderr.decode(errors="replace").strip()[:160])
        elif decision == "deny":
            counts["refused"] += 1
        else:
            counts["let through"] += 1
    return {"counts": counts, "walls": walls, "cpus": cpus, "reasons": reasons}


def _decision(stdout: bytes) -> str | None:
    try:
        reply = json.loads(stdout or b"{}")
    except ValueError:
        return None
    specific = reply.get("hookSpecificOutput", {}) if isinstance(reply, dict) else {}
    return specific.get("permissionDecision") if isinstance(specific, dict) else None


def status_against_ps(launcher: Launcher, rounds: int) -> dict[str, tuple[float, float, float]]:
    """Median (wall s, CPU s) and peak RSS (MB) of ``status --json`` and ``ps``, in turns."""
    env = clean_env()
    commands = {
        "status": [RUNCTX, "status", "--json"],
        "ps": ["ps", "-eo", "pid,ppid,uid,args"],
    }
    found: dict[str, list[tuple[float, int, float]]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, argv in commands.items():
            found[name].append(launcher.run(argv, None, env))
    return {
        name: (
            statistics.median(w for w, _r, _c in runs),
            statistics.median(c for _w, _r, c in runs),
            max(r for _w, r, _c in runs) * 1024 / 1e6,  # KiB to MB (the target's unit)
        )
        for name, runs in found.items()
    }


def status_with_timeout(rounds: int) -> float:
    """The longest wall time of ``runctx status --timeout 2`` over ``rounds`` runs."""
    env = clean_env()
    longest = 0.0
    for _ in range(rounds):
        began = time.perf_counter()
        subprocess.run(
            [RUNCTX, "status", "--timeout", f"{STATUS_TIMEOUT:g}"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            check=False,
        )
        longest = max(longest, time.perf_counter() - began)
    return longest


def _count_processes(uid: int | None = None) -> int:
    """The processes listed now (of ``uid`` alone when given: other work comes and goes)."""
    found = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            if uid is None:
                found += 1
                continue
            with contextlib.suppress(OSError):
                found += os.stat(f"/proc/{name}").st_uid == uid
    return found


# ----------------------------------------------------------------------------- the shapes


@contextlib.contextmanager
def chain_shape(box: Box, depth: int, *, own: bool = False) -> Iterator[str]:
    """``depth`` processes titled ``npm exec``, each the parent of the next, over one runner.

    Of another user (``nobody``), or with ``own`` of the harness's own user in
    another checkout: a chain the hook's first pass cannot set aside by its owner.
    """
    uid = None if own else NOBODY
    where = box.checkout("ownchain" if own else "chain", uid)
    pid = box.start(
        ["npm exec", "pytest", "-q", "deep"],
        cwd=where,
        mode=None,
        uid=uid,
        env={"RUNCTX_CHAIN_DEPTH": str(depth), "RUNCTX_CHAIN_TITLE": "npm exec"},
    )
    owner = uid if uid is not None else os.geteuid()
    deadline = time.monotonic() + 600
    while (reached := len(_group_members(pid))) < depth + 1:
        if time.monotonic() > deadline or not _alive(pid):
            break
        time.sleep(0.5)
    short = f" (of {depth + 1} asked)" if reached < depth + 1 else ""
    whose = f"uid {owner}, another checkout" if own else f"uid {owner}"
    try:
        yield f"{reached - 1}-deep npm exec chain over pytest{short} ({whose})"
    finally:
        box.stop([pid])


def _group_members(pgid: int) -> list[int]:
    """The processes of process group ``pgid`` now."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                stat = Path(f"/proc/{name}/stat").read_text()
                if int(stat.rpartition(")")[2].split()[2]) == pgid:
                    found.append(int(name))
    return found


@contextlib.contextmanager
def mounts_shape(box: Box, mounts: int, runners: int) -> Iterator[str]:
    """``mounts`` tmpfs mounts in a new mount namespace and ``runners`` pytest processes in them."""
    base = box.top / "mounts"
    base.mkdir()
    unshare = shutil.which("unshare")
    if unshare is None:
        msg = "make stress: the mounts shape needs unshare (util-linux)"
        raise SystemExit(msg)
    script = box.top / "mounts.py"
    script.write_text(MOUNT_SCRIPT)
    ready = box.top / "mounts-ready"
    argv = [unshare, "-m", "--propagation", "private", sys.executable, str(script)]
    argv += [str(base), str(mounts), str(runners), str(box.binary), str(NOBODY), str(ready)]
    pid = spawn_orphan(argv, unshare, cwd=box.top, env=dict(os.environ))
    box.groups.append(pid)
    try:
        while not ready.exists():
            if not _alive(pid):
                msg = "make stress: the mount namespace could not be set up"
                raise SystemExit(msg)
            time.sleep(0.1)
        yield f"{mounts} mounts in another mount namespace, {runners} pytest processes there"
    finally:
        box.stop([pid])


@contextlib.contextmanager
def cmdlines_shape(box: Box, count: int, megabytes: float) -> Iterator[str]:
    """``count`` pytest processes, each with a command line of ``megabytes`` MB."""
    where = box.checkout("cmdlines", NOBODY)
    word = "x" * (100 * 1024)
    words = [word] * max(1, int(megabytes * 1024 * 1024) // len(word))
    started = [
        box.start(["pytest", *words], cwd=where, uid=NOBODY, stack=True) for _ in range(count)
    ]
    try:
        yield f"{count} pytest processes with {megabytes:g} MB command lines (uid {NOBODY})"
    finally:
        box.stop(started)


@contextlib.contextmanager
def deepdirs_shape(box: Box, count: int, levels: int) -> Iterator[str]:
    """``count`` ``npm test`` of another uid, each in its own directory ``levels`` deep.

    Anyone may make such directories: each run's checkout is a climb of every
    level, so a scan's climbs for other users' processes are bounded in all.
    """
    deepest = box.top / "deep"
    for _ in range(levels):
        deepest /= "d"
    leaves = [deepest / str(n) for n in range(count)]
    for leaf in leaves:
        leaf.mkdir(parents=True)
    relative = [leaf.relative_to(box.top) for leaf in leaves]  # the storm's argv stays small
    pid = box.storm(count, relative, NOBODY, "npm test")
    try:
        yield f"{count} `npm test` of uid {NOBODY}, each in its own directory {levels} deep"
    finally:
        box.stop([pid])


def fanning_makefile(size: int) -> str:
    """A makefile of about ``size`` bytes: variables of 12 references, 8 deep, on every line."""
    lines = ["V0 = pytest"]
    lines += [f"V{n} = " + " ".join([f"$(V{n - 1})"] * 12) for n in range(1, 9)]
    lines.append("ci:")
    text = "\n".join(lines)
    number = 0
    while len(text) < size:
        text += f"\n\t$(V8) {number}"
        number += 1
    return text + "\n"


@contextlib.contextmanager
def makefile_shape(checkout: Path, size: int) -> Iterator[str]:
    """A Makefile of ``size`` bytes in the checkout whose variables expand into each other."""
    path = checkout / "Makefile"
    path.write_text(fanning_makefile(size))
    try:
        yield f"a {round(size / 1024)} KB self-expanding Makefile, read for `make ci`"
    finally:
        path.unlink()


@contextlib.contextmanager
def pyproject_shape(checkout: Path, megabytes: int) -> Iterator[str]:
    """A ``pyproject.toml`` of ``megabytes`` MiB in the checkout, naming runctx on every line."""
    path = checkout / "pyproject.toml"
    line = b'  "runctx-plugin >= 1.0",\n'
    with path.open("wb") as stream:
        stream.write(b'[project]\nname = "p"\ndependencies = [\n')
        block = line * (1 << 14)
        while stream.tell() < megabytes << 20:
            stream.write(block)
        stream.write(b"]\n")
    try:
        yield f"a {megabytes} MiB pyproject.toml in the checkout"
    finally:
        path.unlink()


# ----------------------------------------------------------------------------- the run


def _measure(  # noqa: PLR0913, PLR0917 - one row's facts
    name: str,
    what: str,
    checkout: Path,
    command: str,
    args: argparse.Namespace,
    launcher: Launcher,
    before: Sequence[dict[str, Any]],
) -> dict[str, object]:
    sys.stderr.write(f"  measuring {name}: {what}\n")
    sys.stderr.flush()
    load_start = os.getloadavg()[0]
    processes = _count_processes()
    hook = hook_calls(checkout, command, args.calls)
    status = status_against_ps(launcher, args.status_runs)
    cut = status_with_timeout(args.status_runs)
    row: dict[str, Any] = {
        "name": name,
        "what": what,
        "processes": max(processes, _count_processes()),
        "load_start": load_start,
        "load": os.getloadavg()[0],
        "hook": hook,
        "status": status,
        "rss_unit": "MB",
        "status_timeout": cut,
    }
    # each row as soon as it is measured, each figure beside its target: a run cut short
    # keeps what it measured
    for line in row_verdicts(row, before):
        sys.stderr.write(f"    {line}\n")
    sys.stderr.flush()
    if args.save is not None:  # appended as soon as measured: rows of several runs, one table
        with args.save.open("a") as stream:
            stream.write(json.dumps(row) + "\n")
    return row


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def _stopped_by_signals() -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP end the run (as ``KeyboardInterrupt``), and its ``finally``.

    What the ``finally`` runs (killing every group) is not itself cut short: the
    signals are held while it runs (see :func:`_signals_held`).
    """

    def interrupted(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    previous = {number: signal.signal(number, interrupted) for number in STOP_SIGNALS}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """The stop signals wait until the block is done (a second Ctrl-C cannot cut a cleanup)."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


@contextlib.contextmanager
def _box() -> Iterator[Box]:
    """A box with ``chain.c`` built and a scratch directory; every group killed on the way out."""
    binary = build("chain")
    if binary is None:
        msg = "make stress: no C compiler (cc or gcc) to build benchmarks/chain.c"
        raise SystemExit(msg)
    binary.parent.chmod(0o755)  # run by another user too
    top = Path(tempfile.mkdtemp(prefix="runctx-stress-"))
    top.chmod(0o755)
    box = Box(binary, top)
    try:
        with _stopped_by_signals():
            yield box
    finally:
        with _signals_held():
            box.stop()
            shutil.rmtree(top, ignore_errors=True)
            shutil.rmtree(binary.parent, ignore_errors=True)


def _burners(args: argparse.Namespace) -> int:
    """How many CPU burners: ``--burners``, else ``--load-per-cpu`` times the CPUs."""
    if args.burners is not None:
        return int(args.burners)
    per_cpu: float = args.load_per_cpu
    return round(per_cpu * (os.cpu_count() or 1))


def load_the_box(box: Box, args: argparse.Namespace) -> str:
    """Start the burners and the storm of another uid; say what was started."""
    storm_dirs = [box.checkout(f"storm{n}", NOBODY) for n in range(args.storm_checkouts)]
    box.storm(args.storm, storm_dirs, NOBODY, "npm test")
    burners = _burners(args)
    for _ in range(burners):
        box.burners.append(box.start(["burn"], cwd=box.top, mode="burn", uid=NOBODY))
    return f"{burners} CPU burners, {args.storm} `npm test` of uid {NOBODY}"


SETTLED_SECONDS = 30.0
"""How long a row waits at most for what was just started to settle (see :func:`_wait_settled`)."""


def _runnable() -> int:
    """The tasks runnable now (``procs_running`` of ``/proc/stat``); 0 where unknown."""
    try:
        for line in Path("/proc/stat").read_text().splitlines():
            if line.startswith("procs_running "):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _wait_settled(burners: int, seconds: float = SETTLED_SECONDS) -> None:
    """Until what was just started is idle: few tasks runnable, three readings in a row.

    A storm or a chain is forked at once: for a while thousands of its
    processes are runnable, and a row measured then measures their start,
    not the shape. Settled means at most the burners and four tasks per CPU
    runnable (other work on a shared box), or ``seconds`` passed.
    """
    limit = burners + 4 * (os.cpu_count() or 1)
    deadline = time.monotonic() + seconds
    calm = 0
    while calm < 3 and time.monotonic() < deadline:  # noqa: PLR2004 - three in a row
        calm = calm + 1 if _runnable() <= limit else 0
        time.sleep(0.5)


def _wait_for_load(target: float, seconds: float) -> None:
    """Until the load average (it lags the burners) reaches ``target``, or for ``seconds``."""
    deadline = time.monotonic() + seconds
    while os.getloadavg()[0] < target and time.monotonic() < deadline:
        time.sleep(1)
    sys.stderr.write(f"  load {os.getloadavg()[0]:.1f} (wanted {target:g})\n")


def hold(args: argparse.Namespace) -> int:
    """Keep the burners and the storm alive until interrupted, or for ``--hold`` seconds."""
    with _box() as box:
        what = load_the_box(box, args)
        until = "interrupted (Ctrl-C)" if not args.hold else f"{args.hold:g} s or interrupted"
        sys.stderr.write(f"make stress: holding {what} until {until}\n")
        sys.stderr.flush()
        deadline = time.monotonic() + args.hold if args.hold else None
        try:
            while deadline is None or time.monotonic() < deadline:
                time.sleep(1 if deadline is None else min(1, deadline - time.monotonic()))
        except KeyboardInterrupt:
            sys.stderr.write("make stress: interrupted, stopping what was held\n")
    return 0


def run(args: argparse.Namespace) -> list[dict[str, object]]:
    """Load the box, keep each shape alive in turn, measure; always clean up."""
    launcher = Launcher()
    rows: list[dict[str, object]] = []
    with _box() as box:
        checkout = box.checkout("proj")
        box.start(["pytest", "-q", "tests"], cwd=checkout)  # the live run of this checkout
        alone = "the live run of this checkout alone"
        if "quiet" in args.rows:
            rows.append(_measure("quiet", alone, checkout, TEST_COMMAND, args, launcher, rows))
        base = load_the_box(box, args)
        _wait_settled(_burners(args))
        if args.settle:
            _wait_for_load(_burners(args), args.settle)
        if "storm" in args.rows:
            rows.append(_measure("storm", base, checkout, TEST_COMMAND, args, launcher, rows))
        shapes: dict[str, Callable[[], contextlib.AbstractContextManager[str]]] = {
            "chain": lambda: chain_shape(box, args.chain),
            "ownchain": lambda: chain_shape(box, args.chain, own=True),
            "mounts": lambda: mounts_shape(box, args.mounts, args.mount_runners),
            "cmdlines": lambda: cmdlines_shape(box, args.cmdlines, args.cmdline_mb),
            "deepdirs": lambda: deepdirs_shape(box, args.deep_dirs, args.deep_levels),
            "makefile": lambda: makefile_shape(checkout, args.makefile_kb * 1024),
            "bigmakefile": lambda: makefile_shape(checkout, args.big_makefile_kb * 1024),
            "pyproject": lambda: pyproject_shape(checkout, args.pyproject_mb),
        }
        commands = {
            "makefile": f"make ci && {TEST_COMMAND}",
            "bigmakefile": f"make ci && {TEST_COMMAND}",
        }
        for name in args.shapes:
            with contextlib.ExitStack() as alive:
                with box.burners_paused():  # a chain is built one fork after another
                    shape = alive.enter_context(shapes[name]())
                _wait_settled(_burners(args))
                command = commands.get(name, TEST_COMMAND)
                what = f"storm + {shape}"
                rows.append(_measure(name, what, checkout, command, args, launcher, rows))
    return rows


# ----------------------------------------------------------------------------- the table


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f}"


def _rss_mb(row: Mapping[str, Any]) -> float:
    """The row's peak RSS of ``status`` in MB (rows saved before this unit held MiB)."""
    value = float(row["status"]["status"][2])
    return value if row.get("rss_unit") == "MB" else value * (1 << 20) / 1e6


def _storm_cpu(rows: Sequence[Mapping[str, Any]]) -> float | None:
    """The median hook CPU of the storm row, which each shape's row is compared with."""
    base = next((row for row in rows if row["name"] == "storm"), None)
    return statistics.median(base["hook"]["cpus"]) if base else None


def _met(*, met: bool) -> str:
    return "yes" if met else "**no**"


def row_verdicts(row: Mapping[str, Any], before: Sequence[Mapping[str, Any]]) -> list[str]:
    """One row's figures, each beside the target it is held to (as printed while measuring)."""
    counts, walls, cpus = row["hook"]["counts"], row["hook"]["walls"], row["hook"]["cpus"]
    s_wall, s_cpu, _ = row["status"]["status"]
    p_wall, p_cpu, _ = row["status"]["ps"]
    p99, cpu = _quantile(walls, 0.99), statistics.median(cpus)
    base = _storm_cpu(before) if row["name"] not in {"quiet", "storm"} else None
    shape = (
        f"; over the storm row {cpu - base:+.3f} s (target < {SHAPE_CPU:g} s: "
        f"{_met(met=cpu - base < SHAPE_CPU)})"
        if base is not None
        else ""
    )
    wrong = counts["failed open"] + counts["let through"]
    return [
        (
            f"load {row.get('load_start', row['load']):.1f} to {row['load']:.1f}, "
            f"{row['processes']} processes"
        ),
        (
            f"hook: {counts['refused']} of {len(walls)} refused, {counts['failed open']} "
            f"failed open, {counts['let through']} let through "
            f"(target 0 failed open or let through: {_met(met=wrong == 0)})"
        ),
        (
            f"hook wall median {statistics.median(walls):.2f} s, p99 {p99:.2f} s "
            f"(target p99 < {HOOK_P99:g} s: {_met(met=p99 < HOOK_P99)})"
        ),
        f"hook CPU median {cpu:.3f} s, p99 {_quantile(cpus, 0.99):.3f} s{shape}",
        (
            f"status wall {s_wall:.2f} s, CPU {s_cpu:.2f} s (target < {STATUS_CPU:g} s: "
            f"{_met(met=s_cpu < STATUS_CPU)}), peak RSS {_rss_mb(row):.0f} MB "
            f"(target < {STATUS_MB} MB: {_met(met=_rss_mb(row) < STATUS_MB)}); "
            f"ps wall {p_wall:.2f} s, CPU {p_cpu:.2f} s"
        ),
        (
            f"status --timeout {STATUS_TIMEOUT:g} wall {row['status_timeout']:.2f} s "
            f"(target about {STATUS_TIMEOUT:g} s, under {STATUS_TIMEOUT + TIMEOUT_SLACK:g} s: "
            f"{_met(met=row['status_timeout'] < STATUS_TIMEOUT + TIMEOUT_SLACK)})"
        ),
    ]


def table(rows: Sequence[dict[str, Any]], args: argparse.Namespace) -> str:
    """The results as Markdown: one row per shape (targets in the headings), then the targets."""
    today = dt.datetime.now(tz=dt.UTC).date()
    calls = sorted({len(row["hook"]["walls"]) for row in rows})
    lines = [
        (
            f"Measured on: {platform.system()} {platform.release()} on {platform.machine()}, "
            f"{os.cpu_count()} CPUs; Python {platform.python_version()}; {today}; "
            f"{'/'.join(str(n) for n in calls)} hook calls and {args.status_runs} status runs "
            "per row"
        ),
        "",
        (
            "| shape | processes | load (start to end) | refused | failed open (target 0) "
            "| let through (target 0) "
            f"| hook wall median / p99 ms (p99 < {HOOK_P99 * 1000:.0f}) "
            f"| hook CPU median / p99 ms (a shape: < +{SHAPE_CPU * 1000:.0f} over storm) "
            f"| status wall / CPU ms (CPU < {STATUS_CPU * 1000:.0f}) "
            f"| status peak RSS MB (< {STATUS_MB}) | ps wall / CPU ms "
            f"| status --timeout {STATUS_TIMEOUT:g} wall ms (about {STATUS_TIMEOUT * 1000:.0f}) |"
        ),
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        hook = row["hook"]
        status = row["status"]
        counts, walls, cpus = hook["counts"], hook["walls"], hook["cpus"]
        s_wall, s_cpu, _s_rss = status["status"]
        p_wall, p_cpu, _p_rss = status["ps"]
        lines.append(
            f"| {row['name']}: {row['what']} | {row['processes']} "
            f"| {row.get('load_start', row['load']):.1f} to {row['load']:.1f} "
            f"| {counts['refused']} | {counts['failed open']} | {counts['let through']} "
            f"| {_ms(statistics.median(walls))} / {_ms(_quantile(walls, 0.99))} "
            f"| {_ms(statistics.median(cpus))} / {_ms(_quantile(cpus, 0.99))} "
            f"| {_ms(s_wall)} / {_ms(s_cpu)} | {_rss_mb(row):.0f} | {_ms(p_wall)} / {_ms(p_cpu)} "
            f"| {_ms(row.get('status_timeout', float('nan')))} |"
        )
    lines += ["", *targets(rows)]
    return "\n".join(lines) + "\n"


def targets(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Each of the issue's targets, met or not, over the loaded rows."""
    loaded = [row for row in rows if row["name"] != "quiet"] or list(rows)
    base_cpu = _storm_cpu(rows) or 0.0
    shapes = [row for row in loaded if row["name"] != "storm"]

    wrong = [
        int(row["hook"]["counts"]["failed open"]) + int(row["hook"]["counts"]["let through"])
        for row in loaded
    ]
    fail_opens = sum(int(row["hook"]["counts"]["failed open"]) for row in loaded)
    calls = [len(row["hook"]["walls"]) for row in loaded]
    p99 = max(_quantile(row["hook"]["walls"], 0.99) for row in loaded)
    extra = max((statistics.median(row["hook"]["cpus"]) - base_cpu for row in shapes), default=0.0)
    status_cpu = max(row["status"]["status"][1] for row in loaded)
    status_rss = max(_rss_mb(row) for row in loaded)
    cut = max(float(row.get("status_timeout", 0.0)) for row in loaded)
    per_row = f"{min(calls)}" if min(calls) == max(calls) else f"{min(calls)} to {max(calls)}"
    return [
        "| target | measured | met? |",
        "|---|---|---|",
        (
            f"| 0 fail-opens in each row's hook calls next to a live run of the same checkout "
            f"({per_row} calls a row) | {fail_opens} failed open, "
            f"{sum(wrong) - fail_opens} let through, in {sum(calls)} calls of {len(loaded)} rows "
            f"| {_met(met=sum(wrong) == 0)} |"
        ),
        f"| hook p99 under 2 s wall | worst row {p99:.2f} s | {_met(met=p99 < HOOK_P99)} |",
        (
            f"| each shape costs the hook under 0.2 s CPU (median, over the storm row's "
            f"{base_cpu:.3f} s) | worst {extra:+.3f} s | {_met(met=extra < SHAPE_CPU)} |"
            if shapes
            else "| each shape costs the hook under 0.2 s CPU | no shape measured | - |"
        ),
        (
            f"| `status` under 1 s CPU | worst {status_cpu:.2f} s "
            f"| {_met(met=status_cpu < STATUS_CPU)} |"
        ),
        (
            f"| `status` under 200 MB | worst {status_rss:.0f} MB "
            f"| {_met(met=status_rss < STATUS_MB)} |"
        ),
        (
            f"| `status --timeout {STATUS_TIMEOUT:g}` returns within about "
            f"{STATUS_TIMEOUT:g} s (under {STATUS_TIMEOUT + TIMEOUT_SLACK:g} s) "
            f"| worst {cut:.2f} s "
            f"| {_met(met=cut < STATUS_TIMEOUT + TIMEOUT_SLACK)} |"
        ),
    ]


def write(path: Path, text: str) -> None:
    """Put ``text`` between the stress markers of ``path`` (appended with them when absent)."""
    document = path.read_text()
    block = f"{MARKER}\n\n{text}\n{END_MARKER}"
    if MARKER in document and END_MARKER in document:
        head, _, rest = document.partition(MARKER)
        _, _, tail = rest.partition(END_MARKER)
        document = head + block + tail
    else:
        document = document.rstrip("\n") + f"\n\n{block}\n"
    path.write_text(document)


def _sizes_text(sizes: Mapping[str, object]) -> str:
    return " ".join(f"--{name.replace('_', '-')} {value}" for name, value in sizes.items())


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="make stress", description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=40, help="hook calls per shape (40)")
    parser.add_argument("--status-runs", type=int, default=3, help="status runs per shape (3)")
    parser.add_argument("--load-per-cpu", type=float, default=2.0, help="CPU burners per CPU (2)")
    parser.add_argument(
        "--burners", type=int, help="this many CPU burners (instead of --load-per-cpu)"
    )
    parser.add_argument(
        "--settle",
        type=float,
        default=0.0,
        help="seconds to wait at most, once loaded, for the load average to reach the burners",
    )
    parser.add_argument("--storm", type=int, default=1000, help="`npm test` of another uid (1000)")
    parser.add_argument("--storm-checkouts", type=int, default=40, help="their checkouts (40)")
    parser.add_argument("--chain", type=int, default=1000, help="depth of the npm exec chain")
    parser.add_argument("--mounts", type=int, default=2000, help="mounts in the other namespace")
    parser.add_argument("--mount-runners", type=int, default=100, help="runners there (100)")
    parser.add_argument("--cmdlines", type=int, default=20, help="processes with huge argv (20)")
    parser.add_argument("--cmdline-mb", type=float, default=2.0, help="their argv in MB (2)")
    parser.add_argument(
        "--deep-dirs", type=int, default=300, help="`npm test` in deep directories (300)"
    )
    parser.add_argument("--deep-levels", type=int, default=300, help="how deep each is (300)")
    parser.add_argument("--makefile-kb", type=int, default=7, help="the Makefile's size (7)")
    parser.add_argument(
        "--big-makefile-kb", type=int, default=240, help="the big Makefile's size (240)"
    )
    parser.add_argument("--pyproject-mb", type=int, default=60, help="pyproject.toml MiB (60)")
    parser.add_argument("--shapes", nargs="*", default=list(SHAPES), choices=SHAPES)
    parser.add_argument(
        "--rows",
        nargs="*",
        default=["quiet", "storm"],
        choices=("quiet", "storm"),
        help="the rows measured before the shapes (both; none to measure only shapes)",
    )
    parser.add_argument(
        "--full", action="store_true", help="the issue's sizes: " + _sizes_text(FULL_SIZES)
    )
    parser.add_argument(
        "--done-when",
        action="store_true",
        help="the issue's figures, each beside its target: --full, --settle "
        f"{DONE_WHEN_SETTLE:g}, the storm row, then each shape",
    )
    parser.add_argument(
        "--hold",
        type=float,
        nargs="?",
        const=0.0,
        metavar="SECONDS",
        help="measure nothing: keep the burners (--burners, 4 here) and the storm (--storm, "
        f"{HOLD_STORM} here) alive until interrupted, or for SECONDS, to run other work beside",
    )
    parser.add_argument(
        "--save", type=Path, help="append each row measured to this JSON-lines file"
    )
    parser.add_argument(
        "--from",
        dest="saved",
        type=Path,
        nargs="+",
        help="measure nothing: the table of the rows saved in these files (--save)",
    )
    parser.add_argument("--write", type=Path, help="publish the table in this Markdown file")
    return parser


def _settle_sizes(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """What ``--hold``, ``--done-when`` and ``--full`` imply, for each size not given."""
    if args.hold is not None:
        if args.burners is None:
            args.burners = HOLD_BURNERS
        if args.storm == parser.get_default("storm"):
            args.storm = HOLD_STORM
    if args.done_when:
        args.full = True
        if args.settle == parser.get_default("settle"):
            args.settle = DONE_WHEN_SETTLE
        if args.rows == parser.get_default("rows"):
            args.rows = ["storm"]
    if args.full:
        for name, value in FULL_SIZES.items():
            if getattr(args, name) == parser.get_default(name):
                setattr(args, name, value)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the sizes, run, print (and maybe publish) the table; or hold the load."""
    parser = _parser()
    args = parser.parse_args(argv)
    _settle_sizes(args, parser)
    if args.saved:
        rows = [json.loads(line) for path in args.saved for line in path.read_text().splitlines()]
        text = table(rows, args)
        sys.stdout.write(text)
        if args.write is not None:
            write(args.write, text)
        return 0
    if os.geteuid() != 0:
        sys.stderr.write(
            "make stress needs root: it starts processes as another user (nobody) and mounts "
            "in a new mount namespace. Run it as root (in a VM or container you own).\n"
        )
        return 2
    if args.hold is not None:
        return hold(args)
    rows = run(args)
    text = table(rows, args)
    sys.stdout.write(text)
    if args.write is not None:
        write(args.write, text)
    return 0


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
    sys.exit(130)
