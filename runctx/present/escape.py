r"""The one escaping step: foreign text made safe for each face that shows it.

Arguments, paths, command names and user names come from ``/proc``, the file
system or a payload, and any local user controls them. They are read with
surrogate escapes (``os.fsdecode``), so that no byte is lost, and they reach
a reader only through one of these functions, one per face:

- :func:`visible`: a person's terminal, stderr, and the text of a hook reply
  (which an agent shows). Every character that is not printable is written as
  an escape, so nothing can move the cursor, clear the screen, set a title or
  forge a line: C0 controls, DEL, newlines and tabs as ``\n``, ``\t``,
  ``\xNN``; C1 controls, bidirectional overrides, zero-width and other format
  or separator characters as ``\uNNNN``; a byte that is not UTF-8 as ``\xNN``
  (like ``ps``, which shows ``?``). A backslash is left alone, so the step is
  idempotent: escaping twice changes nothing. For exact values, use JSON.
- :func:`visible_lines`: the same, line by line, for a message whose own
  newlines separate its lines.
- :func:`json_text` and :func:`json_bytes`: the JSON contract. Text that is
  valid UTF-8 is given exactly. Text that is not is given with U+FFFD in
  place of each byte that is not UTF-8, and its exact bytes stand beside it in
  a ``*_bytes`` field, base64-encoded (absent when the text is exact). That is
  the one escape of non-UTF-8 bytes in JSON: unambiguous (the field's presence
  says the text was not exact) and reversible (decode the base64).
- :func:`json_controls_escaped`: the last step of every JSON text runctx
  writes (``status --json``, ``check --json``): every character that is not
  printable, and is not JSON's own layout, written as its ``\uXXXX`` escape
  (C1 controls such as U+009B, DEL, bidirectional overrides such as U+202E,
  zero-width and other format characters, line separators). A parser decodes
  the very same string: values stay exact, and no raw control reaches a
  terminal that shows the JSON.
- :func:`hook_json`: a hook's reply: JSON whose strings went through
  :func:`visible_lines`, written in ASCII, so that it holds neither a control
  character nor a lone surrogate, and every strict JSON parser accepts it.
- :func:`metric_label`: a label value in OpenMetrics (and Prometheus) text:
  escaped by :func:`visible` (the format has no escape for a control
  character, and a person may read the text on a terminal), then with the
  format's own escapes (``\\`` and ``\"``), so that no value can end its
  quotes or its line.

Imported on the hook's hot path: the standard library's ``json`` only
(``base64`` is imported by the JSON face when a value needs it).
"""

from __future__ import annotations

import base64
import json

_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
_ESCAPED_BYTES = range(0xDC80, 0xDD00)
"""Where ``surrogateescape`` puts the bytes 0x80-0xFF that are not UTF-8."""


def _escape_char(char: str) -> str:
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if code in _ESCAPED_BYTES:
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x80:  # noqa: PLR2004 - C0 controls and DEL
        return f"\\x{code:02x}"
    if code <= 0xFFFF:  # noqa: PLR2004
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def visible(text: str) -> str:
    r"""``text`` with every character that is not printable escaped, on one line.

    Printable means what :meth:`str.isprintable` says: letters, marks,
    numbers, punctuation, symbols and the ASCII space. Everything else
    (controls, format characters, surrogates, private use, unassigned code
    points, line and paragraph separators, other spaces) is escaped.
    """
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else _escape_char(char) for char in text)


def visible_lines(text: str) -> str:
    """``text`` escaped by :func:`visible` line by line, its own newlines kept."""
    if text.isprintable():
        return text
    return "\n".join(visible(line) for line in text.split("\n"))


def exact_bytes(text: str) -> bytes:
    r"""The bytes a text read with surrogate escapes stands for.

    A lone surrogate outside the escaped-byte range (which only a JSON
    payload can carry, as ``\ud800``) has no byte form: it is given as the
    UTF-8 of its visible escape.
    """
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return "".join(
            char
            if not 0xD800 <= ord(char) <= 0xDFFF or ord(char) in _ESCAPED_BYTES  # noqa: PLR2004
            else _escape_char(char)
            for char in text
        ).encode("utf-8", "surrogateescape")


