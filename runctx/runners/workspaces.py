"""Which packages of a JavaScript monorepo a script command runs in: ``npm run unit -w web``.

npm, pnpm, yarn and bun run a ``package.json`` script in other packages of a
workspace when asked: ``npm run unit -w packages/web`` (``--workspace``, by
name or path; ``--workspaces``/``-ws``: every one), ``pnpm --filter @acme/web
unit`` (``-F``, ``--filter-prod``; ``-r``/``--recursive``: every one), ``yarn
workspace @acme/web unit`` (``yarn workspaces foreach run unit`` and yarn 1's
``yarn workspaces run unit``: every one), ``bun run --filter web unit``.

:func:`selection` reads that from the arguments of the program: the selectors
written and whether every package is asked. The packages they name are found
and read by :mod:`runctx.runners.tasks.package_json`.
"""

from __future__ import annotations

import attrs

from runctx.record_base import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["EVERY", "NONE", "Selection", "selection"]

_SELECTOR_OPTIONS = {
    "npm-script": frozenset({"-w", "--workspace"}),
    "pnpm-script": frozenset({"-F", "--filter", "--filter-prod"}),
    "bun-script": frozenset({"-F", "--filter"}),
    "turbo-task": frozenset({"-F", "--filter"}),
    "lerna-script": frozenset({"--scope"}),
    "nx-many": frozenset({"-p", "--projects"}),
}
"""Per task row kind, the options whose value selects packages."""
_EVERY_FLAGS = {
    "npm-script": frozenset({"--workspaces", "-ws", "--ws"}),
    "pnpm-script": frozenset({"-r", "--recursive", "recursive"}),
}
"""Per task row kind, the flags (or pnpm's ``recursive`` command) that ask every package."""
_EVERY_BY_DEFAULT = frozenset({"turbo-task", "lerna-script"})
"""Task rows that run in every package that has the script unless packages are selected."""


@attrs.frozen(repr=False, eq=False)
class Selection(Record):
    """The packages a script command runs in: ``selectors`` written, or ``every`` one."""

    selectors: tuple[str, ...] = ()
    every: bool = False

    def __bool__(self) -> bool:
        """Whether other packages than the one in the directory are asked."""
        return bool(self.selectors) or self.every


NONE = Selection()
EVERY = Selection(every=True)


def selection(kind: str, args: Sequence[str]) -> Selection:
    """The packages the script command of row ``kind``, with ``args`` after its program, runs in."""
    if kind == "yarn-script":
        return _yarn(args)
    options = _SELECTOR_OPTIONS.get(kind)
    if options is None:
        return NONE
    every_flags = _EVERY_FLAGS.get(kind, frozenset())
    selectors: list[str] = []
    every = False
    words = iter(args)
    for arg in words:
        if arg == "--":
            break
        name, eq, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if arg in every_flags:
            every = True
        elif name in options:
            value = value if eq else next(words, "")
            if value:
                selectors.append(value)
        elif len(name) > 2 and name[:2] in options and not name.startswith("--"):  # noqa: PLR2004
            selectors.append(name[2:])  # ``-wweb``, ``-Fweb``
    every = every or kind in _EVERY_BY_DEFAULT
    return Selection(tuple(selectors), every=every and not selectors)


def _yarn(args: Sequence[str]) -> Selection:
    """``yarn workspace NAME SCRIPT``, ``yarn workspaces foreach … run``, ``workspaces run``."""
    positionals = [arg for arg in args if not arg.startswith("-")]
    if positionals[:1] == ["workspace"] and len(positionals) > 1:
        return Selection((positionals[1],))
    if positionals[:1] == ["workspaces"] and positionals[1:2] in (["foreach"], ["run"]):
        return EVERY
    return NONE
