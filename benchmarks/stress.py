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

- ``chain``: a deep chain of processes titled ``npm exec`` over one runner;
- ``mounts``: many mounts in another mount namespace (``unshare -m``), with
  runner-named processes of another user working in them;
- ``cmdlines``: runner processes with command lines of megabytes;
- ``makefile``: a small Makefile of variables that expand into each other,
  read by the hook for ``make ci`` (the command is ``make ci && pytest``);
- ``bigmakefile``: the same, hundreds of KB of it;
- ``pyproject``: a huge ``pyproject.toml`` in the checkout itself.

Needs root (to start processes as another user and to mount) and a C
compiler (``benchmarks/chain.c`` makes the processes, a few pages each); says
so and exits non-zero without them. Every process it starts leads its own
process group and is killed by that group (never by name), also on Ctrl-C,
and dies with the harness (``PR_SET_PDEATHSIG``). Nothing here asserts a
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
STATUS_MIB = 200
SHAPES = ("chain", "mounts", "cmdlines", "makefile", "bigmakefile", "pyproject")
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
    "makefile_kb": 7,
    "big_makefile_kb": 240,
    "pyproject_mb": 60,
}
"""The sizes the issue that asked for this harness measured (``--full``)."""

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
print("ready", flush=True)
while True:
    os.wait()
"""

STORM_SCRIPT = r"""
import os, sys
binary, uid, count, title = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
dirs = sys.argv[5:]
for i in range(count):
    if os.fork() == 0:
        os.chdir(dirs[i % len(dirs)])
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
        os.execve(binary, [title], {"RUNCTX_CHAIN_MODE": "idle"})
print("ready", flush=True)
while True:
    os.wait()
