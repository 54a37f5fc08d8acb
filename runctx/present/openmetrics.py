"""The report as OpenMetrics text, for Prometheus (``runctx status --format openmetrics``).

Written for node_exporter's textfile collector (``--output FILE``, replaced
atomically) or any scraper. Every family is a gauge, so the same text is
valid OpenMetrics 1.0 and valid Prometheus text format 0.0.4 (what the
textfile collector parses): ``# UNIT`` and ``# EOF`` are comments there.

The names and labels are stable (a name may be added, none renamed):

- ``runctx_runs{kind, verdict, root}``: live test runs. ``verdict`` is
  ``ours``, ``foreign``, ``unknown`` (counted as ours), or ``self`` for the run
  the scanning process belongs to; ``kind`` the runner's kind (``pytest``,
  ``tox``...); ``root`` a short hash of the run's checkout root (the first 12
  hex digits of the SHA-256 of its path), so that no path of anyone's leaves
  the machine, yet one checkout is one series across scans and machines that
  use the same path (``--root-label path`` gives the path, ``none`` drops the
  label); ``unknown`` when the root could not be read.
- ``runctx_run_processes``, ``runctx_run_cpu_seconds``,
  ``runctx_run_rss_bytes``, ``runctx_run_cpus_busy`` (CPU use now: the CPUs
  the runs kept busy over the scan's window, where it was measured) with the
  same labels: sums over those runs.
- ``runctx_verdict_runs{verdict}``: live runs per verdict, every verdict
  always present (0 when none), so a graph never has a gap.
- The box: ``runctx_usable_cpus``, ``runctx_load_average{window}``,
  ``runctx_load_per_cpu``, ``runctx_cpu_pressure_ratio{window}`` (PSI "some",
  0 to 1), ``runctx_memory_total_bytes``, ``runctx_memory_available_bytes``,
  and ``runctx_box_busy`` (1 when busy under the checkout's thresholds).
- What could not be seen: ``runctx_processes_listed``,
  ``runctx_processes_unreadable``, ``runctx_zombies``,
  ``runctx_run_fields_unreadable{field}``, ``runctx_visibility_notes`` (how many
  limits the scan had; 0 when none), ``runctx_proc_info{source, hidepid,
  subset_pid, own_pid_namespace}``, and ``runctx_unknown{fact, reason}`` for
  each fact of the box or the viewpoint that is unknown (a missing value is
  never a silent zero).
- The scan: ``runctx_scan_duration_seconds``, ``runctx_scan_timestamp_seconds``
  (to alert on a stale file), ``runctx_info{version}``, and
  ``runctx_viewpoint_info{root, uid}``: whose verdicts these are.

Every label value goes through :func:`runctx.present.escape.metric_label`.
"""

from __future__ import annotations

import enum
import hashlib
import math
from collections.abc import Iterable, Mapping
from importlib.metadata import PackageNotFoundError, version

from runctx.busy import box_pressure
from runctx.present.escape import exact_bytes, metric_label
from runctx.report import JudgedRun, Report
from runctx.settings import DEFAULT_BUSY, BusyRules
from runctx.unknown import Unknown

ROOT_HASH_DIGITS = 12
"""How many hex digits of the SHA-256 of a root's path its ``root`` label keeps."""
VERDICTS = ("ours", "foreign", "unknown", "self")
"""The values of the ``verdict`` label, each always present in ``runctx_verdict_runs``."""


class RootLabel(enum.Enum):
    """What the ``root`` label of a run holds."""

    HASH = "hash"
    PATH = "path"
    NONE = "none"


Labels = tuple[tuple[str, str], ...]


class _Family:
    """One metric family: its header and its samples, in a stable order."""

    def __init__(self, name: str, help_text: str, unit: str = "") -> None:
        self.name = name
        self.help_text = help_text
        self.unit = unit
        self.samples: dict[Labels, float] = {}

    def add(self, value: float, labels: Mapping[str, str] | None = None) -> None:
        key = tuple(sorted((labels or {}).items()))
        self.samples[key] = round(self.samples.get(key, 0) + value, 6)

    def lines(self) -> Iterable[str]:
        yield f"# TYPE {self.name} gauge"
        if self.unit:
            yield f"# UNIT {self.name} {self.unit}"
        yield f"# HELP {self.name} {self.help_text}"
        for labels, value in self.samples.items():
            shown = ",".join(f'{key}="{metric_label(text)}"' for key, text in labels)
            yield (
                f"{self.name}{{{shown}}} {_number(value)}"
                if shown
                else f"{self.name} {_number(value)}"
            )


