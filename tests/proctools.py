"""Real processes for tests: orphaned runs, other uids, readiness, cleanup.

A run that must look foreign is started orphaned (double fork and ``setsid``):
a plain child of the test process would fold into the run executing the suite.
Every process started here is cleaned up by its own process group, never by name.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

OTHER_UID = 65534  # nobody: the owner of "another user's" runs
VIEWER_UID = 65533  # a second unprivileged uid, for a viewer that is neither root nor the owner
WAIT_SECONDS = 30.0


def wait_for(predicate, timeout: float = WAIT_SECONDS, what: str = "condition") -> None:
    """Poll ``predicate`` until it is true; fail with ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            msg = f"timed out after {timeout}s waiting for {what}"
            raise AssertionError(msg)
        time.sleep(0.02)


def is_live(pid: int) -> bool:
    """Whether ``pid`` names a live (not zombie) process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 :][:1] not in (b"Z", b"X")


def make_checkout(parent: Path, name: str = "proj") -> Path:
    """A real git checkout that other uids may enter (mode 0755 up the tree)."""
    root = parent / name
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "pyproject.toml").write_text('[project]\nname = "proj"\nversion = "0"\n')
    for path in (root, *root.parents):
        if path == Path("/tmp") or str(path) == "/":
            break
        with contextlib.suppress(PermissionError):
            path.chmod(path.stat().st_mode | 0o755)
    return root


class Orphan:
    """A process started orphaned: its own session, reparented away from the suite."""

    def __init__(self, pid: int) -> None:
        """Wrap the pid of the session leader."""
        self.pid = pid

    def kill(self) -> None:
        """Kill the whole process group the orphan leads, and wait until it is gone."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        wait_for(lambda: not is_live(self.pid), what=f"pid {self.pid} to die")

    def members(self) -> set[int]:
        """The live pids of the orphan's process group."""
        found = set()
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                stat = Path(f"/proc/{name}/stat").read_bytes()
            except OSError:
                continue
            fields = stat[stat.rfind(b")") + 2 :].split()
            if int(fields[2]) == self.pid and fields[0] not in (b"Z", b"X"):
                found.add(int(name))
        return found


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
    and process group, which :meth:`Orphan.kill` kills whole.
    """
    read_end, write_end = os.pipe()
    middle = os.fork()
    if middle == 0:  # pragma: no cover - runs in the forked child
        try:
            os.close(read_end)
            grandchild = os.fork()
            if grandchild == 0:
                os.close(write_end)
                os.setsid()
                if uid is not None:
                    os.setgroups([])
                    os.setgid(uid)
                    os.setuid(uid)
                os.chdir(cwd)
                devnull = os.open(os.devnull, os.O_RDWR)
                os.dup2(devnull, 0)
                os.execve(
                    executable or argv[0], list(argv), env if env is not None else dict(os.environ)
                )
            os.write(write_end, str(grandchild).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    os.waitpid(middle, 0)
    with os.fdopen(read_end, "rb") as pipe:
        pid = int(pipe.read())
    return Orphan(pid)


@contextlib.contextmanager
def orphan(argv: Sequence[str], cwd: Path, **kwargs) -> Iterator[Orphan]:
    """``spawn_orphan`` as a context manager that always kills the process group."""
    started = spawn_orphan(argv, cwd, **kwargs)
    try:
        yield started
    finally:
        started.kill()


def run_as(uid: int, function, *args):
    """Call ``function(*args)`` in a forked child running as ``uid``; return its result.

    The child drops every privilege before calling, so what it reads from /proc
    is what that user really may read. The result travels back pickled.
    """
    import pickle

    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the forked child
        status = 0
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
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


def require_root() -> None:
    """Fail (never skip) in CI when the test cannot drop to other uids."""
    if os.geteuid() == 0:
        return
    if os.environ.get("CI"):
        msg = "this test needs root (CI runs as root) to start processes under other uids"
        raise AssertionError(msg)
    import pytest

    pytest.skip("needs root to start processes under other uids")


PYTHON = sys.executable


def interpreter_for(uid: int) -> str:
    """An interpreter that ``uid`` may execute (the suite's may sit in a private home)."""
    import shutil

    candidates = [os.path.realpath(PYTHON), shutil.which("python3") or "", "/usr/bin/python3"]
    for candidate in candidates:
        if candidate and run_as(uid, os.access, candidate, os.X_OK):
            return candidate
    msg = f"no python interpreter is executable by uid {uid}: {candidates}"
    raise AssertionError(msg)