"""
"""Starts a storm of idle runner-titled processes of ``uid``: one fork each, not one Popen."""


class Box:
    """The processes and files this run made, each removed by its own group or path."""

    def __init__(self, binary: Path, top: Path) -> None:
        """Start nothing yet; ``binary`` is the built ``chain.c``, ``top`` a scratch directory."""
        self.binary = binary
        self.top = top
        self.groups: list[int] = []

    def start(  # noqa: PLR0913 - each is how one process differs
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        mode: str | None = "idle",
        uid: int | None = None,
        env: dict[str, str] | None = None,
        stack: bool = False,
    ) -> subprocess.Popen[bytes]:
        """Start ``argv`` (``chain.c`` in ``mode``) as the leader of a new process group."""
        environment = {"RUNCTX_CHAIN_MODE": mode} if mode else {}
        environment.update(env or {})

        def grow_stack() -> None:  # the kernel allows an argv of up to a quarter of the stack
            resource.setrlimit(resource.RLIMIT_STACK, (256 << 20, resource.RLIM_INFINITY))

        process = subprocess.Popen(
            list(argv),
            executable=str(self.binary),
            cwd=cwd,
            env=environment,
            start_new_session=True,
            user=uid,
            group=uid,
            extra_groups=[] if uid is not None else None,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            preexec_fn=grow_stack if stack else None,  # noqa: PLW1509 - only setrlimit
        )
        self.groups.append(process.pid)
        return process

    def stop(self, groups: Sequence[int] | None = None) -> None:
        """Kill ``groups`` (default: all) by process group, and reap what is ours."""
        for pgid in list(groups if groups is not None else self.groups):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pgid, 0)
            self.groups.remove(pgid)

    def storm(self, count: int, dirs: Sequence[Path], uid: int, title: str) -> None:
        """``count`` idle processes titled ``title`` of ``uid``, in ``dirs`` in turn: one group."""
        script = self.top / "storm.py"
        script.write_text(STORM_SCRIPT)
        process = subprocess.Popen(
            [sys.executable, str(script), str(self.binary), str(uid), str(count), title]
            + [str(path) for path in dirs],
            start_new_session=True,
            stdout=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
        self.groups.append(process.pid)
        assert process.stdout is not None  # noqa: S101 - piped above
        if process.stdout.readline().strip() != b"ready":
            msg = "make stress: the storm could not be started"
            raise SystemExit(msg)

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
    """Median (wall s, CPU s, peak RSS MiB) of ``status --json`` and ``ps``, taken in turns."""
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
            max(r for _w, r, _c in runs) / 1024,
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


def _wait_for_processes(at_least: int, seconds: float = 600) -> None:
    """Until ``at_least`` processes of ``NOBODY`` (the ones this run starts) are up."""
    deadline = time.monotonic() + seconds
    while _count_processes(NOBODY) < at_least and time.monotonic() < deadline:
        time.sleep(0.2)


# ----------------------------------------------------------------------------- the shapes


@contextlib.contextmanager
def chain_shape(box: Box, depth: int) -> Iterator[str]:
    """``depth`` processes titled ``npm exec``, each the parent of the next, over one runner."""
    where = box.checkout("chain", NOBODY)
    before = _count_processes(NOBODY)
    process = box.start(
        ["npm exec", "pytest", "-q", "deep"],
        cwd=where,
        mode=None,
        uid=NOBODY,
        env={"RUNCTX_CHAIN_DEPTH": str(depth), "RUNCTX_CHAIN_TITLE": "npm exec"},
    )
    _wait_for_processes(before + depth + 1)
    try:
        yield f"{depth}-deep npm exec chain over pytest (uid {NOBODY})"
    finally:
        box.stop([process.pid])


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
    process = subprocess.Popen(
        [
            *(unshare, "-m", "--propagation", "private", sys.executable, str(script)),
            *(str(base), str(mounts), str(runners), str(box.binary), str(NOBODY)),
        ],
        start_new_session=True,
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    box.groups.append(process.pid)
    try:
        assert process.stdout is not None  # noqa: S101 - piped above
        if process.stdout.readline().strip() != b"ready":
            msg = "make stress: the mount namespace could not be set up"
            raise SystemExit(msg)
        yield f"{mounts} mounts in another mount namespace, {runners} pytest processes there"
    finally:
        box.stop([process.pid])


@contextlib.contextmanager
def cmdlines_shape(box: Box, count: int, megabytes: float) -> Iterator[str]:
    """``count`` pytest processes, each with a command line of ``megabytes`` MB."""
    where = box.checkout("cmdlines", NOBODY)
    word = "x" * (100 * 1024)
    words = [word] * max(1, int(megabytes * 1024 * 1024) // len(word))
    started = [
        box.start(["pytest", *words], cwd=where, uid=NOBODY, stack=True).pid for _ in range(count)
    ]
    try:
        yield f"{count} pytest processes with {megabytes:g} MB command lines (uid {NOBODY})"
    finally:
        box.stop(started)


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
) -> dict[str, object]:
    sys.stderr.write(f"  measuring {name}: {what}\n")
    sys.stderr.flush()
    hook = hook_calls(checkout, command, args.calls)
    status = status_against_ps(launcher, args.status_runs)
    cut = status_with_timeout(args.status_runs)
    walls = hook["walls"]
    assert isinstance(walls, list)  # noqa: S101 - built by hook_calls
    # each row as soon as it is measured: a run cut short keeps what it measured
    sys.stderr.write(
        f"    {hook['counts']}; hook wall median {statistics.median(walls):.2f} s; "
        f"status wall/CPU/RSS {status['status'][0]:.2f} s / {status['status'][1]:.2f} s / "
        f"{status['status'][2]:.0f} MiB; ps {status['ps'][0]:.2f} s; "
        f"status --timeout {STATUS_TIMEOUT:g}: {cut:.2f} s\n"
    )
    row = {
        "name": name,
        "what": what,
        "processes": _count_processes(),
        "load": os.getloadavg()[0],
        "hook": hook,
        "status": status,
        "status_timeout": cut,
    }
    if args.save is not None:  # appended as soon as measured: rows of several runs, one table
        with args.save.open("a") as stream:
            stream.write(json.dumps(row) + "\n")
    return row


def run(args: argparse.Namespace) -> list[dict[str, object]]:
    """Load the box, keep each shape alive in turn, measure; always clean up."""
    binary = build("chain")
    if binary is None:
        msg = "make stress: no C compiler (cc or gcc) to build benchmarks/chain.c"
        raise SystemExit(msg)
    binary.parent.chmod(0o755)  # run by another user too
    launcher = Launcher()
    top = Path(tempfile.mkdtemp(prefix="runctx-stress-"))
    top.chmod(0o755)
    box = Box(binary, top)
    rows: list[dict[str, object]] = []

    def interrupted(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupted)
    try:
        checkout = box.checkout("proj")
        box.start(["pytest", "-q", "tests"], cwd=checkout)  # the live run of this checkout
        alone = "the live run of this checkout alone"
        if "quiet" in args.rows:
            rows.append(_measure("quiet", alone, checkout, TEST_COMMAND, args, launcher))
        cpus = os.cpu_count() or 1
        for _ in range(round(args.load_per_cpu * cpus)):
            box.start(["burn"], cwd=top, mode="burn", uid=NOBODY)
        storm_dirs = [box.checkout(f"storm{n}", NOBODY) for n in range(args.storm_checkouts)]
        before = _count_processes(NOBODY)
        box.storm(args.storm, storm_dirs, NOBODY, "npm test")
        _wait_for_processes(before + args.storm)
        burners = round(args.load_per_cpu * cpus)
        base = f"{burners} CPU burners, {args.storm} `npm test` of uid {NOBODY}"
        if "storm" in args.rows:
            rows.append(_measure("storm", base, checkout, TEST_COMMAND, args, launcher))
        shapes: dict[str, Callable[[], contextlib.AbstractContextManager[str]]] = {
            "chain": lambda: chain_shape(box, args.chain),
            "mounts": lambda: mounts_shape(box, args.mounts, args.mount_runners),
            "cmdlines": lambda: cmdlines_shape(box, args.cmdlines, args.cmdline_mb),
            "makefile": lambda: makefile_shape(checkout, args.makefile_kb * 1024),
            "bigmakefile": lambda: makefile_shape(checkout, args.big_makefile_kb * 1024),
            "pyproject": lambda: pyproject_shape(checkout, args.pyproject_mb),
        }
        commands = {
            "makefile": f"make ci && {TEST_COMMAND}",
            "bigmakefile": f"make ci && {TEST_COMMAND}",
        }
        for name in args.shapes:
            with shapes[name]() as what:
                command = commands.get(name, TEST_COMMAND)
                rows.append(_measure(name, f"storm + {what}", checkout, command, args, launcher))
    finally:
        box.stop()
        signal.signal(signal.SIGTERM, previous)
        shutil.rmtree(top, ignore_errors=True)
        shutil.rmtree(binary.parent, ignore_errors=True)
    return rows


# ----------------------------------------------------------------------------- the table


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f}"


def table(rows: Sequence[dict[str, Any]], args: argparse.Namespace) -> str:
    """The results as Markdown: one row per shape, then the targets."""
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
            "| shape | processes | load | refused | failed open | let through "
            "| hook wall median / p99 ms | hook CPU median / p99 ms "
            "| status wall / CPU ms | status peak RSS MiB | ps wall / CPU ms "
            f"| status --timeout {STATUS_TIMEOUT:g} wall ms |"
        ),
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        hook = row["hook"]
        status = row["status"]
        counts, walls, cpus = hook["counts"], hook["walls"], hook["cpus"]
        s_wall, s_cpu, s_rss = status["status"]
        p_wall, p_cpu, _p_rss = status["ps"]
        lines.append(
            f"| {row['name']}: {row['what']} | {row['processes']} | {row['load']:.1f} "
            f"| {counts['refused']} | {counts['failed open']} | {counts['let through']} "
            f"| {_ms(statistics.median(walls))} / {_ms(_quantile(walls, 0.99))} "
            f"| {_ms(statistics.median(cpus))} / {_ms(_quantile(cpus, 0.99))} "
            f"| {_ms(s_wall)} / {_ms(s_cpu)} | {s_rss:.0f} | {_ms(p_wall)} / {_ms(p_cpu)} "
            f"| {_ms(row.get('status_timeout', float('nan')))} |"
        )
    lines += ["", *targets(rows)]
    return "\n".join(lines) + "\n"


def targets(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Each of the issue's targets, met or not, over the loaded rows."""
    loaded = [row for row in rows if row["name"] != "quiet"]
    base = next((row for row in rows if row["name"] == "storm"), None)
    base_cpu = statistics.median(base["hook"]["cpus"]) if base else 0.0

    def verdict(*, met: bool) -> str:
        return "yes" if met else "**no**"

    fail_opens = sum(int(row["hook"]["counts"]["failed open"]) for row in loaded)
    calls = sum(len(row["hook"]["walls"]) for row in loaded)
    p99 = max(_quantile(row["hook"]["walls"], 0.99) for row in loaded)
    extra = max(statistics.median(row["hook"]["cpus"]) - base_cpu for row in loaded)
    status_cpu = max(row["status"]["status"][1] for row in loaded)
    status_rss = max(row["status"]["status"][2] for row in loaded)
    cut = max(float(row.get("status_timeout", 0.0)) for row in loaded)
    return [
        "| target | measured | met? |",
        "|---|---|---|",
        (
            f"| 0 fail-opens next to a live run of the same checkout "
            f"| {fail_opens} of {calls} calls | {verdict(met=fail_opens == 0)} |"
        ),
        f"| hook p99 under 2 s wall | worst row {p99:.2f} s | {verdict(met=p99 < HOOK_P99)} |",
        (
            f"| each shape costs the hook under 0.2 s CPU (median, over the storm row) "
            f"| worst +{extra:.3f} s | {verdict(met=extra < SHAPE_CPU)} |"
        ),
        (
            f"| `status` under 1 s CPU | worst {status_cpu:.2f} s "
            f"| {verdict(met=status_cpu < STATUS_CPU)} |"
        ),
        (
            f"| `status` under 200 MB | worst {status_rss:.0f} MiB "
            f"| {verdict(met=status_rss < STATUS_MIB)} |"
        ),
        (
            f"| `status --timeout {STATUS_TIMEOUT:g}` returns within about "
            f"{STATUS_TIMEOUT:g} s | worst {cut:.2f} s "
            f"| {verdict(met=cut < STATUS_TIMEOUT + TIMEOUT_SLACK)} |"
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


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the sizes, run, print (and maybe publish) the table."""
    parser = argparse.ArgumentParser(prog="make stress", description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=40, help="hook calls per shape (40)")
    parser.add_argument("--status-runs", type=int, default=3, help="status runs per shape (3)")
    parser.add_argument("--load-per-cpu", type=float, default=2.0, help="CPU burners per CPU (2)")
    parser.add_argument("--storm", type=int, default=1000, help="`npm test` of another uid (1000)")
    parser.add_argument("--storm-checkouts", type=int, default=40, help="their checkouts (40)")
    parser.add_argument("--chain", type=int, default=1000, help="depth of the npm exec chain")
    parser.add_argument("--mounts", type=int, default=2000, help="mounts in the other namespace")
    parser.add_argument("--mount-runners", type=int, default=100, help="runners there (100)")
    parser.add_argument("--cmdlines", type=int, default=20, help="processes with huge argv (20)")
    parser.add_argument("--cmdline-mb", type=float, default=2.0, help="their argv in MB (2)")
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
    args = parser.parse_args(argv)
    if args.full:
        for name, value in FULL_SIZES.items():
            if getattr(args, name) == parser.get_default(name):
                setattr(args, name, value)
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
