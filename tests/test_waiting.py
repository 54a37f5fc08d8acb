"""Waiting: how long, read from text; waiting for room on a busy box, poll by poll."""

from __future__ import annotations

from pathlib import Path

import pytest

from runctx.settings import BusyRules
from runctx.sources.procfs import ProcfsSource
from runctx.waiting import parse_duration, wait_for_room


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90", 90.0), ("2.5", 2.5), ("500ms", 0.5), ("90s", 90.0), ("10m", 600.0), ("1h", 3600.0)],
)
def test_durations_take_units(text, seconds):
    """A duration is plain seconds or a number with ms, s, m or h."""
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "-1", "soon", "nan", "inf", "5d", "ms", "5sm"])
def test_bad_durations_are_value_errors(text):
    """An empty, negative, non-finite or unknown-unit duration is a ValueError."""
    with pytest.raises(ValueError):  # noqa: PT011 - the message is the CLI's business
        parse_duration(text)


def fake_proc(path: Path, available_kib: int) -> None:
    """A directory with the box files a procfs source reads for the load (text only)."""
    (path / "pressure").mkdir(parents=True, exist_ok=True)
    (path / "self").mkdir(exist_ok=True)
    (path / "self" / "stat").write_text("1 (x) S 0 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 1 1\n")
    (path / "loadavg").write_text("0.10 0.10 0.10 1/100 4242\n")
    (path / "pressure" / "cpu").write_text("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")
    (path / "meminfo").write_text(
        f"MemTotal:       1000000 kB\nMemAvailable:   {available_kib} kB\n"
    )


def test_a_wait_for_room_ends_once_the_box_is_under_its_thresholds(tmp_path):
    """Each poll reads the box again: once memory is freed (after the first look), it is ready."""
    fake_proc(tmp_path, 50_000)
    seen: list[tuple[str, ...]] = []

    def on_change(pressure) -> None:
        seen.append(pressure.reasons)
        if pressure.busy:  # the handshake: the box is freed only once the wait has seen it busy
            fake_proc(tmp_path, 600_000)

    outcome = wait_for_room(
        BusyRules(memory_available=10, cpu_pressure=None, load_per_cpu=None),
        timeout=60,
        poll_seconds=0.01,
        on_change=on_change,
        source=ProcfsSource(proc=str(tmp_path)),
    )
    assert outcome.ready
    assert seen == [("memory available 5% < 10%",), ()]
    assert outcome.pressure.reasons == ()


def test_a_wait_for_room_that_times_out_says_what_is_still_over(tmp_path):
    """A box that stays busy is not ready, and says what it is still over; timeout 0 looks once."""
    fake_proc(tmp_path, 50_000)
    seen = []
    outcome = wait_for_room(
        BusyRules(memory_available=10, cpu_pressure=None, load_per_cpu=None),
        timeout=0,
        on_change=seen.append,
        source=ProcfsSource(proc=str(tmp_path)),
    )
    assert not outcome.ready
    assert outcome.pressure.reasons == ("memory available 5% < 10%",)
    assert len(seen) == 1
