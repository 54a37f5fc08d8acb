"""Where each agent reads its settings files, per scope: what install writes and doctor reads."""

from __future__ import annotations

import os
from collections.abc import Mapping

from runctx.checkout import Root, rules_for
from runctx.exceptions import RunctxError
from runctx.hooks.agents.hosts import user_dir
from runctx.roots import checkout_root
from runctx.unknown import Unknown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.hooks.agents.base import Agent


def settings_path(
    chosen: Agent, scope: str, cwd: str, environ: Mapping[str, str] | None = None
) -> str:
    """The settings file of ``chosen`` at ``scope``, seen from ``cwd``."""
    environ = os.environ if environ is None else environ
    files = chosen.FILES
    if scope == "user":
        return os.path.join(user_dir(chosen, environ), files.user_name)
    relative = files.local if scope == "local" else files.project
    if not relative:
        msg = f"--scope {scope} is for Claude Code only (.claude/settings.local.json)"
        raise RunctxError(msg)
    rules = rules_for([os.geteuid()], environ)
    root = checkout_root(cwd, rules)
    if isinstance(root, Unknown):
        msg = f"cannot find the checkout of {cwd}: {root}"
        raise RunctxError(msg)
    if isinstance(root, Root) and root.directory_id in rules.homes:
        msg = (
            f"{cwd} is in no project: its checkout would be your home directory {root}, "
            f"where {relative} is not a project's file but your own settings for every "
            "project (or one the agent does not read). Run this in a project's checkout, "
            "or install for yourself with --scope user"
        )
        raise RunctxError(msg)
    return os.path.join(root, relative)
