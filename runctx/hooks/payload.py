"""Reading an agent's hook payload: bounded in size, typed, never trusted.

Imported on the hook's fast path (:mod:`runctx.fastpath`): the JSON is parsed
by :func:`runctx.fastpath.jsonscan.loads` (``json``'s C scanner, ``json`` itself
not imported). The read is bounded in size here and in time by the hook's
deadline timer (:func:`runctx.fastpath.hook.read_input`).
"""

from __future__ import annotations

import os

from runctx.fastpath.jsonscan import loads

MAX_INPUT_BYTES = 1024 * 1024
"""The most stdin a hook reads (1 MiB); more fails open, and the rest is drained
(:func:`runctx.fastpath.hook.read_input`)."""


class PayloadError(Exception):
    """The hook's input is not what the agent's protocol promises."""


def field(payload: dict[str, object], name: str, kind: type, *, where: str = "") -> object:
    """``payload[name]`` if it has type ``kind``; None if absent or null; else PayloadError."""
    value = payload.get(name)
    if value is None or isinstance(value, kind):
        return value
    label = f"{where}.{name}" if where else name
    msg = f"field {label!r} is {type(value).__name__}, expected {kind.__name__}"
    raise PayloadError(msg)


def text(payload: dict[str, object], name: str, *, where: str = "") -> str | None:
    """``payload[name]`` as a string, None if absent or null, else PayloadError."""
    value = field(payload, name, str, where=where)
    return value if isinstance(value, str) else None


SESSION_ID_MAX = 256
"""A session id longer than this is not taken (no agent sends one that long)."""


def session_id(payload: dict[str, object], *names: str) -> str | None:
    """The first of ``names`` that holds a session id; None when none does.

    Lenient on purpose: a missing or malformed id only means that "your own
    run" cannot be told, never that the hook fails.
    """
    for name in names:
        value = payload.get(name)
        if isinstance(value, str) and 0 < len(value) <= SESSION_ID_MAX and value.isprintable():
            return value
    return None


def required_text(payload: dict[str, object], name: str, *, where: str = "") -> str:
    """``payload[name]`` as a string; PayloadError if absent or of another type."""
    value = text(payload, name, where=where)
    if value is None:
        label = f"{where}.{name}" if where else name
        msg = f"field {label!r} is missing"
        raise PayloadError(msg)
    return value


def mapping(payload: dict[str, object], name: str, *, where: str = "") -> dict[str, object]:
    """``payload[name]`` as an object; an empty one if absent; PayloadError if another type."""
    value = field(payload, name, dict, where=where)
    return value if isinstance(value, dict) else {}


def directory(cwd: str) -> str:
    """``cwd`` as an absolute path; PayloadError if it is empty or relative."""
    if not cwd or not os.path.isabs(cwd):
        msg = f"cwd {cwd!r} is not an absolute path"
        raise PayloadError(msg)
    return cwd


def expect_event(payload: dict[str, object], expected: str, face: str) -> None:
    """PayloadError unless ``hook_event_name`` is absent or ``expected``."""
    event = text(payload, "hook_event_name")
    if event is not None and event != expected:
        msg = f"runctx hook {face} answers {expected}, not {event}"
        raise PayloadError(msg)


def shell_tool_input(
    payload: dict[str, object], tool: str
) -> tuple[str, str, dict[str, object]] | None:
    """The command, the absolute cwd and the tool input of a shell tool call.

    None when the call is for another tool than ``tool``: the payload shape
    that Claude Code, Codex CLI and Gemini CLI share (``tool_name``,
    ``tool_input.command``, ``cwd``).
    """
    if required_text(payload, "tool_name") != tool:
        return None
    tool_input = mapping(payload, "tool_input")
    command = required_text(tool_input, "command", where="tool_input")
    return command, directory(required_text(payload, "cwd")), tool_input


def json_object(raw: str | bytes, what: str) -> dict[str, object]:
    """``raw`` parsed as a JSON object, or PayloadError saying what ``what`` is instead."""
    try:
        value = loads(raw)
    except RecursionError:
        msg = f"{what} is not JSON: nested too deeply"
        raise PayloadError(msg) from None
    except ValueError as error:
        msg = f"{what} is not JSON: {error}"
        raise PayloadError(msg) from None
    if not isinstance(value, dict):
        msg = f"{what} is a JSON {type(value).__name__}, expected an object"
        raise PayloadError(msg)
    return value
