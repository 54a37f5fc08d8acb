"""The agents runctx hooks into, one module each.

Everything runctx knows about one agent lives in its module (the
:class:`~runctx.hooks.agents.base.Agent` protocol): payload readers, the reply
table, the install spec, where its settings files are and what to tell the
user after an install. ``runctx hook``, ``runctx install`` and the tests of the
ready files in ``hooks/`` iterate over :data:`AGENT_NAMES`.

A hook face is the agent's name plus the suffix of its kind (``claude``,
``gemini-after``, ``codex-session-start``): :func:`face_of` reads it.
"""

from __future__ import annotations

import sys

from runctx.hooks.agents.base import AFTER_TOOL, FACE_SUFFIXES, PRE_TOOL, SESSION

TYPE_CHECKING = False
if TYPE_CHECKING:
    from runctx.hooks.agents.base import Agent

AGENT_NAMES = ("claude", "codex", "gemini", "cursor", "copilot", "qwen", "droid")


def agent(name: str) -> Agent:
    """The module of the agent called ``name`` (KeyError for an unknown name)."""
    if name not in AGENT_NAMES:
        raise KeyError(name)
    module_name = f"{__name__}.{name}"
    __import__(module_name)  # importlib would import warnings, on the hook's path
    found: Agent = sys.modules[module_name]
    return found


def faces_of(one: Agent) -> tuple[str, ...]:
    """The hook faces one agent has, pre-tool first."""
    kinds = {
        PRE_TOOL: one.PRE_TOOL_FACE,
        AFTER_TOOL: one.AFTER_TOOL_FACE,
        SESSION: one.SESSION_FACE,
    }
    return tuple(one.NAME + FACE_SUFFIXES[kind] for kind, face in kinds.items() if face is not None)


def all_faces() -> tuple[str, ...]:
    """Every hook face of every agent."""
    return tuple(face for name in AGENT_NAMES for face in faces_of(agent(name)))


def face_of(face: str) -> tuple[Agent, str] | None:
    """The agent and the kind of hook a face name says, or None when no agent has it."""
    for kind, suffix in FACE_SUFFIXES.items():
        if suffix and not face.endswith(suffix):
            continue
        name = face.removesuffix(suffix) if suffix else face
        if name in AGENT_NAMES:
            found = agent(name)
            if face in faces_of(found):
                return found, kind
    return None
