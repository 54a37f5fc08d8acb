"""A file system that stops answering: what a hung network mount does to whoever looks at it.

A FUSE server (the kernel's protocol on ``/dev/fuse``, spoken here in a few
lines, so no FUSE library is needed) that answers until it is told to stop,
then reads every request and answers none. A process that asks it anything
then waits in the kernel until the server answers or dies, and no signal
ends that wait: the shape of an NFS or sshfs mount whose server went away.
Mounting needs root and ``/dev/fuse``.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from proctools import is_live, wait_for
from require import unavailable

SERVER = r"""
import ctypes, os, stat, struct, sys, time

mountpoint, control = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open("/dev/fuse", os.O_RDWR)
options = f"fd={fd},rootmode=40000,user_id=0,group_id=0,allow_other".encode()
if libc.mount(b"runctx-test", mountpoint.encode(), b"fuse", 0, options) != 0:
    sys.exit(f"mount {mountpoint}: errno {ctypes.get_errno()}")
open(os.path.join(control, "mounted"), "w").close()
header, out = struct.Struct("=IIQQIIIHH"), struct.Struct("=IiQ")
stop, held = os.path.join(control, "stop"), os.path.join(control, "held")


def reply(unique, error=0, body=b""):
    os.write(fd, out.pack(out.size + len(body), error, unique) + body)


while True:
    request = os.read(fd, 1 << 20)
    _length, opcode, unique, node, _uid, _gid, pid, _ext, _pad = header.unpack_from(request)
    if os.path.exists(stop):
        with open(held, "a") as stream:  # answered never: who waits for it
            stream.write(f"{pid}\n")
        continue
    if opcode == 26:  # INIT: protocol 7.31, nothing more
        reply(unique, 0, struct.pack("=IIIIHHIIHHII", 7, 31, 0, 0, 1, 1, 4096, 1, 1, 0, 0, 0))
    elif opcode == 3:  # GETATTR: a directory, attributes never cached
        now = int(time.time())
        attributes = struct.pack(
            "=QQQQQQIIIIIIIIII", node, 0, 0, now, now, now, 0, 0, 0,
            stat.S_IFDIR | 0o755, 2, 0, 0, 0, 4096, 0,
        )
        reply(unique, 0, struct.pack("=QII", 0, 0, 0) + attributes)
    elif opcode == 1:  # LOOKUP: nothing is there
        reply(unique, -2)
    else:
        reply(unique, -38)  # ENOSYS: the kernel does without
"""
"""The server: MOUNTPOINT CONTROL; stops answering once CONTROL/stop exists."""

MNT_DETACH = 2


class StoppingFileSystem:
    """A mounted file system that answers until :meth:`stop_answering`."""

    def __init__(self, mountpoint: Path, control: Path) -> None:
        """Where it is mounted, and the directory through which it is told to stop."""
        self.mountpoint = mountpoint
        self.control = control

    def stop_answering(self) -> None:
        """From now on, every request waits for ever (until the server dies)."""
        (self.control / "stop").touch()

    def held(self) -> set[int]:
        """The pids (threads) whose requests were left unanswered."""
        path = self.control / "held"
        return {int(line) for line in path.read_text().split()} if path.exists() else set()


@contextlib.contextmanager
def file_system_that_stops_answering(
    parent: Path, name: str = "mnt"
) -> Iterator[StoppingFileSystem]:
    """A :class:`StoppingFileSystem` mounted at ``parent/name``, taken down at the end.

    At the end its server is killed (its group), which aborts the connection:
    every request left waiting fails, and whoever waited goes on; then the
    mount is detached. Each process whose request was held is waited for.
    """
    if not os.path.exists("/dev/fuse"):
        unavailable("/dev/fuse is not here: no file system can be made to stop answering")
    mountpoint, control = parent / name, parent / "fuse-control"
    mountpoint.mkdir()
    control.mkdir()
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(mountpoint), str(control)], start_new_session=True
    )
    made = StoppingFileSystem(mountpoint, control)
    try:
        wait_for(
            lambda: (control / "mounted").exists() or server.poll() is not None,
            what="the FUSE server to mount",
        )
        if server.poll() is not None:
            unavailable(f"a FUSE file system could not be mounted (exit {server.returncode})")
        yield made
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGKILL)
        server.wait()
        ctypes.CDLL(None, use_errno=True).umount2(str(mountpoint).encode(), MNT_DETACH)
        for pid in made.held():
            wait_for(lambda pid=pid: not is_live(pid), what=f"pid {pid}, held by the mount, to end")
