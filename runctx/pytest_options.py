"""The command-line options and ini settings of runctx's two pytest plugins.

``--runctx``, ``--runctx-timeout``, ``--runctx-poll``, ``--runctx-sample``,
``--runctx-worker-memory`` and ``--runctx-share-cpus`` are the contention
plugin's (:mod:`runctx.pytest_plugin`); ``--runctx-code`` and
``--runctx-bytecode`` the code plugin's (:mod:`runctx.pytest_code`). Each
plugin declares its own, so that ``-p no:runctx.code`` leaves no option
without a plugin. Loaded with the plugins: pytest and nothing else.
"""

from __future__ import annotations

import pytest

MODES = ("warn", "wait", "refuse", "stop", "ask")
"""The plugin's words for the policy's modes: ``refuse`` is the policy's ``stop``."""
DEFAULT_SAMPLE_SECONDS = 30.0
"""How often contention is sampled during the session, unless ``--runctx-sample`` says."""
CODE_MODES = ("warn", "refuse")
"""``--runctx-code``: what a session does when the code under test is another checkout's."""
BYTECODE_MODES = ("off", "check", "fresh")
"""``--runctx-bytecode``: nothing, check the bytecode after the session, or a fresh cache."""


def add_contention_options(parser: pytest.Parser) -> None:
    """Declare the ``--runctx`` options and their ini settings."""
    group = parser.getgroup("runctx", "runctx: other test runs live on this machine")
    group.addoption(
        "--runctx",
        dest="runctx",
        choices=MODES,
        default=None,
        help=(
            "what to do when another run of this checkout is live: warn (report it), wait "
            "(until it ends) or refuse (exit 75; stop and ask do the same). Default: the "
            "checkout's on-same-checkout setting, else warn. ini: runctx"
        ),
    )
    group.addoption(
        "--runctx-timeout",
        dest="runctx_timeout",
        default=None,
        metavar="DURATION",
        help="with --runctx=wait, give up after DURATION (90, 90s, 10m) and exit 75. "
        "Default: wait for ever. ini: runctx_timeout",
    )
    group.addoption(
        "--runctx-poll",
        dest="runctx_poll",
        default=None,
        metavar="DURATION",
        help="with --runctx=wait, scan every DURATION (default: as often as runctx wait). "
        "ini: runctx_poll",
    )
    group.addoption(
        "--runctx-sample",
        dest="runctx_sample",
        default=None,
        metavar="DURATION",
        help="sample contention during the session at most every DURATION "
        f"(default {DEFAULT_SAMPLE_SECONDS:g}s). ini: runctx_sample",
    )
    group.addoption(
        "--runctx-worker-memory",
        dest="runctx_worker_memory",
        default=None,
        metavar="MIB",
        help="with -n auto, the memory one worker is taken to need, in MiB (default: the "
        "controller's own resident size). ini: runctx_worker_memory",
    )
    group.addoption(
        "--runctx-share-cpus",
        dest="runctx_share_cpus",
        choices=("yes", "no"),
        default=None,
        help="with -n auto, leave room for the CPUs other runs keep busy (default yes). "
        "ini: runctx_share_cpus",
    )
    parser.addini("runctx", "runctx mode: warn, wait or refuse", default="")
    parser.addini("runctx_timeout", "runctx: longest wait with --runctx=wait", default="")
    parser.addini("runctx_poll", "runctx: scan interval while waiting", default="")
    parser.addini("runctx_sample", "runctx: contention sampling interval", default="")
    parser.addini(
        "runctx_share_cpus", "runctx: -n auto leaves room for other runs", type="bool", default=True
    )
    parser.addini("runctx_worker_memory", "runctx: MiB one worker needs, for -n auto", default="")


def add_code_options(parser: pytest.Parser) -> None:
    """Declare ``--runctx-code`` and ``--runctx-bytecode`` and their ini settings."""
    group = parser.getgroup("runctx", "runctx: other test runs live on this machine")
    group.addoption(
        "--runctx-code",
        dest="runctx_code",
        choices=CODE_MODES,
        default=None,
        help=(
            "when the project's packages are imported from outside this checkout (an editable "
            "install pointing at another worktree): warn (say so in the header) or refuse "
            "(exit 75). Default warn. ini: runctx_code"
        ),
    )
    group.addoption(
        "--runctx-bytecode",
        dest="runctx_bytecode",
        choices=BYTECODE_MODES,
        default=None,
        help=(
            "stale bytecode: check (after the session, name every module of this checkout "
            "whose code is not what its source on disk compiles to) or fresh (compile into a "
            "cache of the session's own, so no earlier cache can serve it). Default off. "
            "ini: runctx_bytecode"
        ),
    )
    parser.addini("runctx_code", "runctx: warn or refuse when the code is another's", default="")
    parser.addini("runctx_bytecode", "runctx: off, check or fresh", default="")
