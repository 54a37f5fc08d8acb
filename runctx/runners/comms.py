"""Which processes are worth reading a command line for, judged by their ``comm`` alone.

A scan reads ``/proc/PID/stat`` of every process (its parent, state and start
time fold the runs) but needs ``/proc/PID/cmdline`` only of processes that can
start or be part of a run. The kernel's ``comm`` (in ``stat``) is the basename
of the file the process executed, cut to 15 characters, or the name it gave
itself (``prctl(PR_SET_NAME)``, which node's ``process.title`` and
setproctitle also set): so a process can start a run only if its ``comm`` is

- a program of the runner table (``pytest``, ``jest``, ``make``; a shebang
  script is its own name), a wrapper (``env``, ``timeout``, ``npx``), a shell,
  or an interpreter that runs scripts (``node``, ``ruby``, ``java``, ``php``,
  any ``python*``/``pypy*``), each cut to 15 characters;
- or a title whose first word is one of those (``npm test``, ``[pytest-xdist
  running] ...``);
- or a name matching a row's program glob (``unit_tests``), or any 15-character
  name that starts as one could (the kernel cut its end);
- or the name of a tool binary that runs a wrapper's argv under its own name
  (valgrind's ``memcheck-amd64-linux``).

Everything the walk (:mod:`runctx.runners.walk`) can look at first is in
:attr:`~runctx.runners.index.Index.first_words`, so the filter is built from
the same table the scan detects with, user rows included: it loses nothing
that detection could find, but for a row of any program named by its
options alone (``./unit --gtest_filter=…``, a program glob ``*``): reading
every process's command line to find one would cost every scan, so such a
program is a run in a command the hook is asked about, and seen live only
where its name says so too. The test suite checks the filter on real
processes for every program of the table.
"""

from __future__ import annotations

from runctx.runners.index import index_for
from runctx.runners.pattern import glob
from runctx.runners.wrappers import PYTHON_PREFIXES, TOOL_COMMS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from runctx.runners.pattern import RunnerPattern

COMM_LENGTH = 15
"""The kernel keeps this many characters of a process name (``TASK_COMM_LEN`` - 1)."""
_MAX_DECIDED = 4096
"""Distinct names remembered by one filter (one scan): a box has far fewer."""


def comm_names(patterns: Sequence[RunnerPattern]) -> frozenset[str]:
    """Every name a runner, wrapper, shell or interpreter of ``patterns`` can have as ``comm``."""
    return frozenset(name[:COMM_LENGTH] for name in index_for(patterns).first_words)


def _globbed(comm: str, globs: tuple[str, ...]) -> bool:
    """Whether ``comm`` matches a program glob, or may be the cut start of a name that does.

    A name of 15 characters may have been cut by the kernel: its end is not
    known, so only the start of each glob is compared.
    """
    if any(glob(comm, pattern) for pattern in globs):
        return True
    if len(comm) < COMM_LENGTH:
        return False
    return any(comm.startswith(pattern.partition("*")[0]) for pattern in globs)


def argv_filter(patterns: Sequence[RunnerPattern]) -> Callable[[str], bool]:
    """A predicate on ``comm``: False only for a process whose cmdline cannot match ``patterns``."""
    names = comm_names(patterns)
    globs = tuple(p for row in index_for(patterns).globbed for p in row.program_globs if p != "*")
    tools = TOOL_COMMS

    decided: dict[str, bool] = {}  # many processes share a name (workers, sleeps, shells)

    def could_run(comm: str) -> bool:
        known = decided.get(comm)
        if known is not None:
            return known
        # psutil extends a cut name from argv[0]: compare the cut form too.
        first = comm.partition(" ")[0]
        answer = (
            comm[:COMM_LENGTH] in names
            or comm.startswith(PYTHON_PREFIXES)
            or first[:COMM_LENGTH] in names
            or first.rpartition("/")[2][:COMM_LENGTH] in names
            or bool(globs and _globbed(comm, globs))
            or any(glob(comm, pattern) for pattern in tools)
        )
        if len(decided) < _MAX_DECIDED:
            decided[comm] = answer
        return answer

    return could_run
