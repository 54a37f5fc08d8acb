"""runctx: which test runs are live here, which are ours, and which are foreign.

Take a scan (:func:`scan`) from the viewpoint of the current process
(:func:`viewpoint`) and read the :class:`Report`: its runs, each judged ours or
foreign with its reasons (:func:`is_foreign`, :func:`judge`), who started it
(:class:`StartedBy`), its CPU use now (``scan(cpu_window=...)``), the box's
load and memory, and what could not be seen. :func:`wait_for_turn` waits for
this checkout's other runs; :func:`stop_runs` stops runs known to be ours,
:func:`stop_orphans` this checkout's orphaned ones.

The names below are loaded on first use, so that ``import runctx`` stays cheap
for the hook that runs before every shell command.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from runctx.checkout import Root, checkout_root, same_directory
    from runctx.environment import Environment, command_environment, same_environment
    from runctx.exceptions import ConfigError, RunctxError
    from runctx.folding import FoldedRun, fold_runs
    from runctx.identity import HasOwner, Judgement, Verdict, foreign_reasons, is_foreign, judge
    from runctx.present.escape import visible
    from runctx.present.json import report_json
    from runctx.records import ProcIdentity, ProcRecord
    from runctx.report import JudgedRun, Report, Run, StartedBy, Viewpoint
    from runctx.runners import RunnerMatch, RunnerPattern, detect_runner
    from runctx.scanning import scan, viewpoint
    from runctx.sources import ProcessSource
    from runctx.sources.load import Load, MemInfo, Pressure
    from runctx.sources.visibility import Visibility
    from runctx.stopping import StopResult, StopStatus, stop_orphans, stop_runs
    from runctx.unknown import Reason, Unknown
    from runctx.waiting import WaitOutcome, blocking_runs, wait_for_turn

__all__ = [
    "ConfigError",
    "Environment",
    "FoldedRun",
    "HasOwner",
    "JudgedRun",
    "Judgement",
    "Load",
    "MemInfo",
    "Pressure",
    "ProcIdentity",
    "ProcRecord",
    "ProcessSource",
    "Reason",
    "Report",
    "Root",
    "Run",
    "RunctxError",
    "RunnerMatch",
    "RunnerPattern",
    "StartedBy",
    "StopResult",
    "StopStatus",
    "Unknown",
    "Verdict",
    "Viewpoint",
    "Visibility",
    "WaitOutcome",
    "__version__",
    "blocking_runs",
    "checkout_root",
    "command_environment",
    "detect_runner",
    "fold_runs",
    "foreign_reasons",
    "is_foreign",
    "judge",
    "report_json",
    "same_directory",
    "same_environment",
    "scan",
    "stop_orphans",
    "stop_runs",
    "viewpoint",
    "visible",
    "wait_for_turn",
]

_HOMES = {
    "checkout_root": "runctx.checkout",
    "Root": "runctx.checkout",
    "same_directory": "runctx.checkout",
    "ConfigError": "runctx.exceptions",
    "Environment": "runctx.environment",
    "command_environment": "runctx.environment",
    "same_environment": "runctx.environment",
    "RunctxError": "runctx.exceptions",
    "HasOwner": "runctx.identity",
    "Judgement": "runctx.identity",
    "Verdict": "runctx.identity",
    "foreign_reasons": "runctx.identity",
    "is_foreign": "runctx.identity",
    "judge": "runctx.identity",
    "report_json": "runctx.present.json",
    "visible": "runctx.present.escape",
    "Load": "runctx.sources.load",
    "Pressure": "runctx.sources.load",
    "MemInfo": "runctx.sources.load",
    "ProcIdentity": "runctx.records",
    "ProcRecord": "runctx.records",
    "Report": "runctx.report",
    "Viewpoint": "runctx.report",
    "RunnerMatch": "runctx.runners",
    "RunnerPattern": "runctx.runners",
    "detect_runner": "runctx.runners",
    "FoldedRun": "runctx.folding",
    "JudgedRun": "runctx.report",
    "Run": "runctx.report",
    "StartedBy": "runctx.report",
    "fold_runs": "runctx.folding",
    "scan": "runctx.scanning",
    "viewpoint": "runctx.scanning",
    "ProcessSource": "runctx.sources",
    "StopResult": "runctx.stopping",
    "StopStatus": "runctx.stopping",
    "stop_runs": "runctx.stopping",
    "stop_orphans": "runctx.stopping",
    "Reason": "runctx.unknown",
    "Unknown": "runctx.unknown",
    "Visibility": "runctx.sources.visibility",
    "WaitOutcome": "runctx.waiting",
    "blocking_runs": "runctx.waiting",
    "wait_for_turn": "runctx.waiting",
}


def __getattr__(name: str) -> object:
    """Load a public name from its module on first use."""
    if name == "__version__":
        from importlib.metadata import version  # noqa: PLC0415

        return version("runctx")
    return lazy_attribute(globals(), _HOMES, __name__, name)


def lazy_attribute(
    namespace: dict[str, object], homes: Mapping[str, str], package: str, name: str
) -> object:
    """A package's public ``name``, loaded from its module in ``homes`` and kept in ``namespace``.

    What a package's ``__getattr__`` answers (this one's, :mod:`runctx.runners`'):
    the module is imported on first use only; AttributeError for a name it has not.
    """
    home = homes.get(name)
    if home is None:
        msg = f"module {package!r} has no attribute {name!r}"
        raise AttributeError(msg)
    __import__(home)  # importlib.import_module would import warnings, on the hook's path
    value = getattr(sys.modules[home], name)
    namespace[name] = value
    return value


def __dir__() -> list[str]:
    """The public names."""
    return sorted(__all__)
