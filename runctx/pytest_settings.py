"""The pytest plugin's settings: its options and ini values over the checkout's own settings.

The checkout's settings (``[tool.runctx]``, the user's file, ``$RUNCTX_...``)
are read once, when the session is configured; the session's options and
ini values (``--runctx``, ``runctx = ...``) come first, and each value says
where it came from, for the header.
"""

from __future__ import annotations

import pytest

from runctx.pytest_options import MODES
from runctx.pytest_terminal import setting
from runctx.roots import checkout_root
from runctx.settings import (
    ENVIRONMENT_LAYER,
    MODE_ENV,
    MODE_KEY,
    SHARED_TREE_ENV,
    SHARED_TREE_KEY,
    Settings,
    settings_and_problems,
)
from runctx.waiting import parse_duration


def duration(config: pytest.Config, name: str, default: float | None) -> float | None:
    """A duration setting (``90``, ``90s``, ``10m``), else ``default``; a bad one is an error."""
    text = setting(config, name)
    if not text:
        return default

    try:
        return parse_duration(text)
    except ValueError as error:
        msg = f"--{name.replace('_', '-')} / {name}: {error}"
        raise pytest.UsageError(msg) from None


def share_cpus(config: pytest.Config) -> bool:
    """Whether ``-n auto`` leaves room for the CPUs other runs keep busy (default yes)."""
    value = config.getoption("runctx_share_cpus")
    if value is None:
        return bool(config.getini("runctx_share_cpus"))
    return bool(value == "yes")


def checkout_settings(config: pytest.Config) -> tuple[Settings, tuple[str, ...]]:
    """The settings of the checkout the session's rootdir is in, and what is wrong with them.

    A typo in ``[tool.runctx]`` (or the user's file, or ``$RUNCTX_ON_...``), or
    a settings file that cannot be read at all (a FIFO another user put in a
    shared directory, a file past the bound), never stops the session: the
    plugin warns, naming the file, the line and what is wrong, and that
    layer's keys have their defaults (:func:`runctx.settings.settings_and_problems`).
    """
    settings, problems = settings_and_problems(checkout_root(str(config.rootpath)))
    return settings, tuple(
        problem if _IGNORED_KEY in problem else f"{problem}; its defaults are used instead"
        for problem in problems
    )


_IGNORED_KEY = "not a runctx setting, ignored"
"""How a problem that leaves out only one misspelt key says so (:mod:`runctx.settings`)."""


def mode(config: pytest.Config, settings: Settings) -> tuple[str, str]:
    """The session's mode and where it came from: option, ini, the checkout, or the default."""
    option = config.getoption("runctx")
    if option:
        return str(option), f"--runctx={option}"
    ini = str(config.getini("runctx")).strip()
    if ini:
        if ini not in MODES:
            msg = f"runctx = {ini!r}: choose one of {', '.join(MODES)}"
            raise pytest.UsageError(msg)
        return ini, f"--runctx={ini}"

    chosen = settings.on_same_checkout
    if chosen is None:
        return "warn", "--runctx=warn"
    if settings.source_of(MODE_KEY) == ENVIRONMENT_LAYER:
        return chosen.value, f"${MODE_ENV}={chosen.value}"
    return chosen.value, f'{MODE_KEY} = "{chosen.value}"'


def shared_mode(settings: Settings) -> tuple[str, str]:
    """The mode for another user's run in this checkout, and where it came from.

    The checkout's ``on-shared-tree`` (or ``$RUNCTX_ON_SHARED_TREE``), else the
    plugin's default, ``warn``: like ``on-same-checkout``, a checkout that sets
    nothing keeps the plugin to reporting.
    """
    chosen = settings.on_shared_tree
    if chosen is None:
        return "warn", ""
    if settings.source_of(SHARED_TREE_KEY) == ENVIRONMENT_LAYER:
        return chosen.value, f"${SHARED_TREE_ENV}={chosen.value}"
    return chosen.value, f'{SHARED_TREE_KEY} = "{chosen.value}"'
