"""What a scan could not see, so that an empty list is never read as a quiet box."""

from __future__ import annotations

import attrs

from runctx.record_base import Record
from runctx.sources.proctext import ProcMount
from runctx.unknown import Reason, Unknown


@attrs.frozen(repr=False, eq=False)
class Visibility(Record):
    """The limits of one scan.

    ``notes`` says in words what could not be seen; the counts say how much.
    """

    source: str
    hidepid: str
    subset_pid: bool
    own_pid_namespace: bool
    processes_listed: int
    processes_unreadable: int
    zombies: int
    run_fields_unreadable: dict[str, int]
    notes: tuple[str, ...]


def describe_limits(  # noqa: PLR0913 - each count is its own fact
    *,
    source: str,
    mount: ProcMount | Unknown,
    own_namespace: bool,
    listed: int,
    unreadable: int,
    zombies: int,
    run_fields_unreadable: dict[str, int],
) -> Visibility:
    """Gather the limits of a scan into a :class:`Visibility` with plain notes."""
    notes = []
    hidepid = mount.hidepid if not isinstance(mount, Unknown) else "unknown"
    subset_pid = mount.subset_pid if not isinstance(mount, Unknown) else False
    if isinstance(mount, Unknown) and mount.reason is not Reason.ABSENT:
        notes.append("the procfs mount options could not be read")
    if hidepid in ("invisible", "ptraceable"):
        notes.append(
            f"/proc is mounted with hidepid={hidepid}: other users' processes are not "
            "listed at all, so their runs cannot be seen"
        )
    elif hidepid == "noaccess":
        notes.append(
            "/proc is mounted with hidepid=noaccess: other users' processes are listed "
            "but cannot be read"
        )
    if subset_pid:
        notes.append("/proc is mounted with subset=pid: load and pressure are hidden")
    if not own_namespace:
        notes.append("/proc belongs to another pid namespace: pids may not be ours")
    if unreadable:
        notes.append(f"{unreadable} of {listed} processes could not be read")
    for field, count in sorted(run_fields_unreadable.items()):
        if count:
            processes = "run process" if count == 1 else "run processes"
            notes.append(f"the {field} of {count} {processes} could not be read")
    return Visibility(
        source=source,
        hidepid=hidepid,
        subset_pid=subset_pid,
        own_pid_namespace=own_namespace,
        processes_listed=listed,
        processes_unreadable=unreadable,
        zombies=zombies,
        run_fields_unreadable=run_fields_unreadable,
        notes=tuple(notes),
    )
