"""``runctx install`` loses nothing: planted, read-only, linked files, kills, untouched values."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest
from hooktools import RUNCTX, hook_env
from proctools import make_checkout

from runctx.hooks.settings_file import TEMP_MARK

PRETTY = """{
  "x": 2.50,
  "y": 1e5,
  "z": {"a":1,"b":[1,2]},
  "name": "\\u00e9t\\u00e9",
  "odd": "\\ud800"
}
"""


@pytest.fixture
def project(tmp_path):
    """A checkout with an empty ``.claude`` directory."""
    root = make_checkout(tmp_path)
    (root / ".claude").mkdir()
    return root


def install(project, *argv: str) -> subprocess.CompletedProcess[str]:
    """``runctx install claude ARGV`` as a process in ``project``, under a hang guard."""
    return subprocess.run(
        [*RUNCTX, "install", "claude", "--command", "runctx", *argv],
        capture_output=True,
        text=True,
        cwd=project,
        env=hook_env(),
        timeout=60,
        check=False,
    )


def settings(project):
    """The project's Claude Code settings file."""
    return project / ".claude" / "settings.json"


def test_a_fifo_settings_file_is_refused_at_once(project):
    """A FIFO in place of the settings file is never opened: exit 1, and it says so."""
    os.mkfifo(settings(project))
    done = install(project)
    assert done.returncode == 1
    assert "is a FIFO, not a regular file" in done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_values_not_touched_are_written_back_as_they_were(project):
    """Number spellings, a compact object and escapes stay byte for byte; hooks are added."""
    settings(project).write_text(PRETTY)
    done = install(project)
    assert done.returncode == 0, done.stderr
    text = settings(project).read_text()
    for kept in ('"x": 2.50,', '"y": 1e5,', '"z": {"a":1,"b":[1,2]},', '"\\u00e9t\\u00e9"'):
        assert kept in text
    assert '"odd": "\\ud800"' in text
    document = json.loads(text)
    assert document["x"] == 2.5
    assert document["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "runctx hook claude"


def test_install_then_uninstall_gives_the_file_back_byte_for_byte(project):
    """What install adds, uninstall takes out with its separators: the original text returns."""
    settings(project).write_text(PRETTY)
    assert install(project).returncode == 0
    assert settings(project).read_text() != PRETTY
    assert install(project, "--uninstall").returncode == 0
    assert settings(project).read_text() == PRETTY


def test_a_one_line_file_stays_one_line(project):
    """A compact file gets its hooks on the same line, not a reformatted document."""
    settings(project).write_text('{"x": 2.50, "y": 1e5}\n')
    assert install(project).returncode == 0
    text = settings(project).read_text()
    assert text.startswith('{"x": 2.50, "y": 1e5, "hooks": {')
    assert text.count("\n") == 1


def test_a_lone_surrogate_in_the_file_is_no_traceback(project):
    r"""Valid JSON holding "\ud800" is installed into, the escape kept as written."""
    settings(project).write_text('{"a": "\\ud800"}')
    done = install(project)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert settings(project).read_text().startswith('{"a": "\\ud800", "hooks"')


def test_a_read_only_file_is_refused_and_left_as_it_was(project):
    """A file the user made read-only (0444) is not replaced: exit 1, the same bytes and mode."""
    path = settings(project)
    path.write_text(PRETTY)
    path.chmod(0o444)
    done = install(project)
    assert done.returncode == 1
    assert "read-only (mode 0444)" in done.stderr
    assert path.read_text() == PRETTY
    assert oct(path.stat().st_mode & 0o777) == oct(0o444)


def test_a_hard_linked_file_is_refused_and_the_links_kept(project):
    """Replacing a hard-linked file would break the link: refused, both names the same inode."""
    path = settings(project)
    path.write_text(PRETTY)
    other = project / "shared-settings.json"
    os.link(path, other)
    done = install(project)
    assert done.returncode == 1
    assert "2 hard links" in done.stderr
    assert path.stat().st_ino == other.stat().st_ino
    assert other.read_text() == PRETTY


def test_a_symlinked_file_is_updated_where_it_points(project, tmp_path):
    """A symlink is followed on purpose: the target gets the hooks, the link stays a link."""
    target = tmp_path / "dotfiles" / "claude.json"
    target.parent.mkdir()
    target.write_text(PRETTY)
    settings(project).symlink_to(target)
    done = install(project)
    assert done.returncode == 0, done.stderr
    assert settings(project).is_symlink()
    assert "runctx hook claude" in target.read_text()


def test_a_symlink_to_nothing_is_refused(project, tmp_path):
    """A dangling symlink is not followed into creating a file somewhere else."""
    settings(project).symlink_to(tmp_path / "nowhere" / "settings.json")
    done = install(project)
    assert done.returncode == 1
    assert "which does not exist" in done.stderr
    assert not (tmp_path / "nowhere").exists()


def test_a_normal_install_leaves_no_temporary_file(project):
    """Install and uninstall leave nothing in the directory but the settings file."""
    settings(project).write_text(PRETTY)
    assert install(project).returncode == 0
    assert install(project, "--uninstall").returncode == 0
    assert sorted(os.listdir(project / ".claude")) == ["settings.json"]


def _kill_mid_write(project) -> bool:
    """Start an install of a large file and SIGKILL it while its temporary file exists."""
    process = subprocess.Popen(
        [*RUNCTX, "install", "claude", "--command", "runctx"],
        cwd=project,
        env=hook_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while process.poll() is None:
            if any(TEMP_MARK in name for name in os.listdir(project / ".claude")):
                os.kill(process.pid, signal.SIGKILL)
                return True
            time.sleep(0.0005)
        return False
    finally:
        process.wait()


def test_a_killed_install_leaves_a_temporary_file_the_next_one_removes(project):
    """A kill -9 during the write leaves one temporary file; the next install cleans it up."""
    path = settings(project)
    big = json.dumps({"padding": ["x" * 1000] * 10_000})
    for _ in range(50):
        path.write_text(big)
        if _kill_mid_write(project):
            break
    else:
        pytest.fail("never caught an install during its write")
    left = [name for name in os.listdir(project / ".claude") if TEMP_MARK in name]
    assert len(left) == 1
    assert json.loads(path.read_text()) == json.loads(big)  # the file itself is intact
    assert install(project).returncode == 0
    assert sorted(os.listdir(project / ".claude")) == ["settings.json"]
