"""Each parser's time grows linearly with its input: measured, as ``make bench`` measures.

For each parser, an adversarial input (what would make a careless parser
quadratic: nested parentheses, many lines, many separators) is parsed at
two sizes, eight times apart, best of several runs. Linear work takes about
8 times as long; quadratic work 64 times. A ratio above :data:`LIMIT` fails.
Run by ``make fuzz`` after the fuzz targets (``python -m fuzz.linear``).
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import sys
import time
from collections.abc import Callable

from runctx.hooks import json_layout, settings_file
from runctx.hooks.payload import PayloadError, json_object
from runctx.present.escape import hook_json, json_text, visible
from runctx.runners import BUILTIN_PATTERNS, detect_runner
from runctx.settings import TableSearch, mentions_runctx_table
from runctx.shell.commands import test_invocations
from runctx.sources import proctext

SMALL = 20_000
GROWTH = 8
LIMIT = 32.0
"""Linear is 8, quadratic 64: 32 leaves room for a busy machine and cache effects."""
TRIALS = 3
"""A case fails only when all its trials grow faster than :data:`LIMIT`."""


def _payload(data: bytes) -> None:
    with contextlib.suppress(PayloadError):
        json_object(data, "input")


def _settings(text: str) -> None:
    try:
        settings_file.parse(text, "/p/s.json")
    except settings_file.SettingsFileError:
        return
    json_layout.edit(text, _no_change, "  ", json.dumps)


def _search_in_chunks(data: bytes) -> bool:
    search = TableSearch()
    return any(search.feed(data[at : at + 4096]) for at in range(0, len(data), 4096)) or (
        search.end()
    )


def _no_change(document: dict[str, object]) -> None:
    del document


CASES: dict[str, tuple[Callable[[int], object], Callable[[object], object]]] = {
    "stat: parentheses in the name": (
        lambda n: b"1 (" + b"(" * n + b") R" + b" 1" * 50,
        proctext.parse_stat,  # type: ignore[dict-item]
    ),
    "cmdline: empty arguments": (lambda n: b"\0" * n, proctext.parse_cmdline),  # type: ignore[dict-item]
    "status: lines without Uid": (lambda n: b"X:\t1\n" * (n // 5), proctext.parse_status_uid),  # type: ignore[dict-item]
    "nspid: one long line": (
        lambda n: b"NSpid:" + b"\t1" * (n // 2),
        proctext.parse_status_nspid,  # type: ignore[dict-item]
    ),
    "argv: a runner and many options": (
        lambda n: ["pytest", *(["-x"] * n)],
        detect_runner,  # type: ignore[dict-item]
    ),
    "loadavg: one long field": (lambda n: b"1" * n, proctext.parse_loadavg),  # type: ignore[dict-item]
    "pressure: many some lines": (
        lambda n: b"some avg10=x\n" * (n // 13),
        proctext.parse_pressure,  # type: ignore[dict-item]
    ),
    "cgroup: many lines": (lambda n: b"1:cpu:/a\n" * (n // 9), proctext.parse_cgroup_v2_path),  # type: ignore[dict-item]
    "cgroup: many hierarchies": (
        lambda n: b"1:a,b,c:/x/y\n" * (n // 13),
        lambda data: proctext.systemd_path(proctext.parse_cgroup(data)),  # type: ignore[arg-type]
    ),
    "meminfo: many lines": (
        lambda n: b"Other:  1 kB\n" * (n // 13) + b"MemTotal: 1 kB\nMemAvailable: 1 kB\n",
        proctext.parse_meminfo,  # type: ignore[dict-item]
    ),
    "environ: many variables": (
        lambda n: b"CI=1\0" * (n // 5),
        lambda data: proctext.parse_environ(data, frozenset({"CI", "TMUX"})),  # type: ignore[arg-type]
    ),
    "stat tty: parentheses in the name": (
        lambda n: b"1 (" + b")" * n + b" R 1 2 3 4",
        proctext.parse_stat_tty,  # type: ignore[dict-item]
    ),
    "mountinfo: many /proc lines": (
        lambda n: b"1 2 0:3 / /proc rw - - - proc proc rw,hidepid=2\n" * (n // 47),
        proctext.parse_proc_mount,  # type: ignore[dict-item]
    ),
    "shell: nested substitutions": (
        lambda n: "$(" * (n // 2) + "pytest",
        lambda text: test_invocations(text, "/", BUILTIN_PATTERNS),  # type: ignore[arg-type]
    ),
    "shell: many cd": (
        lambda n: "cd a && " * (n // 8) + "pytest",
        lambda text: test_invocations(text, "/", BUILTIN_PATTERNS),  # type: ignore[arg-type]
    ),
    "payload: deep nesting": (lambda n: b"[" * n, _payload),  # type: ignore[dict-item]
    "runctx table: many headers": (
        lambda n: b"[tool]\nrunctxx=1\n" * (n // 18),
        mentions_runctx_table,
    ),  # type: ignore[dict-item]
    "runctx table: searched in chunks": (
        lambda n: b"[tool]\nrunctxx=1\n" * (n // 18),
        _search_in_chunks,  # type: ignore[dict-item]
    ),
    "settings file: long array": (
        lambda n: '{"a": [' + ", ".join(["1.50"] * (n // 6)) + "]}",
        _settings,  # type: ignore[dict-item]
    ),
    "escape: control characters": (
        lambda n: os.fsdecode(b"\x1b\xff" * (n // 2)),
        lambda text: (visible(text), json_text(text), hook_json(text)),  # type: ignore[arg-type]
    ),
}


def _best(parse: Callable[[object], object], data: object, rounds: int = 5) -> float:
    """The best of ``rounds`` timings, with the collector off (as :mod:`timeit` does)."""
    best = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(rounds):
            began = time.perf_counter()
            parse(data)
            best = min(best, time.perf_counter() - began)
    finally:
        gc.enable()
    return max(best, 1e-7)


def main() -> int:
    """Measure every case; exit 1 if any grows faster than linearly."""
    failed = []
    print(f"{'parser and input':40} {'n':>8} {'8n':>8}  ratio (linear ~8, quadratic ~64)")
    for name, (make, parse) in CASES.items():
        small_input, large_input = make(SMALL), make(SMALL * GROWTH)
        for _trial in range(TRIALS):  # a busy machine can slow one measurement, never all
            small = _best(parse, small_input)
            large = _best(parse, large_input)
            ratio = large / small
            if ratio <= LIMIT:
                break
        verdict = "ok" if ratio <= LIMIT else "SUPERLINEAR"
        print(f"{name:40} {small * 1e3:7.2f}ms {large * 1e3:7.2f}ms  {ratio:5.1f} {verdict}")
        if ratio > LIMIT:
            failed.append(name)
    if failed:
        print(f"superlinear: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
