"""What the ``runctx.code`` entry point loads: it registers :mod:`runctx.pytest_code` once.

The second of runctx's entry points (:mod:`runctx.pytest_entry` tells why
each is a module of its own). ``-p no:runctx`` turns it off as well as the
first: pytest blocks only the name it is given, so this module looks.
"""

from __future__ import annotations

from runctx.pytest_entry import ENTRY_NAME, register_once

TYPE_CHECKING = False
if TYPE_CHECKING:
    import pytest

PLUGIN_MODULE = "runctx.pytest_code"


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Register the code plugin once, unless ``-p no:runctx`` turned runctx off."""
    if pluginmanager.is_blocked(ENTRY_NAME):
        return
    register_once(pluginmanager, PLUGIN_MODULE)
