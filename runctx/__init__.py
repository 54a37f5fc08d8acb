"""runctx: which test runs are live here, which are ours, and which are foreign.

Take a scan (:func:`scan`) from the viewpoint of the current process
(:func:`viewpoint`) and read the :class:`Report`: its runs, each judged ours or
foreign with its reasons (:func:`is_foreign`, :func:`judge`). :func:`decision_for`
says whether a test run may start next to them, by the checkout's
:class:`Settings` (:func:`settings_for`); :func:`wait_for_turn` waits for this
checkout's other runs; :func:`stop_runs` stops runs known to be ours,
:func:`stop_orphans` this checkout's orphaned ones.

The public names are listed once, in :mod:`runctx.api`, and loaded on first
use, so that ``import runctx`` stays cheap for the hook that runs before every
shell command.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from runctx.api import *  # noqa: F403 - the public names, listed once there


def _load_public() -> list[str]:
    """Load every name :mod:`runctx.api` binds into this package; the sorted names."""
    __import__("runctx.api")  # importlib.import_module would import warnings
    api = vars(sys.modules["runctx.api"])
    public = {  # not the names an import hook may add (pytest's assertion rewriting)
        name: value
        for name, value in api.items()
        if name.isidentifier() and not name.startswith("_") and name != "annotations"
    }
    names = sorted([*public, "__version__"])
    globals().update(public, __all__=names)
    return names


def __getattr__(name: str) -> object:
    """A public name (and ``__all__``), loaded on first use."""
    if name == "__version__":
        __import__("importlib.metadata")  # email, zipfile: only when asked
        return sys.modules["importlib.metadata"].version("runctx")
    if name == "__all__":
        return _load_public()
    if _is_submodule(name):  # ``from runctx import pycache``: the import system loads it
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    if not name.startswith("_") and name in _load_public():
        return globals()[name]
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)


def _is_submodule(name: str) -> bool:
    """Whether ``name`` is one of this package's modules, told by one look at the directory.

    Asked before the public names are loaded, so that importing a submodule
    (``from runctx import pycache``) never loads the whole public API.
    """
    here = os.path.dirname(__file__)
    return os.path.isfile(os.path.join(here, f"{name}.py")) or os.path.isfile(
        os.path.join(here, name, "__init__.py")
    )


def lazy_attribute(
    namespace: dict[str, object], homes: Mapping[str, str], package: str, name: str
) -> object:
    """A package's public ``name``, loaded from its module in ``homes`` and kept in ``namespace``.

    What a package's ``__getattr__`` answers (:mod:`runctx.runners`'):
    the module is imported on first use only; AttributeError for a name it has not.
    """
    home = homes.get(name)
    if home is None:
        msg = f"module {package!r} has no attribute {name!r}"
        raise AttributeError(msg)
    __import__(home)  # importlib.import_module would import warnings, on the hook's path
    value = getattr(sys.modules[home], name)
    namespace[name] = value
    return value


def __dir__() -> list[str]:
    """The public names."""
    return _load_public()
