"""Lines of text with a role per span, and the colour a role has on a terminal.

A face that may colour its output (``runctx status``) builds :data:`Line`
values: spans of text, each with a role (``heading``, ``ours``...). Writing
them (:func:`runctx.present.output.write_lines`) escapes each span's text
with the one escaping step (:func:`runctx.present.escape.visible`) and only
then, when colour was asked for, wraps it in the role's SGR sequence: runctx's
own escape sequences are the only ones that ever reach the terminal.

Colour is decided once per stream (:func:`use_color`): ``--color=always``
colours, ``never`` does not, and ``auto`` (the default) colours a terminal
only, unless ``NO_COLOR`` is set and not empty (https://no-color.org) or
``TERM`` is ``dumb``. A flag on the command line wins over ``NO_COLOR``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import NamedTuple

COLOR_CHOICES = ("auto", "always", "never")

ROLES = {
    "heading": "1",  # bold
    "ours": "33",  # yellow: this checkout's other runs, the ones that conflict
    "foreign": "36",  # cyan: contention only
    "self": "2",  # dim
    "dim": "2",
    "new": "1;32",  # bold green: a run that appeared since the last refresh
    "ended": "31",  # red: a run that ended since the last refresh
    "warning": "1;33",  # bold yellow: what could not be seen
}
"""Each role's SGR parameters. A span without a role is written as it is."""


class Span(NamedTuple):
    """A piece of a line and its role (``""``: none)."""

    text: str
    role: str = ""


Line = tuple[Span, ...]


def line(*spans: Span | str) -> Line:
    """A line of spans; a plain string is a span without a role."""
    return tuple(span if isinstance(span, Span) else Span(span) for span in spans)


def plain_text(lines: Sequence[Line]) -> str:
    """The lines without colour, joined (their text not yet escaped)."""
    return "\n".join("".join(span.text for span in spans) for spans in lines)


def line_width(spans: Line) -> int:
    """How many characters the line's text has."""
    return sum(len(span.text) for span in spans)


def use_color(choice: str, *, is_terminal: bool, environ: Mapping[str, str] | None = None) -> bool:
    """Whether to colour a stream, by ``--color`` and the environment (module docstring)."""
    environ = os.environ if environ is None else environ
    if choice == "always":
        return True
    if choice == "never":
        return False
    if environ.get("NO_COLOR", ""):
        return False
    if environ.get("TERM", "") == "dumb":
        return False
    return is_terminal


def sgr(role: str) -> str:
    """The escape sequence that starts ``role``'s colour (``""`` for no role)."""
    code = ROLES.get(role, "")
    return f"\x1b[{code}m" if code else ""


RESET = "\x1b[0m"
