"""``make bench``: runctx against ps, pgrep, psutil and the kernel's floor, in one run.

Every number is a median of repeated measurements taken in this one run on this
one machine, so ratios compare like with like. Nothing here asserts a time:
the suite never times anything; this prints a table (and, with ``--write``,
publishes it to ``docs/performance.md``).

Measured:

- the in-process scan at the box's own process count, then with +1000 and +5000
  idle processes (``sleep`` with distinct arguments, started in the benchmark's
  own process group, bounded by their sleep and killed by that group);
- the C floor: reading ``stat``, ``status``, ``cmdline`` and the cwd link of
  every process (``benchmarks/cfloor.c``, built with ``cc`` when there is one);
- ``runctx status --json`` as a whole process against ``ps -eo pid,ppid,uid,args``,
  ``pgrep -af pytest`` and a psutil ``process_iter`` script reading the same fields;
- the hook (``runctx hook claude``) on a non-test command, on ``npm run`` scripts
  read from a package.json that run no tests, and on a test command, against a
  bare interpreter start and a script that only parses the hook's JSON; the test
  command once alone and once next to a live foreign run, where the hook samples
  the foreign runs' CPU use over its 0.1 s window (the answer an agent waits for);
- the peak resident memory of each whole process (``ru_maxrss`` from ``wait4``);
- the pytest plugin's cost per session: a small real suite with and without
  ``-p no:runctx``, on a quiet box (a pid namespace of its own, where root can
  make one) and on the box as it is (``benchmarks/plugin_cost.py``);
- parsing in-process: ``detect_runner`` on argvs that name no runner, on long
  wrapper chains and on huge argvs, and ``test_invocations`` on worst-case
  command strings (each bounded by the lexer's budgets; the suite checks that
  they return, this says how fast).
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Self

from benchmarks import plugin_cost

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SIZES = (0, 1000, 5000)
PSUTIL_SCRIPT = (
    "import json, psutil\n"
    "rows = [p.info for p in psutil.process_iter(['pid', 'ppid', 'uids', 'cmdline'])]\n"
    "print(json.dumps([[r['pid'], r['ppid'], r['uids'] and r['uids'].real, r['cmdline']]"
    " for r in rows]))\n"
)
JSON_ONLY_SCRIPT = "import json, sys; json.load(sys.stdin)"

WORST_ARGVS: dict[str, list[str]] = {
    "no runner: systemd --user": ["/usr/lib/systemd/systemd", "--user"],
    "no runner: sshd: u@pts/0": ["sshd:", "u@pts/0"],
    "no runner: dbus-daemon": ["/usr/bin/dbus-daemon"],
    "pytest behind every wrapper": [
        *("env", "-i", "LANG=C", "timeout", "-k", "5", "600", "nice", "-n", "5"),
        *("ionice", "-c3", "stdbuf", "-oL", "uv", "run", "--frozen"),
        *("python", "-u", "-X", "dev", "-m", "pytest", "-x"),
    ],
    "pytest + 100000 arguments": ["pytest", *(["-x"] * 100_000)],
    "env + 100000 assignments": ["env", *(f"A{i}=1" for i in range(100_000)), "pytest"],
    "python + 100000 options": ["python", *(["-W", "error"] * 50_000), "-m", "pytest"],
    "make + 100000 words, test last": ["make", *(["x"] * 100_000), "test"],
    "a title of 100000 words": ["pytest " + "-x " * 100_000],
}
"""Command lines for ``detect_runner``: what a box runs most, and the longest walks.

Each argv is read up to its first ``MAX_ARGV_WORDS`` words, so the 100,000-word
ones cost what an argv at that bound costs: a local user cannot slow every
scan with a long command line."""

WORST_COMMANDS: dict[str, str] = {
    "pytest;a;a;... (40000)": "pytest;" + "a;" * 40000,
    "30000 quoted words": "pytest " + "'a' " * 30000,
    "100001 quotes": "pytest " + "'" * 100001,
    "100000 open parentheses": "pytest " + "(" * 100000,
    "30000 nested $( )": "pytest " + "$(" * 30000 + ")" * 30000,
    "2000 nested bash -c": "bash -c " + "'bash -c \"pytest\"'" * 2000,
    "here-document of 80000 lines": "cat > f <<'EOF'\n" + "pytest line\n" * 80000 + "EOF\npytest",
    "100000 backslashes": "pytest " + "\\" * 100000,
    "one word of 1 MB": "pytest " + "a" * 1000000,
    "echo + 1 MB": "echo " + "a" * 1000000,
    "20000 lines of pytest": "pytest\n" * 20000,
    "100000 dollars": "pytest " + "$" * 100000,
    "20000 $'a' words": "pytest " + "$'a' " * 20000,
    "5000 here-documents": "pytest <<A\n" * 5000,
    "20000 cd": "cd a;" * 20000 + "pytest",
    "20000 pipes": "pytest|" * 20000,
    "100000 backticks": "`" * 100000 + "pytest",
    "100000 double quotes": '"' * 100000 + "pytest",
}
"""Command strings for ``test_invocations``: each stops at one of the lexer's bounds."""