def _number(value: float) -> str:
    if isinstance(value, int) or (math.isfinite(value) and value == int(value)):
        return str(int(value))
    return repr(float(value))


def root_hash(text: str) -> str:
    """The short hash a root's path is shown as in the ``root`` label."""
    return hashlib.sha256(exact_bytes(text)).hexdigest()[:ROOT_HASH_DIGITS]


def _root_value(root: object, how: RootLabel) -> str:
    if isinstance(root, Unknown) or not isinstance(root, str):
        return "unknown"
    if how is RootLabel.PATH:
        return str(getattr(root, "shown", root))
    return root_hash(root)


def verdict_of(judged: JudgedRun) -> str:
    """The ``verdict`` label of a run: its verdict, or ``self`` for the scanner's own run."""
    return "self" if judged.run.is_self else judged.judgement.verdict.value


def report_metrics(
    report: Report, *, root_label: RootLabel = RootLabel.HASH, busy: BusyRules = DEFAULT_BUSY
) -> str:
    """The whole report as OpenMetrics text, ending in ``# EOF``."""
    families = [
        *_run_families(report, root_label),
        *_load_families(report, busy),
        *_visibility_families(report),
        *_scan_families(report, root_label),
    ]
    lines = [line for family in families for line in family.lines()]
    lines.append("# EOF")
    return "\n".join(lines) + "\n"


def _run_families(report: Report, root_label: RootLabel) -> list[_Family]:
    runs = _Family("runctx_runs", "Live test runs by kind, verdict and checkout root.")
    processes = _Family(
        "runctx_run_processes", "Processes of the live test runs (every member of each run)."
    )
    cpu = _Family(
        "runctx_run_cpu_seconds",
        "CPU time the live test runs' processes have used since they started.",
        "seconds",
    )
    rss = _Family(
        "runctx_run_rss_bytes", "Resident memory of the live test runs' processes.", "bytes"
    )
    busy = _Family(
        "runctx_run_cpus_busy",
        "CPUs the live test runs kept busy over the scan's window (1 is one CPU), where measured.",
    )
    by_verdict = _Family("runctx_verdict_runs", "Live test runs by verdict (0 when none).")
    for verdict in VERDICTS:
        by_verdict.add(0, {"verdict": verdict})
    for judged in sorted(report.runs, key=lambda judged: (judged.run.kind, judged.run.pid)):
        run = judged.run
        labels = {"kind": run.kind, "verdict": verdict_of(judged)}
        if root_label is not RootLabel.NONE:
            labels["root"] = _root_value(run.root, root_label)
        runs.add(1, labels)
        processes.add(len(run.members), labels)
        if not isinstance(run.cpu_seconds, Unknown):
            cpu.add(run.cpu_seconds, labels)
        if not isinstance(run.rss_bytes, Unknown):
            rss.add(run.rss_bytes, labels)
        if not isinstance(run.cpu_now, Unknown):
            busy.add(run.cpu_now, labels)
        by_verdict.add(1, {"verdict": verdict_of(judged)})
    return [runs, by_verdict, processes, cpu, rss, busy]


def _load_families(report: Report, rules: BusyRules) -> list[_Family]:
    """The box's facts; each unknown one is a ``runctx_unknown`` sample instead."""
    unknown = _Family("runctx_unknown", "A fact runctx could not read (1), and why.")
    families = [*_cpu_families(report, unknown), *_memory_families(report, unknown, rules)]
    here = report.here
    facts: tuple[tuple[str, object], ...] = (
        ("viewpoint_root", here.root),
        ("viewpoint_uid", here.uid),
    )
    for fact, known in facts:
        if isinstance(known, Unknown):
            unknown.add(1, {"fact": fact, "reason": known.reason.value})
    families.append(unknown)
    return families


