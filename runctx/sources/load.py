"""How busy the box is: usable CPUs, load average, CPU pressure, memory.

The usable CPUs are this process's: its CPU affinity, capped by the CPU quota
of its cgroup and every cgroup above it. The load average, the CPU pressure
(PSI) and the memory are host-wide facts (inside a container they describe
the host unless the runtime virtualises them). Each is a value or an explicit
unknown. The process source reads them (:meth:`~runctx.sources.ProcessSource.load`).
"""

from __future__ import annotations

import attrs

from runctx.record_base import Record
from runctx.sources.proctext import MemInfo, Pressure
from runctx.unknown import NOT_READ, Reason, Unknown

__all__ = ["Load", "MemInfo", "Pressure"]


@attrs.frozen(repr=False, eq=False)
class Load(Record):
    """The box's CPU load and memory as one scan saw it.

    ``memory`` is ``MemTotal`` and ``MemAvailable``: the memory new processes
    can use without swapping, as the kernel estimates it.
    """

    usable_cpus: int | Unknown
    load_average: tuple[float, float, float] | Unknown
    cpu_pressure: Pressure | Unknown
    memory: MemInfo | Unknown = NOT_READ

    @property
    def load_per_cpu(self) -> float | Unknown:
        """The one-minute load average divided by the usable CPUs."""
        if isinstance(self.load_average, Unknown):
            return self.load_average
        if isinstance(self.usable_cpus, Unknown):
            return self.usable_cpus
        return self.load_average[0] / self.usable_cpus

    @property
    def memory_available_percent(self) -> float | Unknown:
        """``MemAvailable`` as a share of ``MemTotal``, in percent."""
        if isinstance(self.memory, Unknown):
            return self.memory
        if self.memory.total_bytes <= 0:
            return Unknown(Reason.UNPARSABLE, "meminfo: MemTotal is 0")
        return 100.0 * self.memory.available_bytes / self.memory.total_bytes
