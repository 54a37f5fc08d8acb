"""What the ``pytest11`` entry points load: each registers one of runctx's plugin modules once.

pytest refuses a module registered under two names ("Plugin already
registered"), and a user may name a plugin module too: ``-p
runctx.pytest_plugin`` (registered before the entry points) or
``pytest_plugins = ["runctx.pytest_plugin"]`` in a conftest (after them).
So each entry point is a separate module with no hook but one, which
registers its plugin module under the module's own name unless it is
registered or blocked already; a later ``pytest_plugins`` naming it then
finds it there.

- ``runctx`` (this module) registers :mod:`runctx.pytest_plugin`: other
  test runs, their contention, ``-n auto``;
- ``runctx.code`` (:mod:`runctx.pytest_code_entry`) registers
  :mod:`runctx.pytest_code`: the code under test and its bytecode.

``-p no:runctx`` blocks this module, and the second entry point sees it and
registers nothing, so both plugins stay off; ``-p no:runctx.code`` turns off
the second alone. The modules' own names are not names to give pytest.

pytest marks every package that provides a ``pytest11`` entry point for
assertion rewriting, so each of runctx's modules would be loaded through
pytest's rewriting importer: its own bytecode cache, and under
``PYTHONDONTWRITEBYTECODE`` every module parsed, rewritten and compiled anew
in every session. runctx's modules are library code, not tests or fixtures
whose asserts pytest should explain, so the entry point takes ``runctx`` off
that list (:func:`load_plainly`) before any other of its modules is imported.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import pytest

PLUGIN_MODULE = "runctx.pytest_plugin"
ENTRY_NAME = "runctx"
"""The name of the first entry point: ``-p no:runctx`` turns all of runctx's plugins off."""


PACKAGE = "runctx"


def load_plainly(pluginmanager: pytest.PytestPluginManager) -> None:
    """Have runctx's modules imported without pytest's assertion rewriting, where pytest allows.

    pytest keeps the packages it rewrites in its rewriting importer's set of
    names (``rewrite_hook._must_rewrite``); where that is not there (another
    pytest, ``--assert=plain``), nothing changes.
    """
    names = getattr(getattr(pluginmanager, "rewrite_hook", None), "_must_rewrite", None)
    if isinstance(names, set):
        names.discard(PACKAGE)


def register_once(pluginmanager: pytest.PytestPluginManager, module: str) -> None:
    """Register ``module`` under its own name unless it is registered or blocked already."""
    if pluginmanager.is_blocked(module) or pluginmanager.has_plugin(module):
        return
    load_plainly(pluginmanager)
    __import__(module)
    plugin = sys.modules[module]
    if not pluginmanager.is_registered(plugin):
        pluginmanager.register(plugin, module)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Register the plugin module once (called as soon as this module is registered)."""
    register_once(pluginmanager, PLUGIN_MODULE)