def claude_payload(command: str, cwd: str) -> bytes:
    """A PreToolUse payload as Claude Code sends it."""
    return json.dumps(
        {
            "session_id": "bench",
            "transcript_path": "transcript.jsonl",
            "cwd": cwd,
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "bench", "timeout": 120000},
            "tool_use_id": "toolu_bench",
        }
    ).encode()


def clean_env() -> dict[str, str]:
    """The environment for measured processes: bytecode caches allowed, no suite settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "RUNCTX_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def build(source: str) -> Path | None:
    """Compile ``benchmarks/SOURCE.c`` into a temporary binary; None without a compiler."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    binary = Path(tempfile.mkdtemp(prefix="runctx-bench-")) / source
    subprocess.run(
        [compiler, "-O2", "-o", str(binary), str(ROOT / "benchmarks" / f"{source}.c")], check=True
    )
    return binary


class Launcher:
    """Runs commands through ``peakrss`` so their own peak RSS can be read."""

    def __init__(self) -> None:
        """Build the launcher (without a C compiler, peak RSS is not measured)."""
        self.binary = build("peakrss")

    def run(
        self, argv: Sequence[str], stdin: bytes | None, env: dict[str, str]
    ) -> tuple[float, int, float]:
        """Run ``argv`` once; return (wall seconds, peak RSS KiB or -1, CPU seconds or -1)."""
        with tempfile.TemporaryFile() as source, tempfile.NamedTemporaryFile("r") as result:
            if stdin is not None:
                source.write(stdin)
                source.seek(0)
            command = list(argv) if self.binary is None else [str(self.binary), result.name, *argv]
            began = time.perf_counter()
            finished = subprocess.run(
                command,
                stdin=source,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=env,
                check=False,
            )
            elapsed = time.perf_counter() - began
            if self.binary is None:
                return elapsed, -1, -1.0
            seconds, rss, status, cpu = result.read().split()
        if int(status) not in (0, 1) or finished.returncode != 0:
            msg = f"{argv} failed with status {status}"
            raise RuntimeError(msg)
        return float(seconds), int(rss), float(cpu)


LAUNCHER: Launcher | None = None


Measure = tuple[float, int, float]
"""Median wall time (ms), max peak RSS (KiB), median CPU time (ms)."""


Command = tuple[Sequence[str], bytes | None]
"""An argv and what it reads on stdin."""


def measure_processes(commands: dict[str, Command], repeats: int) -> dict[str, Measure]:
    """Each command's median wall time, max peak RSS and median CPU time.

    The commands take turns, one run each per round after a warm-up round, so
    that a box whose load drifts during the measure weighs on all of them alike.
    """
    global LAUNCHER  # noqa: PLW0603 - built once per benchmark run
    if LAUNCHER is None:
        LAUNCHER = Launcher()
    env = clean_env()
    samples: dict[str, list[tuple[float, int, float]]] = {name: [] for name in commands}
    for round_number in range(repeats + 1):
        for name, (argv, stdin) in commands.items():
            sample = LAUNCHER.run(argv, stdin, env)
            if round_number:
                samples[name].append(sample)
    return {
        name: (
            statistics.median(s[0] for s in taken) * 1000,
            max(s[1] for s in taken),
            statistics.median(s[2] for s in taken) * 1000,
        )
        for name, taken in samples.items()
    }


def measure_call(function: Callable[[], object], repeats: int) -> float:
    """Median wall time (ms) of an in-process call after one warm-up."""
    function()
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        function()
        times.append(time.perf_counter() - began)
    return statistics.median(times) * 1000


def process_count() -> int:
    """Processes listed in /proc now."""
    return sum(name.isdigit() for name in os.listdir("/proc"))


