"""The procfs mount in effect (the last one at /proc), and no procfs at all."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys

import pytest
from hooktools import claude_pre_tool_use, hook_env
from proctools import require_root

from runctx.exceptions import SourceError
from runctx.sources.procfs import ProcfsSource
from runctx.sources.proctext import parse_proc_mount

STACKED = (
    b"45 43 0:21 / /proc rw,relatime - proc proc rw\n"
    b"23 27 0:22 / /sys rw - sysfs sysfs rw\n"
    b"63 45 0:39 / /proc rw,relatime - proc proc rw,hidepid=invisible\n"
)


def test_the_last_procfs_at_a_mount_point_is_the_one_in_effect():
    """Of two procfs mounts at /proc, the one mounted last (on top) is reported."""
    mount = parse_proc_mount(STACKED)
    assert mount is not None
    assert mount.hidepid == "invisible"


@contextlib.contextmanager
def _mounted(where, options):
    subprocess.run(["mount", "-t", "proc", "-o", options, "proc", str(where)], check=True)
    try:
        yield
    finally:
        subprocess.run(["umount", str(where)], check=True)


def test_a_hidepid_procfs_mounted_over_another_is_reported(shared_tmp):
    """A hidepid=invisible procfs stacked on a plain one is what the scan reports."""
    require_root()
    where = shared_tmp / "proc"
    where.mkdir()
    with _mounted(where, "hidepid=0"), _mounted(where, "hidepid=invisible"):
        mount = ProcfsSource(str(where)).proc_mount()
    assert not isinstance(mount, Exception)
    assert getattr(mount, "hidepid", None) == "invisible"


def test_no_procfs_is_a_clear_error(tmp_path):
    """A directory with no procfs in it is a SourceError that says what to mount."""
    with pytest.raises(SourceError, match=r"no procfs is mounted at .*mount -t proc"):
        ProcfsSource(str(tmp_path))


def _without_proc(*command: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """Run ``command`` in a private mount namespace where /proc is unmounted."""
    require_root()
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.fail("unshare (util-linux) is needed to unmount /proc for one process")
    script = 'umount -l /proc && exec "$@"'
    return subprocess.run(
        [unshare, "-m", "sh", "-c", script, "sh", *command],
        input=stdin,
        capture_output=True,
        text=True,
        env=hook_env(),
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("source", [[], ["--source", "procfs"], ["--source", "psutil"]])
def test_status_without_procfs_says_so_in_one_line(source):
    """The status command with no /proc exits 1 with one line, from either source; no traceback."""
    done = _without_proc(sys.executable, "-m", "runctx", "status", *source)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith("runctx: error: no procfs is mounted at /proc"), done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr


def test_the_hook_without_procfs_fails_open_in_one_line(tmp_path):
    """A hook with no /proc lets the command through and says why on stderr."""
    payload = claude_pre_tool_use("pytest", tmp_path)
    done = _without_proc(
        sys.executable, "-m", "runctx", "hook", "claude", stdin=json.dumps(payload)
    )
    assert done.returncode == 0
    assert done.stdout == ""
    assert "hook failed open" in done.stderr
    assert "no procfs is mounted at /proc" in done.stderr
