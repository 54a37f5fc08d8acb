"""Reading JSON on the fast path: ``json``'s own C scanner, without importing ``json``.

Importing ``json`` brings ``re`` and ``enum``: about 7 ms, a third of a hook's
whole life on a command that runs no test (``make bench`` measures the hook
against a console script that only parses the JSON). :func:`loads` gives
``json.loads``'s value with the C scanner ``json`` itself uses, and hands
everything it does not take itself (another encoding, a document that does
not parse, an interpreter without the scanner) to ``json.loads``; a property
test holds the two to the same answer on any input.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


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
