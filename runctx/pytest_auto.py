"""``-n auto`` (pytest-xdist) that leaves room: fewer workers for others' busy CPUs and for memory.

xdist's own count is the box's CPUs; on a box other runs keep busy, that
many workers only fight them. The count is scaled to the CPUs other runs
leave free (measured over a short window), and bounded by the workers the
memory available above the checkout's ``busy-box-memory-available`` share
holds, at the controller's own size each (``--runctx-worker-memory``).

Imported by the ``pytest_xdist_auto_num_workers`` hook (:mod:`runctx.pytest_plugin`).
"""

from __future__ import annotations

import importlib
import math
import resource

import pytest

from runctx.child import value_in_child
from runctx.looking import may_stop_answering
from runctx.pytest_settings import checkout_settings
from runctx.pytest_terminal import AUTO_WORKERS_NOTE, setting
from runctx.report import Report
from runctx.scanning import scan
from runctx.unknown import Unknown

AUTO_WINDOW_SECONDS = 0.3
"""How long the CPU use of other runs is measured for ``-n auto``."""
MIN_WORKER_BYTES = 64 * 1024 * 1024
"""The least memory a worker is taken to need when none is given (64 MiB)."""


def busy_cpus(report: Report) -> tuple[float, int]:
    """CPUs kept busy now by other runs (not this one), and how many runs did so.

    Each run's ``cpu_now`` is what its processes used over the report's CPU
    window; a run whose use was not measured counts for none.
    """
    busy = 0.0
    runs = 0
    for judged in report.runs:
        now = judged.run.cpu_now
        if judged.run.is_self or isinstance(now, Unknown) or now <= 0:
            continue
        busy += now
        runs += 1
    return busy, runs


def shared_worker_count(base: int, usable_cpus: int, busy: float) -> int:
    """``base`` workers scaled to the share of the CPUs other runs leave free (at least 1)."""
    free = max(0.0, usable_cpus - busy) / usable_cpus
    return max(1, min(base, math.floor(base * free + 0.5)))


def memory_worker_count(
    base: int, available_bytes: int, total_bytes: int, reserve_percent: float, worker_bytes: int
) -> int:
    """At most ``base`` workers, as many as fit in the memory above the reserve (at least 1).

    The reserve is the checkout's ``busy-box-memory-available`` share of the
    total: the workers leave the box at least that much, so that they do not
    make it the busy box other runs wait for.
    """
    room = available_bytes - total_bytes * reserve_percent / 100
    if worker_bytes <= 0:
        return base
    return max(1, min(base, int(room // worker_bytes)))


def _worker_bytes(config: pytest.Config) -> int:
    """The memory one worker is taken to need: the option, else the controller's own RSS."""
    text = setting(config, "runctx_worker_memory")
    if text:
        try:
            mib = float(text)
        except ValueError:
            mib = -1.0
        if not 0 < mib < float("inf"):
            msg = f"--runctx-worker-memory / runctx_worker_memory: not a number of MiB: {text!r}"
            raise pytest.UsageError(msg)
        return int(mib * 1024 * 1024)

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    return max(MIN_WORKER_BYTES, peak)


def auto_workers(config: pytest.Config) -> int | None:
    """Workers for ``-n auto``: xdist's count, fewer for the CPUs other runs keep busy and memory.

    None leaves xdist's count. When fewer, why is stashed for the header.
    """
    xdist_count = importlib.import_module("xdist.plugin").pytest_xdist_auto_num_workers
    base = int(xdist_count(config))
    settings, _warnings = checkout_settings(config)

    def scanned() -> Report:
        return scan(cpu_window=AUTO_WINDOW_SECONDS, settings=settings)

    # In a child where a file system may stop answering: held, xdist's count stands.
    report = value_in_child(scanned) if may_stop_answering() else scanned()
    usable = report.load.usable_cpus
    if isinstance(usable, Unknown) or usable < 1:
        return None
    busy, runs = busy_cpus(report)
    workers = shared_worker_count(base, usable, busy)
    reasons = []
    if workers < base:
        reasons.append(f"other runs ({runs}) keep ~{busy:.1f} of {usable} usable CPUs busy")
    memory = report.load.memory
    if not isinstance(memory, Unknown):
        rules = settings.busy
        per_worker = _worker_bytes(config)
        fits = memory_worker_count(
            base,
            memory.available_bytes,
            memory.total_bytes,
            rules.memory_available or 0.0,
            per_worker,
        )
        if fits < base:
            workers = min(workers, fits)
            reasons.append(
                f"{memory.available_bytes / 2**30:.1f} GiB available holds {fits} at "
                f"{per_worker / 2**20:.0f} MiB each"
            )
    if workers >= base:
        return None
    config.stash[AUTO_WORKERS_NOTE] = (
        f"-n auto: {workers} worker{'s' if workers != 1 else ''} instead of {base}: "
        + "; ".join(reasons)
    )
    return workers
