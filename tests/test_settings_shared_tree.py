"""The on-shared-tree setting: read, validated and overridden like on-same-checkout."""

from __future__ import annotations

import pytest

from runctx.exceptions import ConfigError
from runctx.settings import (
    DEFAULT_SHARED_TREE_MODE,
    SHARED_TREE_ENV,
    Mode,
    settings_for,
)


def write(root, text):
    """Write ``text`` as the checkout's pyproject.toml; return the root as a str."""
    (root / "pyproject.toml").write_text(text)
    return str(root)


@pytest.mark.parametrize("mode", ["stop", "ask", "warn"])
def test_each_mode_is_read_from_the_checkout(tmp_path, mode):
    """on-shared-tree = stop, ask or warn is the checkout's mode for a shared tree."""
    root = write(tmp_path, f'[tool.runctx]\non-shared-tree = "{mode}"\n')
    settings = settings_for(root, environ={})
    assert settings.on_shared_tree is Mode(mode)
    assert settings.shared_tree_mode is Mode(mode)
    assert settings.on_same_checkout is None


def test_nothing_set_gives_stop(tmp_path):
    """A checkout that sets nothing stops next to another user's run in it."""
    settings = settings_for(write(tmp_path, "[project]\nname = 'x'\n"), environ={})
    assert settings.on_shared_tree is None
    assert settings.shared_tree_mode is DEFAULT_SHARED_TREE_MODE is Mode.STOP


@pytest.mark.parametrize("value", ['"wait"', '"sometimes"', "1"])
def test_a_mode_that_cannot_apply_is_an_error_naming_file_and_key(tmp_path, value):
    """Wait (another user's run cannot be waited for) and nonsense are refused, with the place."""
    root = write(tmp_path, f"[tool.runctx]\non-shared-tree = {value}\n")
    with pytest.raises(ConfigError) as raised:
        settings_for(root, environ={})
    message = str(raised.value)
    assert "pyproject.toml: [tool.runctx] on-shared-tree must be one of" in message
    assert '"stop", "ask", "warn"' in message
    assert '"wait"' not in message.partition("got")[0]


def test_the_environment_overrides_the_file_and_is_validated(tmp_path):
    """$RUNCTX_ON_SHARED_TREE wins over the file; a bad value names the variable."""
    root = write(tmp_path, '[tool.runctx]\non-shared-tree = "stop"\non-same-checkout = "warn"\n')
    settings = settings_for(root, environ={SHARED_TREE_ENV: "warn"})
    assert settings.shared_tree_mode is Mode.WARN
    assert settings.mode is Mode.WARN  # the other setting is kept
    with pytest.raises(ConfigError, match=r"\$RUNCTX_ON_SHARED_TREE must be one of"):
        settings_for(root, environ={SHARED_TREE_ENV: "wait"})
