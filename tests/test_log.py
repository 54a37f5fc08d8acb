"""Library events: structlog into stdlib logging, never configured by the library."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

from runctx.scanning import scan, viewpoint


def test_caplog_sees_each_verdict_with_its_reasons(caplog, foreign_run):
    """A scan emits one runctx.verdict event per run, visible to stdlib logging."""
    mine, theirs, run = foreign_run.mine, foreign_run.theirs, foreign_run.foreign
    with caplog.at_level(logging.DEBUG, logger="runctx"):
        scan(viewpoint(cwd=str(mine)))
    lines = [record.getMessage() for record in caplog.records if record.name == "runctx"]
    verdict = [line for line in lines if "runctx.verdict" in line and f"pid={run.pid}" in line]
    assert len(verdict) == 1
    assert "foreign" in verdict[0]
    assert f"root {theirs} != {mine}" in verdict[0]
    assert any("runctx.scan_finished" in line for line in lines)


def test_an_application_that_configures_nothing_sees_nothing():
    """Importing and scanning prints nothing on stdout or stderr by default."""
    code = "import runctx; runctx.scan()"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout == ""
    assert result.stderr == ""


def test_events_go_to_stdlib_logging_never_to_stdout():
    """With stdlib logging at DEBUG, events reach its handler (stderr), not stdout."""
    code = "import logging; logging.basicConfig(level=logging.DEBUG); import runctx; runctx.scan()"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout == ""
    assert "runctx.scan_finished" in result.stderr


@pytest.mark.needs_root
def test_another_users_environment_left_unread_is_no_unreadable_field(caplog, shared_tree):
    """A scan tells each field it could not read, never the environment it chose not to.

    Another user's run is judged, and who started it is told from its cgroup
    and terminal: its environment is never read, on purpose. A storm of such
    runs must not log one "unreadable" event each.
    """
    checkout, run = shared_tree
    with caplog.at_level(logging.DEBUG, logger="runctx"):
        report = scan(viewpoint(cwd=str(checkout)))
    assert run.pid in {judged.run.pid for judged in report.runs}
    theirs = [
        record.getMessage()
        for record in caplog.records
        if "runctx.field_unreadable" in record.getMessage()
        and f"pid={run.pid}" in record.getMessage()
    ]
    assert theirs == []
    assert any(
        "runctx.verdict" in record.getMessage() and f"pid={run.pid}" in record.getMessage()
        for record in caplog.records
    )
