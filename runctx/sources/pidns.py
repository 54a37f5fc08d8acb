"""Whose pids a procfs numbers: the caller's pid namespace, or another one.

A procfs shows the pids of the pid namespace it was mounted for. A process
in a child namespace that still sees its parent's ``/proc`` (``unshare -pf``
without ``--mount-proc``) reads pids that are not its own: a pid there may
name an unrelated process of its own namespace. So runctx acts on pids
(signals, waits) only when the procfs is the caller's own, and finds the
caller in it through ``NSpid`` (:func:`caller_pid`).
"""

from __future__ import annotations

import os

from runctx.sources.proctext import parse_status_nspid
from runctx.unknown import Reason, Unknown


def _read(path: str) -> bytes | OSError:
    try:
        with open(path, "rb") as stream:
            return stream.read(65536)
    except OSError as error:
        return error


def _nspid(proc: str) -> tuple[int, ...] | Unknown:
    """The caller's pids from the procfs's namespace down to its own, or why not known.

    ``NSpid`` of ``PROC/self/status`` lists the caller's pid in the procfs's
    namespace first and in its own namespace last; the last must be
    :func:`os.getpid`. Without ``NSpid`` (kernels before 4.1), ``PROC/self``
    must name the caller's pid, and the procfs is taken as its own.
    """
    data = _read(f"{proc}/self/status")
    if isinstance(data, OSError):
        return Unknown(Reason.ABSENT, f"{proc}/self: the caller is not in this procfs")
    pids = parse_status_nspid(data)
    if isinstance(pids, Unknown):
        try:
            named = int(os.readlink(f"{proc}/self"))
        except (OSError, ValueError):
            return Unknown(Reason.ABSENT, f"{proc}/self: the caller is not in this procfs")
        if named != os.getpid():
            return Unknown(Reason.ABSENT, f"{proc} is another pid namespace's, without NSpid")
        return (named,)
    if pids[-1] != os.getpid():
        return Unknown(Reason.UNPARSABLE, f"{proc}/self/status: NSpid does not end in our pid")
    return pids


def caller_pid(proc: str = "/proc") -> int | Unknown:
    """The calling process's pid as the procfs at ``proc`` numbers it, or why it has none."""
    pids = _nspid(proc)
    return pids if isinstance(pids, Unknown) else pids[0]


def own_pid_namespace(proc: str = "/proc") -> bool:
    """Whether the procfs at ``proc`` is of the caller's own pid namespace."""
    pids = _nspid(proc)
    return not isinstance(pids, Unknown) and len(pids) == 1


def other_namespace_reason(source_name: str, caller: int | Unknown) -> str:
    """Why runctx signals and waits for nothing when a source's pids are another namespace's."""
    numbered = ""
    if isinstance(caller, int):
        numbered = f" (it numbers this process {caller}, not {os.getpid()})"
    return (
        f"the {source_name} source reads a /proc of another pid namespace{numbered}: its "
        "pids are not this process's, and one may name an unrelated process here, so "
        "runctx acts on none of them; run it where /proc is this pid namespace's "
        "(unshare --mount-proc, or from the namespace that owns the run)"
    )
