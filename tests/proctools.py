"""Real processes for tests: starting them orphaned or as another uid, and facts about them.

A run that must look foreign is started orphaned (double fork and ``setsid``):
a plain child of the test process would fold into the run executing the suite.
Tests get their processes through the ``runs`` fixture (:mod:`runfactory`),
which reaps everything by process group; this module holds the pieces.

Facts about processes (state, parent, process group, start) come from psutil
and from plain syscalls (``getpgid``), never from runctx and never from a
hand-written ``/proc`` parser: the tests check runctx against an oracle that
shares no code with it.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import psutil
from readable import mirror

OTHER_UID = 65534  # nobody: the owner of "another user's" runs
VIEWER_UID = 65533  # a second unprivileged uid, for a viewer that is neither root nor the owner
WAIT_SECONDS = 30.0
PYTHON = sys.executable
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
_ENDED = (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)


def wait_for(predicate, timeout: float = WAIT_SECONDS, what: str = "condition") -> None:
    """Poll ``predicate`` until it is true; fail with ``what`` after ``timeout``.

    The timeout only bounds a hang: no test depends on how long anything takes.
    """
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            msg = f"timed out after {timeout}s waiting for {what}"
            raise AssertionError(msg)
        time.sleep(0.02)


# -- facts, from psutil ---------------------------------------------------------------


def status(pid: int) -> str | None:
    """The psutil status of ``pid`` (``"sleeping"``, ``"zombie"``, ...), None when no process."""
    try:
        return psutil.Process(pid).status()
    except psutil.NoSuchProcess:
        return None


def is_live(pid: int) -> bool:
    """Whether ``pid`` names a live (not zombie) process."""
    return status(pid) not in (None, *_ENDED)


def group_members(pgid: int) -> set[int]:
    """The live pids of process group ``pgid``."""
    found = set()
    for process in psutil.process_iter():
        with contextlib.suppress(OSError, psutil.Error):
            if os.getpgid(process.pid) == pgid and process.status() not in _ENDED:
                found.add(process.pid)
    return found


def group_is_gone(pgid: int) -> bool:
    """Whether process group ``pgid`` has no live member left (a zombie is not live).

    A group with no process at all is told at once by ``killpg(pgid, 0)``; only
    a group that still holds a process is looked through (:func:`group_members`),
    which reads every process of the box.
    """
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # a member of another uid is there
        pass
    return not group_members(pgid)


def children_of(pid: int) -> list[int]:
    """The live children of ``pid``."""
    found = []
    for child in psutil.Process(pid).children():
        with contextlib.suppress(psutil.NoSuchProcess):
            if child.status() not in _ENDED:
                found.append(child.pid)
    return found


def start_ticks(pid: int) -> int:
    """The start of ``pid`` in clock ticks since boot: the start token of runctx's procfs source.

    psutil gives the start as seconds since the epoch, which it computes as
    ``boot_time + ticks / SC_CLK_TCK``; subtracting the boot time and scaling
    back gives the kernel's integer exactly (the float error is far below one
    tick), so no ``/proc/PID/stat`` reader is needed.
    """
    seconds = psutil.Process(pid).create_time() - psutil.boot_time()
    return round(seconds * CLOCK_TICKS)


PF_KTHREAD = 0x00200000  # include/linux/sched.h


def kernel_threads() -> set[int]:
    """The pids of the kernel's own threads (``PF_KTHREAD`` in the flags of ``/proc/PID/stat``).

    The one fact here that psutil does not give (it has no process flags), so
    this is the suite's one reader of ``stat``: the flags are the sixth field
    after the command name, which ends at the last ``)``.
    """
    found = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                text = stat.read()
            flags = int(text[text.rfind(b")") + 2 :].split()[6])
        except (OSError, IndexError, ValueError):
            continue
        if flags & PF_KTHREAD:
            found.add(int(name))
    return found


def comm_of(pid: int) -> str:
    """The kernel's name of ``pid`` (``comm``: at most 15 characters), exactly.

    psutil's ``name()`` extends a 15-character name from the cmdline, so the
    kernel's own one-line file is read as it is: nothing is parsed.
    """
    with open(f"/proc/{pid}/comm", encoding="utf-8", errors="surrogateescape") as comm:
        return comm.read().removesuffix("\n")


def argv_of(pid: int) -> list[str]:
    """The argv of ``pid`` as the kernel shows it (bytes that are not UTF-8 surrogate-escaped)."""
    return psutil.Process(pid).cmdline()


# -- checkouts ------------------------------------------------------------------------


PYPROJECT = '[project]\nname = "proj"\nversion = "0"\n'
"""The ``pyproject.toml`` :func:`make_checkout` writes: a project that configures nothing."""


def record_of(source, pid: int):
    """The record ``source`` reads of the live process ``pid`` in a table (KeyError: none)."""
    return source.table().records[pid]


def make_checkout(parent: Path, name: str = "proj") -> Path:
    """A real git checkout; the directories it makes (the checkout, new parents) are 0755.

    A directory that was there before is never widened: another uid reaches the
    checkout only through a parent every uid may enter already (``shared_tmp``).
    """
    root = parent / name
    made = [path for path in (root, *root.parents) if not path.exists()]
    root.mkdir(parents=True)
    for path in made:
        path.chmod(0o755)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    return root


NAME_EVERY_FOREIGN_RUN = '\n[tool.runctx]\nbusy-run-cpu = 0\nforeign-note = "busy"\n'
"""Settings under which every foreign run is busy enough to be named in a note (an idle
foreign run is only counted by default, and a busy one only when it leaves too few CPUs
for the run about to start), whatever the box's load."""