class IdleProcesses:
    """N idle processes in one new process group, killed by that group."""

    def __init__(self, count: int) -> None:
        """Start nothing yet."""
        self.count = count
        self.leader: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Self:
        """Start the processes and wait until all of them are up."""
        if self.count == 0:
            return self
        spawner = (
            "import os, sys, time\n"
            "for i in range(int(sys.argv[1])):\n"
            "    if os.fork() == 0:\n"
            "        os.execv('/bin/sleep', ['sleep', f'900.{i:05d}'])\n"
            "print('ready', flush=True)\n"
            "time.sleep(900)\n"
        )
        self.leader = subprocess.Popen(
            [sys.executable, "-c", spawner, str(self.count)],
            start_new_session=True,
            stdout=subprocess.PIPE,
        )
        assert self.leader.stdout is not None  # noqa: S101 - for the type checker
        if self.leader.stdout.readline() != b"ready\n":
            msg = "the idle processes could not be started"
            raise RuntimeError(msg)
        time.sleep(1.0)  # let the last children finish exec'ing sleep
        return self

    def __exit__(self, *_exc: object) -> None:
        """Kill exactly the benchmark's process group."""
        if self.leader is not None:
            os.killpg(self.leader.pid, signal.SIGKILL)
            self.leader.wait()


def c_floor(repeats: int) -> float | None:
    """Median ms of the C reader over every process, or None without a C compiler."""
    binary = build("cfloor")
    if binary is None:
        return None
    try:
        out = subprocess.run(
            [str(binary), str(repeats)], capture_output=True, text=True, check=True
        ).stdout
    finally:
        shutil.rmtree(binary.parent, ignore_errors=True)
    return statistics.median(float(line.split()[1]) for line in out.splitlines()) * 1000


def scan_peak_kib(function: Callable[[], object]) -> int:
    """Peak Python memory allocated during one call, in KiB (tracemalloc)."""
    import tracemalloc  # noqa: PLC0415 - only while measuring

    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1] // 1024
    finally:
        tracemalloc.stop()


def scan_rows(repeats: int, sizes: Sequence[int]) -> list[dict[str, object]]:
    """In-process scan, source table and C floor at each size."""
    from runctx.scanning import scan, viewpoint  # noqa: PLC0415
    from runctx.sources.procfs import ProcfsSource  # noqa: PLC0415 - after the env is set

    here = viewpoint(cwd=str(ROOT))
    source = ProcfsSource()
    rows: list[dict[str, object]] = []
    for extra in sizes:
        with IdleProcesses(extra):
            count = process_count()
            rows.append(
                {
                    "extra": extra,
                    "processes": count,
                    "scan_ms": measure_call(lambda: scan(here, source=source), repeats),
                    "table_ms": measure_call(source.table, repeats),
                    "scan_peak_kib": scan_peak_kib(lambda: scan(here, source=source)),
                    "floor_ms": c_floor(repeats),
                    "commands": command_rows(repeats),
                }
            )
    return rows


def command_rows(repeats: int) -> dict[str, Measure]:
    """Whole-process costs of runctx status and its peers, at the current size."""
    runctx = str(BIN / "runctx")
    python = sys.executable
    commands: dict[str, Command] = {
        "runctx status --json": ([runctx, "status", "--json"], None),
        "ps -eo pid,ppid,uid,args": (["ps", "-eo", "pid,ppid,uid,args"], None),
        "pgrep -af pytest": (["pgrep", "-af", "pytest"], None),
        "psutil process_iter": ([python, "-c", PSUTIL_SCRIPT], None),
    }
    return measure_processes(commands, repeats)


def json_only_console_script(directory: Path) -> Path:
    """A console script, as pip writes one, whose ``main`` only parses the JSON on stdin."""
    package = directory / "jsononly"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "cli.py").write_text(
        "import json\nimport sys\n\n\ndef main():\n    json.load(sys.stdin)\n    return 0\n"
    )
    script = directory / "jsononly-hook"
    script.write_text(
        f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(directory)!r})\n"
        "from jsononly.cli import main\n"
        "if __name__ == '__main__':\n    sys.exit(main())\n"
    )
    script.chmod(0o755)
    return script


