"""How busy the box is: usable CPUs, load average, CPU pressure.

All three are host-wide facts (inside a container they describe the host
unless the runtime virtualises them). Each is a value or an explicit unknown.
The process source reads them (:meth:`~runctx.sources.ProcessSource.load`).
"""

from __future__ import annotations

import attrs

from runctx.sources.proctext import Pressure
from runctx.unknown import Unknown

__all__ = ["Load", "Pressure"]


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
