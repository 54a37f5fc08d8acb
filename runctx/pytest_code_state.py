"""The code plugin's state for one session: what it knows of the code under test and its bytecode.

Shared by :mod:`runctx.pytest_code` (which fills it before any conftest
loads, for ``--runctx-bytecode=fresh``), the session objects
(:mod:`runctx.pytest_code_session`, :mod:`runctx.pytest_bytecode`) and the
contention plugin, which writes its header lines. Standard library and
pytest only.
"""

from __future__ import annotations

import pytest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.bytecode import StaleModule
    from runctx.code_origin import CodeCheck, Install

CODE_PLUGIN = "runctx-code-session"
"""The name the session's plugin object is registered under."""
BYTECODE_PLUGIN = "runctx-bytecode-session"
"""The name the bytecode check's plugin object is registered under (only when asked for)."""
FRESH_ENV = "RUNCTX_FRESH_PYCACHE"
"""Set by a ``fresh`` session for the processes it starts (xdist workers): its cache prefix."""
STALE_OUTPUT = "runctx_stale"
"""The key under which an xdist worker hands its stale modules to the controller."""


class CodeState:
    """What the session knows about its code under test and its bytecode (``config.stash``).

    A plain class, not a dataclass: creating a dataclass compiles its methods
    when the module is imported, some milliseconds of every session.
    """

    code_mode: str
    bytecode: str
    checkout: str | None = None
    header: list[str]
    urgent: list[str]
    """Header lines written under ``-q`` too: code under test that is not this checkout's."""
    brief: list[str]
    """The parts of the one header line written unless ``-v`` (:mod:`runctx.pytest_brief`)."""
    brief_urgent: list[str]
    """The parts of that line written under ``-q`` too."""
    own_lines: list[str]
    """Header lines of their own at any verbosity: ``--runctx-bytecode``, which asked for them."""
    check: CodeCheck | None = None
    installs: tuple[Install, ...] | None = None
    """The installs found at session start, for the check after collection."""
    refuse_after_collection: bool = False
    prefix: str | None = None
    owns_prefix: bool = False
    env_before: str | None = None
    prefix_before: str | None = None
    since_ns: int | None = None
    early: tuple[str, ...] = ()
    """Modules of the checkout imported before the fresh cache was in place."""
    no_write_before: str | None = None
    """What ``PYTHONDONTWRITEBYTECODE`` was before a fresh session wrote its cache anyway."""
    cannot: str = ""
    """Why a fresh session could not have a cache of its own (empty when it has one)."""
    stale: list[StaleModule]
    checked: int = 0
    errors: list[str]

    def __init__(self, code_mode: str, bytecode: str) -> None:
        """The state of a session whose ``--runctx-code`` and ``--runctx-bytecode`` are given."""
        self.code_mode = code_mode
        self.bytecode = bytecode
        self.header = []
        self.urgent = []
        self.brief = []
        self.brief_urgent = []
        self.own_lines = []
        self.stale = []
        self.errors = []


CODE = pytest.StashKey[CodeState]()
FRESH = pytest.StashKey[CodeState]()


def checkout_of(config: pytest.Config) -> str:
    """The checkout root of the session's rootdir (the rootdir itself when none is found)."""
    from runctx.roots import checkout_root  # noqa: PLC0415 - after the fresh cache is in place

    root = checkout_root(str(config.rootpath))
    return str(root) if isinstance(root, str) else str(config.rootpath)