class ForeignRun:
    """A live, idle test run in a checkout of its own: foreign to this one, killed by its group.

    Orphaned (its starter exits at once): a child of the benchmark would fold
    into the run of whatever started the benchmark (``make bench`` is a task
    with a runner under it), which is this checkout's, and the hook measured
    next to it would answer for its own run instead of sampling a foreign one.
    """

    def __init__(self, directory: Path) -> None:
        """Prepare the run in ``directory`` (a checkout of its own)."""
        self.directory = directory
        self.group: int | None = None

    def __enter__(self) -> Self:
        """Start ``python run_tests.py`` and wait until it runs."""
        (self.directory / ".git").mkdir()
        (self.directory / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
        (self.directory / "run_tests.py").write_text(
            "import pathlib, sys, time\npathlib.Path(sys.argv[1]).touch()\ntime.sleep(900)\n"
        )
        ready = self.directory / "up"
        starter = subprocess.Popen(
            ["sh", "-c", '"$0" run_tests.py "$1" &', sys.executable, str(ready)],
            cwd=self.directory,
            start_new_session=True,
        )
        starter.wait()
        self.group = starter.pid  # the orphan keeps the group of the session it was started in
        deadline = time.monotonic() + 30
        while not ready.exists():
            if time.monotonic() > deadline:
                msg = "the foreign run did not start"
                raise RuntimeError(msg)
            time.sleep(0.02)
        return self

    def __exit__(self, *_exc: object) -> None:
        """Kill exactly the run's process group."""
        if self.group is not None:
            os.killpg(self.group, signal.SIGKILL)


def hook_rows(repeats: int) -> dict[str, Measure]:
    """Whole-process costs of the hook and of its baselines."""
    runctx = str(BIN / "runctx")
    python = sys.executable
    quiet = claude_payload("git status && ls -la", str(ROOT))
    test = claude_payload("python -m pytest -q tests", str(ROOT))
    hook = [runctx, "hook", "claude"]
    with tempfile.TemporaryDirectory(prefix="runctx-bench-") as scratch:
        script = str(json_only_console_script(Path(scratch)))
        project = Path(scratch) / "project"
        project.mkdir()
        (project / "package.json").write_text(
            json.dumps({"scripts": {"build": "tsc -p .", "lint": "eslint ."}})
        )
        scripts = claude_payload("npm run build && npm run lint", str(project))
        commands: dict[str, Command] = {
            "python -c pass": ([python, "-c", "pass"], None),
            "python: parse the hook JSON only": ([python, "-c", JSON_ONLY_SCRIPT], quiet),
            "console script: parse the hook JSON only": ([script], quiet),
            "runctx hook claude (not a test)": (hook, quiet),
            "runctx hook claude (npm scripts read, not a test)": (hook, scripts),
            "runctx hook claude (a test run)": (hook, test),
        }
        measured = measure_processes(commands, repeats)
        foreign = Path(scratch) / "foreign"
        foreign.mkdir()
        sampled = "runctx hook claude (a test run next to a foreign run: CPU sampled)"
        with ForeignRun(foreign):
            measured |= measure_processes({sampled: (hook, test)}, repeats)
        return measured


def parse_rows(repeats: int) -> dict[str, dict[str, float]]:
    """Median µs per call of detect_runner and test_invocations on the worst-case inputs."""
    from runctx.runners import detect_runner  # noqa: PLC0415 - after the env is set
    from runctx.shell.commands import test_invocations  # noqa: PLC0415

    cwd = str(ROOT)
    argvs = {
        name: measure_call(functools.partial(detect_runner, argv), repeats) * 1000
        for name, argv in WORST_ARGVS.items()
    }
    commands = {
        name: measure_call(functools.partial(test_invocations, command, cwd), repeats) * 1000
        for name, command in WORST_COMMANDS.items()
    }
    return {"detect_runner": argvs, "test_invocations": commands}


def ratio(value: float, base: float) -> str:
    """``1.23x`` (or n/a when there is no base: no C launcher, or too short to count)."""
    return f"{value / base:.2f}x" if base > 0 and value >= 0 else "n/a"


def mib(kib: int) -> str:
    """Peak RSS in MiB, or n/a when it was not measured."""
    return "n/a" if kib < 0 else f"{kib / 1024:.1f}"


def render(
    rows: list[dict[str, object]],
    hooks: dict[str, Measure],
    parsing: dict[str, dict[str, float]],
) -> str:
    """The results as Markdown."""
    out = ["### In-process scan (median ms; per process in µs)", ""]
    out.append(
        "| processes | scan | per process | table only | C floor | per process "
        "| scan / floor | scan peak alloc MiB |"
    )
    out.append("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        count = int(row["processes"])  # type: ignore[call-overload]
        scan_ms = float(row["scan_ms"])  # type: ignore[arg-type]
        table_ms = float(row["table_ms"])  # type: ignore[arg-type]
        floor = row["floor_ms"]
        floor_text = per_floor = versus = "n/a"
        if isinstance(floor, float):
            floor_text = f"{floor:.1f}"
            per_floor = f"{floor / count * 1000:.1f}"
            versus = ratio(scan_ms, floor)
        out.append(
            f"| {count} (+{row['extra']}) | {scan_ms:.1f} | {scan_ms / count * 1000:.1f} | "
            f"{table_ms:.1f} | {floor_text} | {per_floor} | {versus} | "
            f"{mib(int(row['scan_peak_kib']))} |"  # type: ignore[call-overload]
        )
    out += ["", "### Whole processes at each size (median ms, peak RSS MiB)", ""]
    out.append("| processes | command | time | vs ps | CPU time | CPU vs ps | peak RSS |")
    out.append("|---:|---|---:|---:|---:|---:|---:|")
    for row in rows:
        commands: dict[str, Measure] = row["commands"]  # type: ignore[assignment]
        ps_ms, _, ps_cpu = commands["ps -eo pid,ppid,uid,args"]
        for name, (ms, rss, cpu) in commands.items():
            out.append(
                f"| {row['processes']} | `{name}` | {ms:.1f} | {ratio(ms, ps_ms)} | "
                f"{cpu:.1f} | {ratio(cpu, ps_cpu)} | {mib(rss)} |"
            )
    out += ["", "### The hook, as a whole process (median ms, peak RSS MiB)", ""]
    out.append(
        "| command | time | vs `python -c pass` | vs JSON-only `-c` | "
        "vs JSON-only console script | CPU time | CPU vs JSON-only console script | peak RSS |"
    )
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    bare = hooks["python -c pass"][0]
    json_only = hooks["python: parse the hook JSON only"][0]
    console, _, console_cpu = hooks["console script: parse the hook JSON only"]
    for name, (ms, rss, cpu) in hooks.items():
        out.append(
            f"| {name} | {ms:.1f} | {ratio(ms, bare)} | {ratio(ms, json_only)} | "
            f"{ratio(ms, console)} | {cpu:.1f} | {ratio(cpu, console_cpu)} | {mib(rss)} |"
        )
    from runctx.runners import MAX_ARGV_WORDS  # noqa: PLC0415 - after the env is set

    for function, cases in parsing.items():
        out += ["", f"### `{function}` on worst-case input (median µs per call)", ""]
        if function == "detect_runner":
            out += [f"Each argv is read up to its first {MAX_ARGV_WORDS} words.", ""]
        out.append("| input | time |")
        out.append("|---|---:|")
        out.extend(f"| {name} | {us:.1f} |" for name, us in cases.items())
        worst = max(cases, key=cases.__getitem__)
        out.append(f"| **worst: {worst}** | **{cases[worst]:.1f}** |")
    return "\n".join(out)


def machine() -> str:
    """What the numbers were measured on."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{platform.system()} {platform.release()} on {platform.machine()}, {model}, "
        f"{os.cpu_count()} CPUs; Python {platform.python_version()}; "
        f"{dt.datetime.now(dt.UTC):%Y-%m-%d}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Measure, print, and optionally publish."""
    parser = argparse.ArgumentParser(prog="make bench", description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9, help="measurements per median")
    parser.add_argument("--write", metavar="PATH", help="also write the Markdown results there")
    parser.add_argument(
        "--sizes",
        default=",".join(map(str, SIZES)),
        help="extra idle processes per row, comma-separated (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    parsing = parse_rows(args.repeats * 2)
    hooks = hook_rows(args.repeats * 2)
    rows = scan_rows(args.repeats, [int(size) for size in args.sizes.split(",")])
    plugin = plugin_cost.render(plugin_cost.plugin_rows(args.repeats))
    text = f"Measured on: {machine()}\n\n{render(rows, hooks, parsing)}\n\n{plugin}\n"
    sys.stdout.write(text)
    if args.write:
        path = Path(args.write)
        document = path.read_text() if path.exists() else ""
        marker = "<!-- bench results -->"
        head = document.split(marker)[0] if marker in document else document
        path.write_text(f"{head.rstrip()}\n\n{marker}\n\n{text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
