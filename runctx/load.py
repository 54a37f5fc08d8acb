"""How busy the box is: usable CPUs, load average, CPU pressure.

All three are host-wide facts (inside a container they describe the host
unless the runtime virtualises them). Each is a value or an explicit unknown.
"""

from __future__ import annotations

import os

import attrs

from runctx.procfs import read_file
from runctx.unknown import Reason, Unknown


@attrs.frozen
class Pressure:
    """One line of a PSI file: share of time some task waited for the CPU (percent)."""

    avg10: float
    avg60: float
    avg300: float


@attrs.frozen
class Load:
    """The box's CPU load as one scan saw it."""

    usable_cpus: int | Unknown
    load_average: tuple[float, float, float] | Unknown
    cpu_pressure: Pressure | Unknown

    @property
    def load_per_cpu(self) -> float | Unknown:
        """The one-minute load average divided by the usable CPUs."""
        if isinstance(self.load_average, Unknown):
            return self.load_average
        if isinstance(self.usable_cpus, Unknown):
            return self.usable_cpus
        return self.load_average[0] / self.usable_cpus


def parse_pressure(text: bytes) -> Pressure | Unknown:
    """Parse the ``some`` line of ``/proc/pressure/cpu``."""
    for line in text.splitlines():
        if line.startswith(b"some "):
            values = {}
            for item in line.split()[1:]:
                key, _, value = item.partition(b"=")
                values[key] = value
            try:
                return Pressure(
                    avg10=float(values[b"avg10"]),
                    avg60=float(values[b"avg60"]),
                    avg300=float(values[b"avg300"]),
                )
            except (KeyError, ValueError):
                break
    return Unknown(Reason.UNPARSABLE, "cpu pressure: no valid 'some' line")


def parse_cpu_max(text: bytes) -> float | None:
    """CPUs granted by a cgroup v2 ``cpu.max`` (``max 100000`` means no limit)."""
    parts = text.split()
    if len(parts) != 2 or parts[0] == b"max":  # noqa: PLR2004 - quota and period
        return None
    try:
        return int(parts[0]) / int(parts[1])
    except (ValueError, ZeroDivisionError):
        return None


def usable_cpus(proc: str = "/proc") -> int | Unknown:
    """CPUs this process may run on: its affinity, capped by a cgroup CPU quota."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        count = os.cpu_count()
        if count is None:
            return Unknown(Reason.ABSENT, "cpu count")
        cpus = count
    cgroup = read_file(f"{proc}/self/cgroup")
    if isinstance(cgroup, bytes):
        for line in cgroup.splitlines():
            if line.startswith(b"0::"):
                path = os.fsdecode(line[3:]).strip()
                quota = read_file(f"/sys/fs/cgroup{path}/cpu.max")
                if isinstance(quota, bytes):
                    granted = parse_cpu_max(quota)
                    if granted is not None:
                        cpus = max(1, min(cpus, int(granted + 0.999)))
    return cpus


def read_load(proc: str = "/proc") -> Load:
    """Read usable CPUs, the load average and CPU pressure now."""
    average: tuple[float, float, float] | Unknown
    raw = read_file(f"{proc}/loadavg")
    if isinstance(raw, Unknown):
        average = raw
    else:
        try:
            one, five, fifteen = (float(value) for value in raw.split()[:3])
            average = (one, five, fifteen)
        except ValueError:
            average = Unknown(Reason.UNPARSABLE, "loadavg")
    pressure: Pressure | Unknown
    raw = read_file(f"{proc}/pressure/cpu")
    pressure = raw if isinstance(raw, Unknown) else parse_pressure(raw)
    return Load(usable_cpus=usable_cpus(proc), load_average=average, cpu_pressure=pressure)
