"""The checkout root of a directory: the top of the working tree that holds it.

The nearest ancestor holding ``.git`` (a directory, or a file for a worktree or
a submodule) wins; else the nearest with another version-control marker; else
the nearest with a project marker; else the directory itself. Paths are
compared after ``realpath``, so two checkouts with the same directory name
under different parents are different roots.
"""

from __future__ import annotations

import os

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


def _ancestors(path: str) -> list[str]:
    chain = [path]
    while True:
        parent = os.path.dirname(chain[-1])
        if parent == chain[-1]:
            return chain
        chain.append(parent)


def _nearest_with(chain: list[str], markers: tuple[str, ...]) -> str | None:
    for directory in chain:
        for marker in markers:
            if os.path.lexists(os.path.join(directory, marker)):
                return directory
    return None


def checkout_root(cwd: str | Unknown) -> str | Unknown:
    """The checkout root of ``cwd``, or why it cannot be known.

    The record types are imported only to say why: the hook's path, which
    looks for a checkout's settings, stays free of them.
    """
    if not isinstance(cwd, str):
        return cwd
    real = os.path.realpath(cwd)
    try:
        os.stat(real)
    except OSError as error:
        from runctx.unknown import Reason, Unknown  # noqa: PLC0415 - see the docstring

        if isinstance(error, PermissionError):
            return Unknown(Reason.DENIED, f"cannot look into {real}")
        return Unknown(Reason.MISSING, f"{real} does not exist")
    chain = _ancestors(real)
    for markers in ((GIT_MARKER,), VCS_MARKERS, PROJECT_MARKERS):
        found = _nearest_with(chain, markers)
        if found is not None:
            return found
    return real


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
