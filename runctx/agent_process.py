"""The agent process a hook answers, and whether a run descends from it.

An agent runs its hooks and its shell tool's commands as its own children
(through a shell or not). So the process that runs a hook, climbed past the
shells and launchers in between, is the agent itself; a run whose chain of
live parents reaches that very process (the same pid *and* the same start
time, so a reused pid is never taken for it) was started by this agent
process: through its shell tool, in the foreground or in the background.

This is how a session's own runs are known where the agent's shell tool
does not hand its commands the session id (Gemini CLI gives them only
``GEMINI_CLI=1``): what every process inherits from its parent is the
process tree itself. A run that lost its parent (reparented to init, or to a
subreaper) no longer descends from anything and is never called own here.

Linux only (``/proc``); elsewhere the agent process is unknown, with the
reason, and no run descends from it.
"""

from __future__ import annotations

import os

import attrs

from runctx.record_base import Record
from runctx.sources.proctext import StatFields, parse_stat
from runctx.unknown import Reason, Unknown

PROC = "/proc"
CHAIN_MAX = 64
"""The most parents climbed, from a hook or from a run: a bound whatever the tree."""
STAT_READ_MAX = 4096

PASSED_THROUGH = frozenset(
    {
        "sh",
        "bash",
        "dash",
        "zsh",
        "ksh",
        "mksh",
        "fish",
        "busybox",
        "env",
        "timeout",
        "nice",
        "nohup",
        "stdbuf",
        "uv",
        "uvx",
        "pipx",
        "runctx",
    }
)
"""Process names (``comm``) between an agent and its hook that are not the agent: the
shells that run the hook's command, and the launchers of runctx itself."""


@attrs.frozen(repr=False, eq=False)
class AgentProcess(Record):
    """One live process, named by its pid and its start time (clock ticks after boot)."""

    pid: int
    start_ticks: int


def _stat(pid: int, proc: str) -> StatFields | None:
    try:
        fd = os.open(f"{proc}/{pid}/stat", os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        data = os.read(fd, STAT_READ_MAX)
    except OSError:
        return None
    finally:
        os.close(fd)
    found = parse_stat(data)
    return None if isinstance(found, Unknown) else found


class _Hook:
    """Who started the hook this process answers for, when the hook forked it to answer."""

    parent: int | None = None


def answering_for(hook_parent: int) -> None:
    """Note that the calling process answers for a hook ``hook_parent`` started, which forked it.

    :func:`hook_agent` then climbs from ``hook_parent``, not from the hook.
    """
    _Hook.parent = hook_parent


def hook_agent(start: int | None = None, proc: str = PROC) -> AgentProcess | Unknown:
    """The agent process that runs this hook: the nearest ancestor that is no shell.

    ``start`` is the pid to climb from (default: the hook's parent: this
    process's, or the one :func:`answering_for` names).
    """
    if start is None:
        start = _Hook.parent if _Hook.parent is not None else os.getppid()
    pid = start
    for _ in range(CHAIN_MAX):
        fields = _stat(pid, proc)
        if fields is None:
            return Unknown(Reason.GONE, f"pid {pid} could not be read in {proc}")
        if fields.comm not in PASSED_THROUGH:
            if fields.pid <= 1:
                return Unknown(Reason.ABSENT, "no agent process above the hook")
            return AgentProcess(fields.pid, fields.start_ticks)
        pid = fields.ppid
    return Unknown(Reason.ABSENT, f"no agent process within {CHAIN_MAX} parents")


def descends_from(pid: int, agent: AgentProcess, proc: str = PROC) -> bool:
    """Whether the live process ``pid`` has ``agent`` among its live parents.

    False when any link cannot be read: never a guess.
    """
    current = pid
    for _ in range(CHAIN_MAX):
        fields = _stat(current, proc)
        if fields is None or fields.ppid <= 1:
            return False
        current = fields.ppid
        if current == agent.pid:
            parent = _stat(current, proc)
            return parent is not None and parent.start_ticks == agent.start_ticks
    return False