def name_every_foreign_run(checkout: Path) -> Path:
    """Append :data:`NAME_EVERY_FOREIGN_RUN` to the checkout's ``pyproject.toml``."""
    with (checkout / "pyproject.toml").open("a") as pyproject:
        pyproject.write(NAME_EVERY_FOREIGN_RUN)
    return checkout


def make_worktree(main: Path, path: Path) -> Path:
    """A real ``git worktree`` of the checkout ``main`` at ``path`` (after a first commit)."""
    subprocess.run(["git", "-C", str(main), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(main), "commit", "-qm", "init"], check=True)
    subprocess.run(["git", "-C", str(main), "worktree", "add", "-q", str(path)], check=True)
    return path


# -- starting processes ---------------------------------------------------------------


class Orphan:
    """A process started orphaned: its own session, reparented away from the suite."""

    def __init__(self, pid: int) -> None:
        """Wrap the pid of the session leader."""
        self.pid = pid

    def members(self) -> set[int]:
        """The live pids of the orphan's process group."""
        return group_members(self.pid)


def spawn_orphan(
    argv: Sequence[str],
    cwd: Path,
    *,
    uid: int | None = None,
    env: dict[str, str] | None = None,
    executable: str | None = None,
) -> Orphan:
    """Start ``argv`` in ``cwd`` as a double-forked orphan, optionally as ``uid``.

    The middle process exits, so the grandchild is reparented to init (or a
    subreaper); the grandchild calls ``setsid``, so it leads its own session
    and process group, which the run factory kills whole. Returns once the
    grandchild runs ``argv``; raises when it could not start it.
    """
    if uid is not None:  # the program and its interpreter, where that uid may read them
        copies = mirror()
        executable = copies.path(executable or argv[0])
        argv = [copies.path(argv[0]), *argv[1:]]
        env = copies.environment(dict(os.environ) if env is None else env, executable)
    read_end, write_end = os.pipe()
    failed_end, exec_end = os.pipe2(os.O_CLOEXEC)  # closed by a successful execve
    middle = os.fork()
    if middle == 0:  # pragma: no cover - runs in the forked child
        try:
            os.close(read_end)
            os.close(failed_end)
            grandchild = os.fork()
            if grandchild == 0:
                os.close(write_end)
                try:
                    os.setsid()
                    if uid is not None:
                        _drop_to(uid)
                    os.chdir(cwd)
                    devnull = os.open(os.devnull, os.O_RDWR)
                    os.dup2(devnull, 0)
                    os.execve(
                        executable or argv[0],
                        list(argv),
                        env if env is not None else dict(os.environ),
                    )
                except BaseException as error:  # noqa: BLE001 - told to the test, whatever it is
                    os.write(exec_end, repr(error).encode())
                finally:
                    os._exit(127)
            os.write(write_end, str(grandchild).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    os.close(exec_end)
    os.waitpid(middle, 0)
    with os.fdopen(read_end, "rb") as pipe:
        pid = int(pipe.read())
    with os.fdopen(failed_end, "rb") as pipe:
        failure = pipe.read()
    if failure:
        msg = f"{argv[0]} did not start: {failure.decode(errors='replace')}"
        raise OSError(msg)
    return Orphan(pid)


def _drop_to(uid: int) -> None:
    """Become ``uid`` for good (group ``uid``, no supplementary groups): no way back to root."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def run_as(uid: int, function, *args):
    """Call ``function(*args)`` in a forked child running as ``uid``; return its result.

    The child drops every privilege before calling, so what it reads from /proc
    is what that user really may read. What it imports after the drop comes from
    the mirror (:mod:`readable`), which that user may read wherever the suite and
    its interpreter live. The result travels back pickled.
    """
    copies = mirror()
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the forked child
        status = 0
        try:
            os.close(read_end)
            copies.enter()
            _drop_to(uid)
            copies.settle()
            payload = pickle.dumps(("ok", function(*args)))
        except BaseException as error:  # noqa: BLE001 - everything goes back to the parent
            payload = pickle.dumps(("error", repr(error)))
            status = 1
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(payload)
        os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    os.waitpid(child, 0)
    kind, value = pickle.loads(data)  # noqa: S301 - our own child's bytes
    if kind != "ok":
        msg = f"child running as uid {uid} failed: {value}"
        raise AssertionError(msg)
    return value


def interpreter_for(uid: int) -> str:
    """The suite's base interpreter (no venv) as ``uid`` may execute it: the mirror's copy.

    Started through :func:`spawn_orphan` with ``uid``, it finds its standard
    library (and a shared libpython) in the mirror, wherever the suite's sits.
    """
    del uid  # every uid may read the mirror
    return mirror().interpreter


def tmux_says(tmux: str, socket: str, *args: str, env: dict[str, str] | None = None) -> str:
    """What ``tmux`` prints for ``args`` on the server of ``socket`` (no user config read)."""
    done = subprocess.run(
        [tmux, "-L", socket, "-f", os.devnull, *args],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=30,
    )
    return done.stdout.strip()
