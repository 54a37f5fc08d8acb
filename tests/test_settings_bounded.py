"""[tool.runctx] from a pyproject.toml that is planted, huge, or not a file at all."""

from __future__ import annotations

import os

import pytest

from runctx.exceptions import ConfigError
from runctx.settings import MAX_PYPROJECT_BYTES, Mode, settings_for

TABLE = '[tool.runctx]\non-same-checkout = "warn"\n'
PAD = "# " + "x" * 97 + "\n"


def _write(root, text: str) -> None:
    (root / "pyproject.toml").write_text(text)


def test_a_table_past_the_limit_is_an_error_not_the_defaults(tmp_path):
    """A [tool.runctx] after 1 MiB of pyproject.toml is reported, never silently ignored."""
    _write(tmp_path, "[project]\n" + PAD * (MAX_PYPROJECT_BYTES // len(PAD) + 100) + TABLE)
    with pytest.raises(ConfigError, match=r"larger than 1 MiB.*names runctx"):
        settings_for(str(tmp_path), environ={})


def test_a_table_that_straddles_the_limit_is_the_same_error(tmp_path):
    """A table cut by the limit is not reported as invalid TOML, but as too far to read."""
    head = "[project]\n" + PAD * (MAX_PYPROJECT_BYTES // len(PAD))
    head += " " * (MAX_PYPROJECT_BYTES - len(head) - 10)
    _write(tmp_path, head + TABLE)
    with pytest.raises(ConfigError) as raised:
        settings_for(str(tmp_path), environ={})
    assert "invalid TOML" not in str(raised.value)
    assert "larger than 1 MiB" in str(raised.value)


def test_a_huge_file_without_runctx_has_no_settings(tmp_path):
    """A pyproject.toml past the limit that never names runctx holds no table: the defaults."""
    _write(tmp_path, "[project]\n" + PAD * (MAX_PYPROJECT_BYTES // len(PAD) + 100))
    assert settings_for(str(tmp_path), environ={}).on_same_checkout is None


def test_a_table_within_the_limit_is_read(tmp_path):
    """Up to the limit, the table is parsed as ever."""
    _write(tmp_path, "[project]\n" + PAD * 100 + TABLE)
    assert settings_for(str(tmp_path), environ={}).on_same_checkout is Mode.WARN


def test_a_fifo_pyproject_at_the_root_is_a_clear_error(tmp_path):
    """A FIFO named pyproject.toml at a checkout root is refused at once, naming what it is."""
    os.mkfifo(tmp_path / "pyproject.toml")
    with pytest.raises(ConfigError, match="FIFO"):
        settings_for(str(tmp_path), environ={})
