"""Knowing a test run when you see one: the runner table and the walk over an argv.

- :mod:`runctx.runners.pattern`: the row type (:class:`RunnerPattern`) and what a
  lookup finds (:class:`RunnerMatch`);
- :mod:`runctx.runners.table`: the builtin rows, data only;
- :mod:`runctx.runners.wrappers`: how wrappers and interpreters are seen through;
- :mod:`runctx.runners.walk`: :func:`detect_runner` (an argv read from ``/proc``)
  and :func:`resolve_command` (one simple command of a shell string).

The same table and the same walk serve both faces of runctx: the scan of live
processes and the hook's reading of a command string. Users add rows in
``[tool.runctx]`` (:mod:`runctx.settings`). Everything here is imported on the
hook's hot path: standard library only, nothing beyond what ``json`` loads.
"""

from runctx.runners.pattern import (
    DEFAULT_NOT_WITH,
    ROLES,
    RUNNER_ROLE,
    WORKER_ROLE,
    RunnerMatch,
    RunnerPattern,
)
from runctx.runners.table import BUILTIN_PATTERNS
from runctx.runners.walk import MAX_ARGV_WORDS, CommandResolution, detect_runner, resolve_command

RUNNER_KINDS: tuple[str, ...] = tuple(dict.fromkeys(p.kind for p in BUILTIN_PATTERNS))
"""Every builtin kind, in table order."""

__all__ = [
    "BUILTIN_PATTERNS",
    "DEFAULT_NOT_WITH",
    "MAX_ARGV_WORDS",
    "ROLES",
    "RUNNER_KINDS",
    "RUNNER_ROLE",
    "WORKER_ROLE",
    "CommandResolution",
    "RunnerMatch",
    "RunnerPattern",
    "detect_runner",
    "resolve_command",
]
