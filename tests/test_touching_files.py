"""The one way runctx touches files: bounded reads, atomic writes of regular files, one walk up.

Every write goes through :func:`runctx.planted.write_atomically` and every walk
up the tree through :func:`runctx.checkout.nearest_holding`, with the markers'
owner rule. Files another user owns are planted for real by that uid.
"""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest
from proctools import OTHER_UID, VIEWER_UID, run_as

from runctx.checkout import nearest_holding, rules_for
from runctx.environment import command_environment
from runctx.planted import (
    NotOwnedError,
    NotRegularFileError,
    check_owned,
    small_text,
    write_atomically,
)
from runctx.runners.tasks.files import found_above

REPOSITORY = Path(__file__).resolve().parent.parent


def test_a_regular_file_is_replaced_and_keeps_its_mode(tmp_path):
    """A file replaced keeps its mode, never widened; a new one gets 0666 less the umask."""
    target = tmp_path / "out.prom"
    target.write_text("old")
    target.chmod(0o600)
    write_atomically(str(target), b"new")
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    fresh = tmp_path / "fresh"
    umask = os.umask(0o022)
    try:
        write_atomically(str(fresh), b"x")
    finally:
        os.umask(umask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh", "out.prom"]  # no leftovers


def _non_regular(tmp_path: Path) -> dict[str, Path]:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "elsewhere")
    directory = tmp_path / "dir"
    directory.mkdir()
    sock = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock))
    server.close()
    return {"FIFO": fifo, "symbolic link": link, "directory": directory, "socket": sock}


def test_nothing_but_a_regular_file_is_written_through(tmp_path):
    """A FIFO, a link, a directory, a socket at the target: refused, left as they were."""
    for kind, path in _non_regular(tmp_path).items():
        before = os.lstat(path)
        with pytest.raises(NotRegularFileError, match=kind):
            write_atomically(str(path), b"data")
        after = os.lstat(path)
        assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode), kind
    assert not (tmp_path / "elsewhere").exists()
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name]


@pytest.mark.needs_root
def test_a_device_is_never_replaced(tmp_path):
    """A character device (what ``/dev/null`` is) stays a device."""
    device = tmp_path / "null"
    os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    with pytest.raises(NotRegularFileError, match="character device"):
        write_atomically(str(device), b"data")
    assert stat.S_ISCHR(os.lstat(device).st_mode)


@pytest.mark.needs_root
def test_only_a_file_a_trusted_owner_made_and_nobody_else_may_write_is_edited(shared_tmp):
    """Another uid's file, or a group/world-writable one: refused with the reason."""
    shared = shared_tmp / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    theirs = shared / "theirs.json"
    run_as(OTHER_UID, lambda: theirs.write_text("{}"))
    owners = rules_for([VIEWER_UID]).owners
    with pytest.raises(NotOwnedError, match=f"uid {OTHER_UID}"):
        check_owned(str(theirs), owners)
    with pytest.raises(NotOwnedError):
        write_atomically(str(theirs), b"{}", owners=owners)
    assert theirs.stat().st_uid == OTHER_UID
    mine = shared / "mine.json"
    mine.write_text("{}")
    os.chown(mine, VIEWER_UID, VIEWER_UID)
    mine.chmod(0o666)
    with pytest.raises(NotOwnedError, match="0666"):
        check_owned(str(mine), owners)
    mine.chmod(0o644)
    write_atomically(str(mine), b"[]", owners=owners)
    assert mine.read_text() == "[]"
    assert (mine.stat().st_uid, stat.S_IMODE(mine.stat().st_mode)) == (VIEWER_UID, 0o644)
    sudo = rules_for([0], {"SUDO_UID": str(VIEWER_UID), "HOME": "/"}).owners
    assert check_owned(str(mine), sudo) is not None  # root under sudo edits the invoker's


def test_small_text_is_bounded_and_never_raises(tmp_path):
    """Too large, a FIFO, a NUL or a lone surrogate in the path: None, never an exception."""
    big = tmp_path / "big"
    big.write_bytes(b"x" * 100)
    assert small_text(str(big), 99) is None
    assert small_text(str(big), 100) == "x" * 100
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (str(fifo), "a\0b", "\udcff/x"):
        assert small_text(path) is None


def test_the_walk_finds_the_nearest_file_and_skips_what_is_not(tmp_path):
    """The nearest regular file of the names; a FIFO or a directory of that name is none."""
    (tmp_path / "justfile").write_text("")
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    os.mkfifo(tmp_path / "a" / "justfile")
    assert nearest_holding(str(sub), ["justfile"]) == str(tmp_path / "justfile")
    assert nearest_holding(str(sub / "not" / "yet"), ["justfile"]) == str(tmp_path / "justfile")
    assert nearest_holding(str(sub), ["nothing-here"]) is None
    for bad in ("a\0b", "\udcff", "x" * 5000):
        assert nearest_holding(bad, ["justfile"]) is None


@pytest.mark.needs_root
def test_one_owner_rule_for_task_files_and_environments(shared_tmp):
    """A justfile, a pyproject.toml or a .venv another uid put in a shared parent is not ours.

    Task files and environments walk up with the markers' rule: root, the
    caller, and under ``sudo`` the invoking user (``SUDO_UID``).
    """
    shared = shared_tmp / "shared"
    work = shared / "work"
    work.mkdir(parents=True)
    shared.chmod(0o1777)

    def plant() -> None:
        (shared / "justfile").write_text("test:\n    pytest\n")
        (shared / "pyproject.toml").write_text("[project]\nname='x'\n")
        (shared / ".venv").mkdir()
        (shared / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")

    run_as(OTHER_UID, plant)

    def as_viewer() -> tuple[object, ...]:
        return (
            found_above(str(work), ["justfile"]),
            nearest_holding(str(work), ["pyproject.toml"]),
            command_environment("uv:sync", ["uv", "sync"], str(work), {}),
            command_environment("uv:pip", ["uv", "pip", "install", "x"], str(work), {}),
        )

    assert run_as(VIEWER_UID, as_viewer) == (None, None, None, None)
    assert run_as(OTHER_UID, as_viewer)[:2] == (
        str(shared / "justfile"),
        str(shared / "pyproject.toml"),
    )
    under_sudo = rules_for([0], {"SUDO_UID": str(OTHER_UID), "HOME": "/"})
    assert nearest_holding(str(work), ["justfile"], under_sudo) == str(shared / "justfile")
    assert nearest_holding(str(work), ["justfile"], rules_for([0], {"HOME": "/"})) is None


def test_one_atomic_writer_and_one_walk_up_in_the_tree():
    """No module but the file module writes by rename or makes temporary files to replace one."""
    writers = []
    for path in (REPOSITORY / "runctx").rglob("*.py"):
        text = path.read_text()
        if "os.replace(" in text or "os.rename(" in text:
            writers.append(path.relative_to(REPOSITORY).as_posix())
    assert writers == ["runctx/planted.py"]
