"""Whether a ``git commit`` here may run a hook at all, told without the parser.

``git commit`` and ``git push`` run the checkout's hooks, which may run its
tests (:mod:`runctx.runners.tasks.git_hooks` reads them, behind the parser).
Most checkouts install none, and agents commit often, so the fast path asks
first, with a few ``stat`` calls and no import: the checkout's ``.git`` is a
directory, neither its ``config`` nor the user's global one sets
``core.hooksPath``, and none of the hooks those commands run is in
``.git/hooks``. Only then does such a command surely start nothing. Anything
else (a worktree's ``.git`` file, a ``hooksPath``, a hook there, ``git -C``
into another directory, a file that cannot be read) goes on to the parser.
"""

from __future__ import annotations

import os

from runctx.fastpath.scripts import read_project_file

HOOK_NAMES = ("pre-commit", "post-commit", "pre-push")
"""The hooks ``git commit`` and ``git push`` run (as ``runners.tasks.git_hooks.HOOKS_OF``)."""


def may_run_hooks(command: str, top: str | None) -> bool:
    """False only if ``command``'s git commands surely run no hook in the checkout ``top``."""
    if top is None or " -C" in command or "--git-dir" in command or "--work-tree" in command:
        return True
    git = os.path.join(top, ".git")
    if not os.path.isdir(git):
        return True
    home = os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    for config in (
        os.path.join(git, "config"),
        os.path.join(home, ".gitconfig"),
        os.path.join(xdg, "git", "config"),
    ):
        if not os.path.exists(config):
            continue
        data = read_project_file(config)
        if data is None or b"hookspath" in data.lower():
            return True
    return any(os.path.lexists(os.path.join(git, "hooks", name)) for name in HOOK_NAMES)
