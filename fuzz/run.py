"""``make fuzz``: every fuzz target for a bounded time, then the linear-time check.

``python -m fuzz.run [--seconds N] [TARGET...]``. Each target runs in its own
process (libFuzzer ends the process when its time is up) with a fresh corpus
seeded from real ``/proc`` files and a few hand-made inputs. A crash saves
its input under ``fuzz/crashes/`` and fails the run. Needs atheris (the
``fuzz`` extra): without it the run says so and fails, rather than pass
having fuzzed nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CRASHES = HERE / "crashes"

SEEDS: dict[str, list[bytes]] = {
    "stat": [b"1 (a b) R 0 1 1 0 -1 4194560 0 0 0 0 1 2 0 0 20 0 1 0 5 0 7 0\n"],
    "cmdline": [b"python\0-m\0pytest\0-x\0", b"\xff\xfe\0\x1b[2J"],
    "status": [b"Name:\tx\nUid:\t1000\t1000\t1000\t1000\nGid:\t0\n"],
    "loadavg": [b"0.50 0.40 0.30 1/200 4242\n", b"12.5 3.1\n"],
    "pressure": [
        b"some avg10=1.00 avg60=2.00 avg300=3.00 total=4\nfull avg10=0 avg60=0 avg300=0\n"
    ],
    "cgroup": [b"0::/user.slice/a.scope\n", b"max 100000\n", b"150000 100000\n"],
    "mountinfo": [b"22 1 0:21 / /proc rw,nosuid - proc proc rw,hidepid=2,subset=pid\n"],
    "shell": [b"cd sub && env X=1 timeout 5 python -m pytest -x || make test", b"bash -c 'tox'"],
    "payload": [
        json.dumps(
            {
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "cwd": "/tmp",
                "tool_input": {"command": "pytest"},
            }
        ).encode(),
        json.dumps({"toolName": "bash", "cwd": "/", "toolArgs": '{"command": "tox"}'}).encode(),
    ],
    "runctx_table": [
        b'[tool.runctx]\non-same-checkout = "warn"\nrunners = [{ kind = "e2e", program = "x" }]\n'
    ],
    "settings_json": [b'{"x": 2.50, "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": []}]}}'],
    "settings_jsonc": [b'{\n  // mine\n  "x": [1, 2,], /* c */\n  "hooks": {},\n}\n'],
    "escape": [b"x\x1b[2Jy\nFAKE\xff\xfe\xe2\x80\xae"],
    "package_json": [b'{"scripts": {"test": "jest", "pretest": "tsc", "unit": "npm run test"}}'],
    "makefile": [
        (
            b"V := -x\nall: lint test\n\ntest: build ; @echo go\n\t$(MAKE) -C sub check\n"
            b"\tpytest $(V) ${V}\nlint:\n\t-ruff check .\ndefine X\nfoo\nendef\n"
        )
    ],
    "justfile": [
        (
            b"set shell := ['bash', '-c']\nalias t := test\n\ndefault: (build 'x') && test\n"
            b"  echo hi\n\n@test *ARGS: build\n  pytest {{ARGS}}\n\nbuild:\n  cargo build\n"
        )
    ],
    "taskfile": [
        (
            b"version: '3'\ntasks:\n  default:\n    deps: [lint, test]\n  test:\n    cmds:\n"
            b"      - task: build\n      - cmd: go test ./...\n      - |\n        pytest -x\n"
            b"  lint: golangci-lint run\n"
        )
    ],
    "hatch": [
        (
            b"[envs.default.scripts]\ntest = 'pytest'\ncov = ['test', 'coverage report']\n"
            b"[envs.ci]\ntemplate = 'default'\n"
        )
    ],
}


def _real_proc_seeds() -> dict[str, list[bytes]]:
    """What this machine's /proc holds now, as seeds (nothing when there is no /proc)."""
    files = {
        "stat": "/proc/self/stat",
        "cmdline": "/proc/self/cmdline",
        "status": "/proc/self/status",
        "loadavg": "/proc/loadavg",
        "pressure": "/proc/pressure/cpu",
        "cgroup": "/proc/self/cgroup",
        "mountinfo": "/proc/self/mountinfo",
    }
    found: dict[str, list[bytes]] = {}
    for name, path in files.items():
        try:
            with open(path, "rb") as stream:
                found[name] = [stream.read(65536)]
        except OSError:
            pass
    return found


def _targets() -> list[str]:
    from fuzz.targets import TARGETS

    return list(TARGETS)


def main(argv: list[str] | None = None) -> int:
    """Fuzz every target (or the named ones) for ``--seconds`` each; then check linear time."""
    parser = argparse.ArgumentParser(prog="python -m fuzz.run")
    parser.add_argument("--seconds", type=int, default=10, help="time per target (default 10)")
    parser.add_argument("targets", nargs="*", help="targets to run (default: all)")
    args = parser.parse_args(argv)
    try:
        import atheris  # noqa: F401 - only to say clearly that it is missing
    except ImportError as error:
        print(
            f"make fuzz: atheris is not installed ({error}); install the fuzz extra "
            "(pip install -e '.[fuzz]', which needs an atheris wheel for this Python or "
            "clang to build one). Nothing was fuzzed.",
            file=sys.stderr,
        )
        return 2
    names = args.targets or _targets()
    real = _real_proc_seeds()
    CRASHES.mkdir(exist_ok=True)
    failed = []
    for name in names:
        with tempfile.TemporaryDirectory(prefix=f"runctx-fuzz-{name}-") as corpus:
            for number, seed in enumerate(SEEDS.get(name, []) + real.get(name, [])):
                Path(corpus, f"seed-{number}").write_bytes(seed)
            command = [
                sys.executable,
                "-m",
                "fuzz.targets",
                name,
                corpus,
                f"-max_total_time={args.seconds}",
                "-timeout=10",
                "-rss_limit_mb=2048",
                "-max_len=65536",
                f"-artifact_prefix={CRASHES}/{name}-",
                "-print_final_stats=1",
            ]
            done = subprocess.run(
                command,
                capture_output=True,
                text=True,
                check=False,
                cwd=HERE.parent,
                env={**os.environ, "PYTHONHASHSEED": "0"},
            )
        runs = next(
            (
                line.split(":")[-1].strip()
                for line in done.stderr.splitlines()
                if line.startswith("stat::number_of_executed_units")
            ),
            "?",
        )
        print(
            f"fuzz {name:14} {args.seconds:>4}s  {runs:>9} inputs  "
            + ("ok" if done.returncode == 0 else f"FAILED (exit {done.returncode})")
        )
        if done.returncode != 0:
            failed.append(name)
            print(done.stderr[-4000:], file=sys.stderr)
    from fuzz import linear

    print()
    slow = linear.main()
    if failed:
        print(f"make fuzz: crashes in {', '.join(failed)} (inputs in {CRASHES})", file=sys.stderr)
        return 1
    return slow


if __name__ == "__main__":
    sys.exit(main())
