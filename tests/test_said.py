"""A note on contention is said once per listener until what it says changes.

The state is a real file in a real directory; what another user could have put
there is refused (the note is then said, never lost).
"""

from __future__ import annotations

import json
import os

import pytest

from runctx.demand import cpus_wanted, hurts
from runctx.said import FORGET_SECONDS, MAX_LISTENERS, STATE_FILE, said_before


def test_a_note_is_said_once_per_listener_until_it_changes(tmp_path):
    """The same fingerprint twice: said, then not; another fingerprint or listener: said."""
    where = str(tmp_path / "state")
    assert said_before("claude-code:s1", "busy:41|load", directory=where) is False
    assert said_before("claude-code:s1", "busy:41|load", directory=where) is True
    assert said_before("claude-code:s2", "busy:41|load", directory=where) is False
    assert said_before("claude-code:s1", "busy:41,42|load", directory=where) is False
    assert said_before("claude-code:s1", "busy:41|load", directory=where) is False  # changed back
    assert os.stat(where).st_mode & 0o777 == 0o700
    assert os.stat(os.path.join(where, STATE_FILE)).st_mode & 0o077 == 0


def test_a_listener_silent_for_long_is_told_again_and_the_state_stays_bounded(tmp_path):
    """Forgotten after FORGET_SECONDS; at most MAX_LISTENERS remembered, the latest kept."""
    where = str(tmp_path)
    assert said_before("tty:a", "x", directory=where, now=1000.0) is False
    assert said_before("tty:a", "x", directory=where, now=1000.0 + FORGET_SECONDS + 1) is False
    for n in range(MAX_LISTENERS + 10):
        said_before(f"tty:{n}", "x", directory=where, now=5e4 + n)
    state = json.loads((tmp_path / STATE_FILE).read_text())
    assert len(state) == MAX_LISTENERS
    assert f"tty:{MAX_LISTENERS + 9}" in state
    assert "tty:0" not in state


def test_a_state_others_may_write_is_not_believed(tmp_path):
    """A group-writable state file or directory: nothing is remembered, every note is said."""
    where = tmp_path / "state"
    where.mkdir(mode=0o700)
    said_before("s", "x", directory=str(where))
    (where / STATE_FILE).chmod(0o666)
    assert said_before("s", "x", directory=str(where)) is False
    assert said_before("s", "x", directory=str(where)) is False
    (where / STATE_FILE).unlink()
    where.chmod(0o777)
    said_before("s", "x", directory=str(where))
    assert said_before("s", "x", directory=str(where)) is False
    assert not (where / STATE_FILE).exists()


def test_a_link_or_garbage_in_place_of_the_state_is_not_followed(tmp_path):
    """A symlink is never written through; garbage is read as nothing."""
    where = tmp_path / "state"
    where.mkdir(mode=0o700)
    target = tmp_path / "elsewhere"
    target.write_text("{}")
    (where / STATE_FILE).symlink_to(target)
    assert said_before("s", "x", directory=str(where)) is False
    assert said_before("s", "x", directory=str(where)) is False
    assert target.read_text() == "{}"
    (where / STATE_FILE).unlink()
    (where / STATE_FILE).write_text("not json")
    (where / STATE_FILE).chmod(0o600)
    assert said_before("s", "x", directory=str(where)) is False
    assert said_before("s", "x", directory=str(where)) is True


@pytest.mark.parametrize(
    ("kind", "argv", "usable", "wanted"),
    [
        ("pytest", "pytest -x", 8, 1.0),
        ("pytest", "pytest -n 4", 8, 4.0),
        ("pytest", "pytest -n 16", 8, 8.0),
        ("pytest", "pytest -n auto", 8, 8.0),
        ("pytest", "pytest --numprocesses=logical", 2, 2.0),
        ("jest", "jest", 8, 8.0),
        ("jest", "jest --maxWorkers=50%", 8, 4.0),
        ("cargo-test", "cargo test -j 2", 8, 2.0),
        ("cargo-test", "cargo test -- --test-threads=1", 8, 1.0),
        ("go-test", "go test ./...", 4, 4.0),
        ("make-test", "make test", 4, 1.0),
    ],
)
def test_what_a_run_will_use_is_read_from_its_command(kind, argv, usable, wanted):
    """Explicit worker counts first, then the runner's default."""
    assert cpus_wanted(kind, argv.split(), usable) == wanted


def test_foreign_load_hurts_only_when_it_leaves_too_few_cpus():
    """1.5 CPUs busy elsewhere on 2: a one-CPU run fits, a two-CPU run does not; on 8 both fit."""
    assert hurts(1.5, 1.0, 2) is True
    assert hurts(0.9, 1.0, 2) is False
    assert hurts(0.9, 2.0, 2) is True
    assert hurts(1.5, 2.0, 8) is False