def is_exact(text: str) -> bool:
    """Whether ``text`` is valid Unicode text with no surrogate (JSON can hold it exactly)."""
    if text.isascii():  # the most of any box's text, told without encoding it
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def json_text(text: str) -> str:
    """``text`` for a JSON string: exact when it is valid UTF-8, else U+FFFD per bad byte."""
    if is_exact(text):
        return text
    return exact_bytes(text).decode("utf-8", "replace")


def base64_bytes(text: str) -> str:
    """The exact bytes of ``text`` in base64."""
    return base64.b64encode(exact_bytes(text)).decode("ascii")


def json_bytes(text: str) -> str | None:
    """The exact bytes of ``text`` in base64, or None when :func:`json_text` is exact."""
    return None if is_exact(text) else base64_bytes(text)


def _json_escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:  # noqa: PLR2004
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def json_controls_escaped(text: str) -> str:
    r"""JSON text with every non-printable character outside its layout as a ``\u`` escape.

    ``text`` is what :func:`json.dumps` made with ``ensure_ascii=False``:
    its C0 controls inside strings are already escaped, and the newlines and
    spaces left are its layout. What it leaves raw (DEL, C1, bidirectional and
    other format characters, separators) is escaped here; decoded, every
    string is the same. A lone surrogate (a byte that is not UTF-8) is left for
    :func:`json_text`, which gives the exact bytes beside the text.
    """
    if text.isascii() and "\x7f" not in text:
        return text
    # Each distinct character is judged once, and the text rewritten by the C
    # ``translate``: a report of thousands of runs is megabytes of text.
    escaped = {ord(char): _json_escape(char) for char in set(text) if _escaped_in_json(char)}
    return text.translate(escaped) if escaped else text


def _escaped_in_json(char: str) -> bool:
    """Not printable, not JSON's layout, not a lone surrogate (the JSON face makes that exact)."""
    return not (char.isprintable() or char in "\n " or 0xD800 <= ord(char) <= 0xDFFF)  # noqa: PLR2004


def _visible_strings(value: object) -> object:
    if isinstance(value, str):
        return visible_lines(value)
    if isinstance(value, dict):
        return {visible(str(key)): _visible_strings(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_visible_strings(item) for item in value]
    return value


def hook_json(value: object) -> str:
    """A hook reply as JSON text: every string escaped for display, ASCII only."""
    return json.dumps(_visible_strings(value), ensure_ascii=True)


def metric_label(text: str) -> str:
    r"""``text`` as the inside of an OpenMetrics label value (``kind="..."``).

    Printable, as :func:`visible` makes it (``\x1b``, ``\n``, ``\xff`` for a
    byte that is not UTF-8), then ``\`` and ``"`` escaped as the format says.
    A parser gives back the visible text; the exact bytes are in the JSON.
    """
    return visible(text).replace("\\", "\\\\").replace('"', '\\"')


def terminal_bytes(text: str, encoding: str | None) -> bytes:
    r"""``text`` escaped line by line, encoded for a stream that uses ``encoding``.

    A character the encoding cannot hold (``…`` on an ASCII stdout) is written
    as its ``\u`` escape, so that writing never fails on any locale.
    """
    safe = visible_lines(text)
    try:
        return safe.encode(encoding or "utf-8", "backslashreplace")
    except LookupError:
        return safe.encode("utf-8", "backslashreplace")


def terminal_text(text: str, encoding: str | None) -> str:
    r"""``text`` escaped line by line, holding only what ``encoding`` can encode.

    For a writer that encodes on its own (pytest's terminal, which escapes a
    whole line again, backslashes included, when one character of it does
    not fit): a character the encoding cannot hold is written as its ``\u``
    escape here, so the writer has nothing left to escape.
    """
    try:
        return terminal_bytes(text, encoding).decode(encoding or "utf-8")
    except LookupError:
        return terminal_bytes(text, None).decode("utf-8")
