"""How many CPUs a test run about to start will use: what a note on contention weighs.

A note on foreign load is worth an agent's attention only when that load is
likely to hurt the run about to start: when the CPUs the foreign runs keep busy
now leave fewer free than this run will use (:func:`hurts`). What a run will use
is read from its command: an explicit worker count (``pytest -n 4``, ``-n auto``,
``jest --maxWorkers=50%``, ``cargo test -j 8``, ``--test-threads``), else every
usable CPU for the runners that spread over all of them by default (jest,
vitest, cargo, go, nextest, dotnet, bazel), else one.
"""

from __future__ import annotations

from collections.abc import Sequence

PARALLEL_KINDS = frozenset(
    {
        *("jest", "vitest", "cargo-test", "cargo-nextest", "go-test", "dotnet-test"),
        *("bazel-test", "bun-test", "deno-test", "react-scripts-test", "zig-test"),
    }
)
"""Runners whose default is one worker per CPU."""
_WORKER_OPTIONS = frozenset(
    {
        *("-n", "--numprocesses", "-j", "--jobs", "--maxWorkers", "--max-workers"),
        *("--test-threads", "--workers", "--parallel", "-w"),
    }
)
_ALL = frozenset({"auto", "logical", "max", "all"})


def _workers(value: str, usable: int) -> float | None:
    """The CPUs a worker-count value asks for, or None when it is not one."""
    text = value.strip().lower()
    if text in _ALL:
        return float(usable)
    if text.endswith("%"):
        try:
            return max(usable * float(text[:-1]) / 100, 1.0)
        except ValueError:
            return None
    if text.isdigit():
        return float(min(max(int(text), 1), usable))
    return None


def cpus_wanted(kind: str, argv: Sequence[str], usable: int) -> float:
    """The CPUs a run of ``kind`` with ``argv`` will keep busy on a box of ``usable`` CPUs."""
    words = list(argv)
    for index, word in enumerate(words):
        name, equals, value = word.partition("=")
        if name not in _WORKER_OPTIONS:
            continue
        if not equals:
            if index + 1 >= len(words):
                continue
            value = words[index + 1]
        found = _workers(value, usable)
        if found is not None:
            return found
    return float(usable) if kind in PARALLEL_KINDS else 1.0


def hurts(foreign_cpus: float, wanted: float, usable: int) -> bool:
    """Whether ``foreign_cpus`` busy now leave fewer than ``wanted`` of ``usable`` CPUs free."""
    return foreign_cpus > max(usable - wanted, 0.0)
