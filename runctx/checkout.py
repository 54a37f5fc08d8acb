"""The checkout root of a directory: the top of the working tree that holds it.

The nearest ancestor holding ``.git`` (a directory, or a file for a worktree or
a submodule) wins; else the nearest with another version-control marker; else
the nearest with a project marker; else the directory itself. Paths are
compared after ``realpath``, so two checkouts with the same directory name
under different parents are different roots.

The walk is linear in the depth of the path and opens no marker
(:mod:`runctx.pathwalk`): a marker is a directory or a regular file, so a FIFO
planted as ``pyproject.toml`` in a shared parent makes no root. A path longer
than ``PATH_MAX`` is unknown at once.
"""

from __future__ import annotations

import os

from runctx.pathwalk import nearest_marked, resolve, too_long

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.unknown import Unknown

GIT_MARKER = ".git"
VCS_MARKERS = (".hg", ".jj", ".svn", ".bzr", "_darcs", ".fslckout", "_FOSSIL_", ".pijul")
PROJECT_MARKERS = (
    "pyproject.toml",
    "setup.cfg",
    "setup.py",
    "tox.ini",
    "package.json",
    "Cargo.toml",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "Gemfile",
)


MARKER_GROUPS = ((GIT_MARKER,), VCS_MARKERS, PROJECT_MARKERS)
"""The markers in the order they win: ``.git``, then another VCS, then a project file."""


def checkout_root(cwd: str | Unknown) -> str | Unknown:
    """The checkout root of ``cwd``, or why it cannot be known.

    The record types are imported only to say why: the hook's path, which
    looks for a checkout's settings, stays free of them.
    """
    if not isinstance(cwd, str):
        return cwd
    if too_long(cwd):
        from runctx.unknown import Reason, Unknown  # noqa: PLC0415 - see the docstring

        return Unknown(Reason.MISSING, f"a path of {len(cwd)} characters is longer than PATH_MAX")
    real = resolve(cwd)
    try:
        os.stat(real)
    except OSError as error:
        from runctx.unknown import Reason, Unknown  # noqa: PLC0415 - see the docstring

        if isinstance(error, PermissionError):
            return Unknown(Reason.DENIED, f"cannot look into {real}")
        return Unknown(Reason.MISSING, f"{real} does not exist")
    found = nearest_marked(real, MARKER_GROUPS)
    return real if found is None else found


class RootCache:
    """Checkout roots by cwd for one scan: runs of one checkout share a cwd."""

    def __init__(self) -> None:
        """Start empty."""
        self._roots: dict[str, str | Unknown] = {}

    def root_of(self, cwd: str | Unknown) -> str | Unknown:
        """The checkout root of ``cwd``, computed once per distinct cwd."""
        if not isinstance(cwd, str):
            return cwd
        if cwd not in self._roots:
            self._roots[cwd] = checkout_root(cwd)
        return self._roots[cwd]
