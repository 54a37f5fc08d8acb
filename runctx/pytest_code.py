"""The second pytest plugin of runctx: the code under test and its bytecode.

Registered under its own ``pytest11`` entry point, ``runctx.code``
(:mod:`runctx.pytest_code_entry`), beside ``runctx`` (other test runs,
:mod:`runctx.pytest_plugin`), as pytest-xdist registers ``xdist.looponfail``
beside ``xdist``. ``-p no:runctx`` turns both off; ``-p no:runctx.code``
this one alone. With entry points off (``PYTEST_DISABLE_PLUGIN_AUTOLOAD``),
``-p runctx.pytest_code`` loads it.

- the code under test (:mod:`runctx.code_origin`): at session start the
  header names each of the project's packages that is (or will be) imported
  from outside this checkout, and why; it is checked again after collection;
  ``--runctx-code=refuse`` exits with status 75 on it. These lines are written
  under ``-q`` too;
- stale bytecode (:mod:`runctx.bytecode`): ``--runctx-bytecode=check`` names,
  after the session, every module of the checkout whose code is not what its
  source on disk compiles to (xdist workers hand theirs to the controller),
  and fails a session that passed on it; ``fresh`` compiles the session into
  a cache of its own (:mod:`runctx.pycache`), under ``PYTHONDONTWRITEBYTECODE``
  too, and names the modules imported before that cache was in place.

Loading this module imports pytest and the standard library (and
:mod:`runctx.pycache`, :mod:`runctx.checkout`, standard library too): the
session's work is :class:`runctx.pytest_code_session.CodeSession`, registered
in ``pytest_configure``, on the controller and on every xdist worker (each
checks its own imports), once a coverage tool measures.
"""

from __future__ import annotations

import os
import sys

import pytest

from runctx.pycache import (
    drop_prefix,
    filesystem_now,
    fresh_prefix,
    restore_writing,
    use_prefix,
    write_anyway,
)
from runctx.pytest_code_state import (
    BYTECODE_PLUGIN,
    CODE,
    FRESH,
    FRESH_ENV,
    CodeState,
    checkout_of,
)
from runctx.pytest_options import BYTECODE_MODES, add_code_options
from runctx.pytest_terminal import PREFIX, choice, error_text, untraced


def pytest_addoption(parser: pytest.Parser) -> None:
    """Declare ``--runctx-code`` and ``--runctx-bytecode`` and their ini settings."""
    add_code_options(parser)


def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """``--runctx-bytecode=fresh``: a cache of the session's own, before any conftest loads.

    Not ``tryfirst``: a coverage tool starts measuring in its own ``tryfirst``
    implementation of this hook, and whatever the cache is put in place with
    (the checkout's root, the modules imported already) is imported after it.
    The cache is in place first, with :mod:`runctx.pycache` alone (the
    standard library), so that nothing runctx imports next runs an old cache.
    """
    if choice(early_config, "runctx_bytecode", BYTECODE_MODES, "off") != "fresh":
        return

    state = CodeState(code_mode="warn", bytecode="fresh")
    before: dict[str, object] = {}
    try:
        inherited = os.environ.get(FRESH_ENV)
        state.prefix_before = sys.pycache_prefix
        if inherited and sys.pycache_prefix == inherited:
            state.prefix = inherited  # a worker of a fresh session: its cache is the session's
        else:
            before = dict(sys.modules)
            state.prefix = fresh_prefix()
            state.owns_prefix = True
            state.env_before = use_prefix(state.prefix)
            os.environ[FRESH_ENV] = state.prefix
        state.no_write_before = write_anyway()
        state.since_ns = filesystem_now()
    except Exception as error:  # noqa: BLE001 - runctx never breaks a session
        state.errors.append(error_text(error))
        state.cannot = error_text(error)
    try:
        state.checkout = checkout_of(early_config)
        if before:
            from runctx.bytecode import checkout_modules  # noqa: PLC0415 - after the cache is in place

            state.early = tuple(name for name, _ in checkout_modules(state.checkout, before))
    except Exception as error:  # noqa: BLE001 - runctx never breaks a session
        state.errors.append(error_text(error))
    early_config.stash[FRESH] = state


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """Register the session's plugin object (on the controller and on every worker)."""
    with untraced():
        try:
            from runctx.pytest_code_session import configure  # noqa: PLC0415 - after coverage
        except Exception as error:  # noqa: BLE001 - even a broken install never breaks a session
            state = CodeState(code_mode="warn", bytecode="off")
            state.errors.append(error_text(error))
            state.brief.append(f"could not check the code under test ({error_text(error)})")
            state.header.append(PREFIX + state.brief[-1])  # the contention plugin writes it
            config.stash[CODE] = state
            return
        configure(config)
        state = config.stash[CODE]
        if state.bytecode != "off":
            from runctx.pytest_bytecode import BytecodeSession  # noqa: PLC0415 - only when asked

            config.pluginmanager.register(BytecodeSession(config, state), BYTECODE_PLUGIN)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Put the cache prefix back, and remove the session's own cache."""
    state = config.stash.get(CODE, None) or config.stash.get(FRESH, None)
    if state is None:
        return

    restore_writing(state.no_write_before)
    state.no_write_before = None
    if not state.owns_prefix or state.prefix is None:
        return
    drop_prefix(state.prefix, state.env_before, state.prefix_before)
    if os.environ.get(FRESH_ENV) == state.prefix:
        del os.environ[FRESH_ENV]
