"""What the ``pytest11`` entry point loads: it registers :mod:`runctx.pytest_plugin` once.

pytest refuses a module registered under two names ("Plugin already
registered"), and a user may name the plugin module too: ``-p
runctx.pytest_plugin`` (registered before the entry points) or
``pytest_plugins = ["runctx.pytest_plugin"]`` in a conftest (after them).
So the entry point is this separate module, with no hook but one, which
registers the plugin module under its own name unless it is registered or
blocked already; a later ``pytest_plugins`` naming it then finds it there.
``-p no:runctx`` blocks this module, so the plugin stays off. The names to
give pytest are ``runctx`` (this entry point) and ``runctx.pytest_plugin``;
this module's own name is not one of them.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import pytest

PLUGIN_MODULE = "runctx.pytest_plugin"


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Register the plugin module once (called as soon as this module is registered)."""
    if pluginmanager.is_blocked(PLUGIN_MODULE) or pluginmanager.has_plugin(PLUGIN_MODULE):
        return
    __import__(PLUGIN_MODULE)
    import sys  # noqa: PLC0415

    plugin = sys.modules[PLUGIN_MODULE]
    if not pluginmanager.is_registered(plugin):
        pluginmanager.register(plugin, PLUGIN_MODULE)
