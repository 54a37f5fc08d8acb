"""Waiting for this checkout's earlier runs: how long to wait, read from text."""

from __future__ import annotations

import pytest

from runctx.waiting import parse_duration


@pytest.mark.parametrize(
    ("text", "seconds"), [("90", 90.0), ("2.5", 2.5), ("90s", 90.0), ("10m", 600.0), ("1h", 3600.0)]
)
def test_durations_take_units(text, seconds):
    """A duration is plain seconds or a number with s, m or h."""
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "-1", "soon", "nan", "inf", "5d"])
def test_bad_durations_are_value_errors(text):
    """An empty, negative, non-finite or unknown-unit duration is a ValueError."""
    with pytest.raises(ValueError):  # noqa: PT011 - the message is the CLI's business
        parse_duration(text)
