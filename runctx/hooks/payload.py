"""Reading an agent's hook payload: bounded in size, typed, never trusted.

Imported on the hook's hot path, so it imports nothing the interpreter has not
loaded at startup: no ``json`` (whose import brings ``re`` and ``enum``: about
7 ms, a third of a hook's whole life) and no ``select`` (a shared library). The
JSON is parsed by the C scanner ``json`` itself uses (:func:`loads`), and the
read is bounded in time by the hook's deadline timer, not here.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

MAX_INPUT_BYTES = 1024 * 1024
"""The most stdin a hook reads (1 MiB); more fails open, and the rest is drained."""

_CHUNK = 64 * 1024


class PayloadError(Exception):
    """The hook's input is not what the agent's protocol promises."""


def read_input(*, fd: int = 0, limit: int = MAX_INPUT_BYTES) -> bytes:
    """All of ``fd`` up to EOF, or :class:`PayloadError` past ``limit`` bytes.

    Input past the limit is read and dropped (so that the writer does not get
    a broken pipe); memory stays bounded by the limit. A writer that never
    closes ``fd`` is the caller's to cut: the hook reads under its deadline
    timer, which interrupts the read (and a drain it interrupts still ends in
    the size error, which is what went wrong). A non-blocking ``fd`` (handed
    down by whatever started the hook) is waited on, not refused.
    """
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = _read_chunk(fd)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            chunks.clear()
            try:
                while _read_chunk(fd):
                    pass
            except Exception:  # noqa: BLE001, S110 - the deadline, mostly: the size is the error
                pass
            msg = f"input is larger than {limit} bytes"
            raise PayloadError(msg)
        chunks.append(chunk)


def _read_chunk(fd: int) -> bytes:
    """One read of ``fd``; on a non-blocking one with nothing yet, wait until it has some."""
    while True:
        try:
            return os.read(fd, _CHUNK)
        except BlockingIOError:
            # Only when whatever started the hook handed down a non-blocking
            # stdin: the flag belongs to the shared open file, so it is not
            # changed; the wait, like the read, is cut by the caller's timer.
            import select  # noqa: PLC0415 - a shared library the usual path never loads

            select.select([fd], [], [])


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


class _DecoderDefaults:
    """What the C scanner reads from its decoder: ``json.JSONDecoder()``'s defaults."""

    __slots__ = ()
    strict = True
    object_hook = None
    object_pairs_hook = None
    array_hook = None  # read from Python 3.15 on
    parse_float = float
    parse_int = int
    parse_constant = {
        "-Infinity": float("-inf"),
        "Infinity": float("inf"),
        "NaN": float("nan"),
    }.__getitem__


def _c_scanner() -> Callable[[str, int], tuple[object, int]] | None:
    """The C scanner ``json`` uses, or None (another interpreter, or one it cannot be built on)."""
    try:
        from _json import make_scanner  # noqa: PLC0415 - CPython's; absent elsewhere

        # typeshed types the context as a scanner; the C code reads only the attributes above
        scanner: Callable[[str, int], tuple[object, int]] = make_scanner(
            _DecoderDefaults()  # type: ignore[arg-type]
        )
    except Exception:  # noqa: BLE001 - any failure leaves json.loads, which is always right
        return None
    return scanner


_SCAN = _c_scanner()
_WHITESPACE = " \t\n\r"
"""JSON's whitespace (``json.decoder.WHITESPACE``)."""


def loads(raw: str | bytes) -> object:
    """``json.loads(raw)``, the same value, without importing ``json`` when it can.

    ``json.loads`` decodes bytes (UTF-8 unless a BOM or a NUL says another
    encoding), skips whitespace, runs its C scanner and refuses anything
    after the value. This does the same steps with the same scanner and
    defaults. Whatever it does not take itself (another encoding: see
    :func:`_plain_text`; a document that does not parse; an interpreter
    without the C scanner) goes to ``json.loads``: its value, or its error
    with its message. A test holds the two to the same answer on any input;
    only the depth at which nesting meets the interpreter's recursion limit
    differs by the few frames ``json.loads`` adds.
    """
    text = _plain_text(raw)
    if text is not None and _SCAN is not None:
        start = len(text) - len(text.lstrip(_WHITESPACE))
        try:
            value, end = _SCAN(text, start)
        # StopIteration: no value at ``start``. On an error inside the document
        # the scanner raises json's JSONDecodeError (a ValueError) only when
        # ``json.decoder`` is loaded already, and SystemError when it is not (as
        # here): either way json.loads reads it again and says what is wrong.
        except (StopIteration, ValueError, SystemError):
            pass
        else:
            if end == len(text) or not text[end:].strip(_WHITESPACE):
                return value
    import json  # noqa: PLC0415 - what the scanner above did not take, and every error

    return json.loads(raw)


def _plain_text(raw: str | bytes) -> str | None:
    """``raw`` as text, or None when it is not UTF-8.

    No encoding is guessed: a document ``json`` would read as UTF-16 or
    UTF-32 (a BOM, or NUL bytes around its first character) or with a UTF-8
    BOM decodes here to text that no JSON document starts with, or with NULs
    that JSON allows nowhere, so the scanner refuses it and ``json.loads``
    reads it.
    """
    if isinstance(raw, str):
        return raw
    try:
        return raw.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return None
