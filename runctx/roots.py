"""The checkout root of a directory, or why it cannot be known: the walk's answers as values.

:mod:`runctx.checkout` walks (and raises ``OSError`` where it cannot); this
module gives each face a :class:`~runctx.checkout.Root` or an explicit
:class:`~runctx.unknown.Unknown` saying why.
"""

from __future__ import annotations

import os

from runctx.checkout import MAX_DEPTH, Root, RootRules, WalkError, find_root, root_of_path, too_long
from runctx.climb import ClimbBudget, ClimbSpentError
from runctx.unknown import Reason, Unknown


def _unopenable(cwd: str, error: Exception) -> Unknown:
    """Why the directory ``cwd`` could not be opened."""
    shown = os.path.abspath(cwd)
    if isinstance(error, PermissionError):
        return Unknown(Reason.DENIED, f"cannot look into {shown}")
    if isinstance(error, NotADirectoryError):
        return Unknown(Reason.MISSING, f"{shown} is not a directory")
    return Unknown(Reason.MISSING, f"{shown} does not exist")


def checkout_root(
    cwd: str | Unknown, rules: RootRules | None = None, budget: ClimbBudget | None = None
) -> Root | Unknown:
    """The checkout root of the directory ``cwd`` (:func:`~runctx.checkout.find_root`), or why not.

    ``rules`` default to those of the calling process's real uid. A path
    longer than ``PATH_MAX`` is unknown at once; so is the root of a walk
    charged to a ``budget`` that is spent.
    """
    if not isinstance(cwd, str):
        return cwd
    if too_long(cwd):
        return Unknown(Reason.MISSING, f"a path of {len(cwd)} characters is longer than PATH_MAX")
    try:
        return find_root(cwd, rules, budget)
    except ClimbSpentError as spent:
        return spent.unknown
    except WalkError as error:
        return Unknown(Reason.DENIED, f"cannot walk up from {cwd}: {error.strerror}")
    except (OSError, ValueError) as error:  # ValueError: a NUL or a lone surrogate in the text
        return _unopenable(cwd, error)


def root_at(path: str) -> Root | Unknown:
    """``path`` itself as a root (``--root``-style: the caller names the directory)."""
    try:
        return root_of_path(path)
    except OSError as error:
        real = os.path.realpath(path)
        if isinstance(error, PermissionError):
            return Unknown(Reason.DENIED, f"cannot look into {real}")
        return Unknown(Reason.MISSING, f"{real} does not exist")


def root_of_removed(text: str, rules: RootRules | None = None) -> Root:
    """The root of a removed directory known only by its former path text.

    Nothing of it can be opened: the root is the topmost removed directory
    on the path (by text), marked ``deleted``, and ``holder`` is the checkout
    root of the nearest directory above it that is still there (found by its
    text, in the caller's view).
    """
    removed = text.rstrip("/") or "/"
    above = os.path.dirname(removed) or "/"
    for _ in range(MAX_DEPTH):
        if above == removed or os.path.isdir(above):
            break
        removed, above = above, os.path.dirname(above) or "/"
    holder = checkout_root(above, rules)
    return Root(removed, None, True, holder if isinstance(holder, Root) else None)  # noqa: FBT003