def _cpu_families(report: Report, unknown: _Family) -> list[_Family]:
    load = report.load
    cpus = _Family("runctx_usable_cpus", "CPUs this machine lets its processes use.")
    if isinstance(load.usable_cpus, Unknown):
        unknown.add(1, {"fact": "usable_cpus", "reason": load.usable_cpus.reason.value})
    else:
        cpus.add(load.usable_cpus)
    average = _Family("runctx_load_average", "The load average over 1, 5 and 15 minutes.")
    per_cpu = _Family("runctx_load_per_cpu", "The 1-minute load average per usable CPU.")
    if isinstance(load.load_average, Unknown):
        unknown.add(1, {"fact": "load_average", "reason": load.load_average.reason.value})
    else:
        for window, value in zip(("1m", "5m", "15m"), load.load_average, strict=True):
            average.add(value, {"window": window})
        if not isinstance(load.load_per_cpu, Unknown):
            per_cpu.add(load.load_per_cpu)
    pressure = _Family(
        "runctx_cpu_pressure_ratio",
        "Share of time some runnable task waited for a CPU (PSI some avg10/60/300).",
        "ratio",
    )
    if isinstance(load.cpu_pressure, Unknown):
        unknown.add(1, {"fact": "cpu_pressure", "reason": load.cpu_pressure.reason.value})
    else:
        for window, value in (
            ("10s", load.cpu_pressure.avg10),
            ("60s", load.cpu_pressure.avg60),
            ("300s", load.cpu_pressure.avg300),
        ):
            pressure.add(value / 100, {"window": window})
    return [cpus, average, per_cpu, pressure]


def _memory_families(report: Report, unknown: _Family, rules: BusyRules) -> list[_Family]:
    load = report.load
    total = _Family("runctx_memory_total_bytes", "The machine's memory (MemTotal).", "bytes")
    available = _Family(
        "runctx_memory_available_bytes",
        "Memory new processes can have without swapping (MemAvailable).",
        "bytes",
    )
    if isinstance(load.memory, Unknown):
        unknown.add(1, {"fact": "memory", "reason": load.memory.reason.value})
    else:
        total.add(load.memory.total_bytes)
        available.add(load.memory.available_bytes)
    box = _Family(
        "runctx_box_busy",
        "1 when the box is busy now under the checkout's busy-box thresholds, 0 when it is "
        "known not to be; absent when a figure it rests on cannot be read.",
    )
    pressure = box_pressure(load, rules)
    if pressure.busy or pressure.known_calm:
        box.add(int(pressure.busy))
    return [total, available, box]


def _visibility_families(report: Report) -> list[_Family]:
    seen = report.visibility
    listed = _Family("runctx_processes_listed", "Processes the scan listed.")
    listed.add(seen.processes_listed)
    unreadable = _Family("runctx_processes_unreadable", "Listed processes the scan could not read.")
    unreadable.add(seen.processes_unreadable)
    zombies = _Family("runctx_zombies", "Zombie processes the scan saw (never a run).")
    zombies.add(seen.zombies)
    fields = _Family(
        "runctx_run_fields_unreadable",
        "Processes of runs whose field (uid, cwd...) could not be read.",
    )
    for field, count in sorted(seen.run_fields_unreadable.items()):
        fields.add(count, {"field": field})
    notes = _Family(
        "runctx_visibility_notes",
        "How many limits the scan had (hidepid, another pid namespace, unreadable fields...).",
    )
    notes.add(len(seen.notes))
    proc = _Family("runctx_proc_info", "Where processes were read from, and how /proc is mounted.")
    proc.add(
        1,
        {
            "source": seen.source,
            "hidepid": seen.hidepid,
            "subset_pid": str(seen.subset_pid).lower(),
            "own_pid_namespace": str(seen.own_pid_namespace).lower(),
        },
    )
    return [listed, unreadable, zombies, fields, notes, proc]


def _scan_families(report: Report, root_label: RootLabel) -> list[_Family]:
    duration = _Family("runctx_scan_duration_seconds", "How long the scan took.", "seconds")
    duration.add(round(report.duration_seconds, 6))
    taken = _Family(
        "runctx_scan_timestamp_seconds",
        "When the scan was taken, in seconds since the epoch (alert on a stale file).",
        "seconds",
    )
    taken.add(round(report.taken_at, 3))
    info = _Family("runctx_info", "The runctx that wrote these metrics.")
    info.add(1, {"version": _version()})
    here = report.here
    viewpoint = _Family(
        "runctx_viewpoint_info", "The checkout and uid the verdicts are judged from."
    )
    labels = {"uid": "unknown" if isinstance(here.uid, Unknown) else str(here.uid)}
    if root_label is not RootLabel.NONE:
        labels["root"] = _root_value(here.root, root_label)
    viewpoint.add(1, labels)
    return [duration, taken, info, viewpoint]


def _version() -> str:
    try:
        return version("runctx")
    except PackageNotFoundError:
        return "unknown"
