"""What a scan could not see, so that an empty list is never read as a quiet box."""

from __future__ import annotations

import attrs

PROC_FS = b"proc"


@attrs.frozen
class ProcMount:
    """The options of the procfs mount that bound who sees whom."""

    hidepid: str
    subset_pid: bool


@attrs.frozen
class Visibility:
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


_HIDEPID_NAMES = {"0": "off", "1": "noaccess", "2": "invisible", "4": "ptraceable"}


def parse_proc_mount(mountinfo: bytes, mount_point: bytes = b"/proc") -> ProcMount | None:
    """Find the procfs mounted at ``mount_point`` in a ``mountinfo`` text.

    The super options follow the ``-`` separator: ``- proc proc rw,hidepid=2``.
    """
    for line in mountinfo.splitlines():
        fields = line.split(b" ")
        if len(fields) < 5 or fields[4] != mount_point or b"-" not in fields:  # noqa: PLR2004
            continue
        tail = fields[fields.index(b"-") + 1 :]
        if len(tail) < 3 or tail[0] != PROC_FS:  # noqa: PLR2004 - fstype, source, options
            continue
        hidepid = "off"
        subset_pid = False
        for option in tail[2].split(b","):
            key, _, value = option.partition(b"=")
            if key == b"hidepid":
                text = value.decode(errors="replace")
                hidepid = _HIDEPID_NAMES.get(text, text)
            elif key == b"subset" and value == b"pid":
                subset_pid = True
        return ProcMount(hidepid=hidepid, subset_pid=subset_pid)
    return None


def describe_limits(  # noqa: PLR0913 - each count is its own fact
    *,
    source: str,
    mount: ProcMount | None,
    own_namespace: bool,
    listed: int,
    unreadable: int,
    zombies: int,
    run_fields_unreadable: dict[str, int],
) -> Visibility:
    """Gather the limits of a scan into a :class:`Visibility` with plain notes."""
    notes = []
    hidepid = mount.hidepid if mount else "unknown"
    subset_pid = mount.subset_pid if mount else False
    if mount is None and source == "procfs":
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
    if not own_namespace and source == "procfs":
        notes.append("/proc belongs to another pid namespace: pids may not be ours")
    if unreadable:
        notes.append(f"{unreadable} of {listed} processes could not be read")
    for field, count in sorted(run_fields_unreadable.items()):
        if count:
            notes.append(f"the {field} of {count} run process(es) could not be read")
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
