"""Knowing a test run when you see one: the runner table and the walk over an argv.

- :mod:`runctx.runners.pattern`: the row type (:class:`RunnerPattern`) and what a
  lookup finds (:class:`RunnerMatch`);
- :mod:`runctx.runners.table`: the builtin rows, data only;
- :mod:`runctx.runners.wrappers`: how wrappers and interpreters are seen through;
- :mod:`runctx.runners.programs`: names and option lists both tables share;
- :mod:`runctx.runners.walk`: :func:`resolve_command` (one argv, or one simple
  command of a shell string);
- :mod:`runctx.runners.detect`: :func:`detect_runner` (an argv read from ``/proc``,
  a live shell's string read by :mod:`runctx.shell`);
- :mod:`runctx.runners.tasks`: a task runner's task, read from the project's files;
- :mod:`runctx.runners.needles`: the table's names, for the pre-filter;
- :mod:`runctx.runners.comms`: which ``comm`` names are worth reading a cmdline for.

The same table and the same walk serve both faces of runctx: the scan of live
processes and the hook's reading of a command string. Users add rows in
``[tool.runctx]`` and in their own configuration file (:mod:`runctx.settings`).
Everything here is loaded on first use: the hook's path for a command that is
not a test run imports only :mod:`runctx.runners.needles`.
"""

from __future__ import annotations

from runctx import lazy_attribute

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.runners.catalog import RUNNER_KINDS
    from runctx.runners.detect import detect_runner
    from runctx.runners.pattern import (
        DEFAULT_NOT_WITH,
        ROLES,
        RUNNER_ROLE,
        TASK_ROLE,
        WORKER_ROLE,
        WRAPPER_ROLE,
        RunnerMatch,
        RunnerPattern,
    )
    from runctx.runners.table import BUILTIN_PATTERNS
    from runctx.runners.walk import MAX_ARGV_WORDS, CommandResolution, resolve_command


__all__ = [
    "BUILTIN_PATTERNS",
    "DEFAULT_NOT_WITH",
    "MAX_ARGV_WORDS",
    "ROLES",
    "RUNNER_KINDS",
    "RUNNER_ROLE",
    "TASK_ROLE",
    "WORKER_ROLE",
    "WRAPPER_ROLE",
    "CommandResolution",
    "RunnerMatch",
    "RunnerPattern",
    "detect_runner",
    "resolve_command",
]

_HOMES = {
    "DEFAULT_NOT_WITH": "runctx.runners.pattern",
    "ROLES": "runctx.runners.pattern",
    "RUNNER_ROLE": "runctx.runners.pattern",
    "TASK_ROLE": "runctx.runners.pattern",
    "WRAPPER_ROLE": "runctx.runners.pattern",
    "WORKER_ROLE": "runctx.runners.pattern",
    "RunnerMatch": "runctx.runners.pattern",
    "RunnerPattern": "runctx.runners.pattern",
    "BUILTIN_PATTERNS": "runctx.runners.table",
    "CommandResolution": "runctx.runners.walk",
    "MAX_ARGV_WORDS": "runctx.runners.walk",
    "RUNNER_KINDS": "runctx.runners.catalog",
    "detect_runner": "runctx.runners.detect",
    "resolve_command": "runctx.runners.walk",
}


def __getattr__(name: str) -> object:
    """Load a public name from its module on first use."""
    return lazy_attribute(globals(), _HOMES, __name__, name)


def __dir__() -> list[str]:
    """The public names."""
    return sorted(__all__)
