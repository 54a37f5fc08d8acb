r"""Editing a JSON document so that what was not changed is written back as it was.

``runctx install`` adds or removes a few hook entries in a user's settings
file. Writing the whole document anew with :func:`json.dumps` would rewrite
every value: ``2.50`` as ``2.5``, ``1e5`` as ``100000.0``, ``"\u00e9"`` as
``"é"``, a compact ``{"a":1}`` spread over lines. So the text is parsed into
:class:`Node` spans, the change is made on the values, and :func:`render`
copies the original text of every value that is still there, writes only the
new ones (indented like their neighbours), and takes out only the removed
ones with their separators.

:func:`edit` checks its result: the new text parses to exactly the changed
document, or the document is written whole (every value kept, the layout not).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import TypeVar

Result = TypeVar("Result")
JSONObject = dict[str, object]

_SPACE = re.compile(r"[ \t\n\r]*")
# Possessive quantifiers (``*+``): a comment is taken whole or not at all, so no
# backtracking can end one early and read its text (a "}" in "// foo }") as JSON.
_SPACE_AND_COMMENTS = re.compile(r"(?:[ \t\n\r]|//[^\n]*+|/\*(?:[^*]|\*(?!/))*+\*/)*+")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_CONSTANTS = {"true": True, "false": False, "null": None}
_LOOKAHEAD = 64
"""How many removed items an array match skips over before taking an item for new."""


class Node:
    """A value in the text: its span and, for a container, the spans of its parts.

    ``value`` is the parsed value; a container's is the very dict or list of
    the document being edited, so a part that survives the change is found
    again by identity. ``parts`` holds ``(key, start, node)`` for an object's
    members (``start``: where the key begins) and ``(None, start, node)`` for
    an array's items.
    """

    __slots__ = ("end", "parts", "start", "value")

    def __init__(self, start: int, end: int, value: object, parts: list[Part]) -> None:
        """Hold one value's span."""
        self.start = start
        self.end = end
        self.value = value
        self.parts = parts


Part = tuple[str | None, int, Node]


def _number(literal: str) -> object:
    if any(mark in literal for mark in ".eE"):
        value = float(literal)
        if value in (float("inf"), float("-inf")):
            msg = f"the number {literal} does not fit a float"
            raise ValueError(msg)
        return value
    return int(literal)


def parse(text: str, *, comments: bool = False, trailing_commas: bool = False) -> Node:
    """The span tree of the one JSON value in ``text`` (ValueError when it is not one).

    Strict JSON, but for ``comments`` (``//`` to the end of the line, ``/* */``)
    wherever whitespace may stand, and ``trailing_commas`` (one ``,`` before a
    closing ``}`` or ``]``), each only when asked for. Both stay in the text:
    comments are in the spans between values, which rendering copies.
    """
    return _Parser(text, comments=comments, trailing_commas=trailing_commas).document()


class _Parser:
    def __init__(self, text: str, *, comments: bool, trailing_commas: bool) -> None:
        self.text = text
        self.space = _SPACE_AND_COMMENTS if comments else _SPACE
        self.trailing_commas = trailing_commas

    def document(self) -> Node:
        text = self.text
        node, at = self.value(self.skip(0))
        if self.skip(at) != len(text):
            msg = f"extra data at {at}"
            raise ValueError(msg)
        return node

    def skip(self, at: int) -> int:
        match = self.space.match(self.text, at)
        return match.end() if match else at

    def value(self, at: int) -> tuple[Node, int]:
        text = self.text
        if at >= len(text):
            msg = "unexpected end of text"
            raise ValueError(msg)
        char = text[at]
        if char in "{[":
            return self.container(at, "}" if char == "{" else "]")
        if char == '"':
            value, end = scanstring(text, at + 1, True)  # noqa: FBT003 - strict
            return Node(at, end, value, []), end
        for literal, constant in _CONSTANTS.items():
            if text.startswith(literal, at):
                end = at + len(literal)
                return Node(at, end, constant, []), end
        match = _NUMBER.match(text, at)
        if match and match.end() > at:
            return Node(at, match.end(), _number(match.group()), []), match.end()
        msg = f"unexpected character at {at}"
        raise ValueError(msg)

    def key(self, at: int) -> tuple[str, int]:
        """An object's key at ``at`` and where its value starts."""
        text = self.text
        if not text.startswith('"', at):
            msg = f"expected a key at {at}"
            raise ValueError(msg)
        key, at = scanstring(text, at + 1, True)  # noqa: FBT003 - strict
        at = self.skip(at)
        if not text.startswith(":", at):
            msg = f"expected ':' at {at}"
            raise ValueError(msg)
        return key, self.skip(at + 1)

    def container(self, start: int, closing: str) -> tuple[Node, int]:
        """An object (``closing`` is ``}``) or an array, from its opening at ``start``."""
        text = self.text
        keyed = closing == "}"
        members: dict[str, object] = {}
        items: list[object] = []
        parts: list[Part] = []
        at = self.skip(start + 1)
        if text.startswith(closing, at):
            return Node(start, at + 1, members if keyed else items, parts), at + 1
        while True:
            key, part_start = None, at
            if keyed:
                key, at = self.key(at)
            child, at = self.value(at)
            if key is None:
                items.append(child.value)
            elif key in members:
                msg = f"duplicate key {key!r}"
                raise ValueError(msg)
            else:
                members[key] = child.value
            parts.append((key, part_start, child))
            at = self.skip(at)
            if not text.startswith(closing, at):
                if not text.startswith(",", at):
                    msg = f"expected ',' or {closing!r} at {at}"
                    raise ValueError(msg)
                at = self.skip(at + 1)
                if not (self.trailing_commas and text.startswith(closing, at)):
                    continue
            return Node(start, at + 1, members if keyed else items, parts), at + 1


_EXTRAS = re.compile(
    r'"(?:[^"\\\n]|\\.)*"'  # a string: copied as it is
    r"|(?P<comment>//[^\n]*|/\*(?:[^*]|\*(?!/))*\*/)"
    r"|(?P<comma>,)(?=(?:[ \t\n\r]|//[^\n]*+|/\*(?:[^*]|\*(?!/))*+\*/)*+[}\]])"
)


def to_strict(text: str, *, comments: bool, trailing_commas: bool) -> str:
    """``text`` with its comments and trailing commas (where allowed) blanked out.

    Each is replaced by spaces (a comment's newlines kept), so positions in an
    error message still point into the file. What is not allowed stays, for
    the strict parser to refuse. ValueError for a comment that never ends.
    """

    def blank(found: re.Match[str]) -> str:
        if found.group("comment") is not None and comments:
            return re.sub(r"[^\n]", " ", found.group())
        if found.group("comma") is not None and trailing_commas:
            return " "
        return found.group()

    strict = _EXTRAS.sub(blank, text)
    if comments and "/*" in _EXTRAS.sub("", strict):
        position = strict.find("/*")
        msg = f"a comment that never ends at {position}"
        raise ValueError(msg)
    return strict


def has_extras(text: str, *, comments: bool, trailing_commas: bool) -> bool:
    """Whether ``text`` holds a comment or a trailing comma that it may hold."""
    if not (comments or trailing_commas):
        return False
    return to_strict(text, comments=comments, trailing_commas=trailing_commas) != text


# --------------------------------------------------------------------------- rendering


def fresh(value: object, indent: str | None, unit: str) -> str:
    """``value`` as new JSON text: on lines below ``indent``, or compact when None."""
    if indent is None:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    else:
        text = json.dumps(value, indent=unit, ensure_ascii=False, allow_nan=False)
        text = text.replace("\n", "\n" + indent)
    # A lone surrogate (a "\ud800" in the file) is written back as the escape it was.
    return _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def _line_indent(text: str, at: int) -> str:
    line_start = text.rfind("\n", 0, at) + 1
    line = text[line_start:at]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _new_gap(gap: str, item_indent: str | None) -> str:
    """What separates a new item from the one before.

    ``gap`` (the last one in the container) when it is only a comma and
    whitespace; else, since it holds a comment that belongs to its
    neighbours, a plain comma and line break.
    """
    if _SPACE.fullmatch(gap, 1) and gap.startswith(","):
        return gap
    return "," + ("\n" + item_indent if item_indent is not None else " ")


class _Renderer:
    def __init__(self, text: str, unit: str, *, compact: bool) -> None:
        self.text = text
        self.unit = unit
        self.compact = compact

    def render(self, node: Node, value: object) -> str:
        if isinstance(node.value, dict) and isinstance(value, dict):
            return self._container(node, value, list(value.items()), "{", "}")
        if isinstance(node.value, list) and isinstance(value, list):
            return self._container(node, value, [(None, item) for item in value], "[", "]")
        if not node.parts and type(value) is type(node.value) and value == node.value:
            return self.text[node.start : node.end]
        return fresh(value, self._indent_below(node), self.unit)

    def _indent_below(self, node: Node) -> str | None:
        """How a new value at ``node`` is indented: like its line, or compact."""
        if "\n" not in self.text[node.start : node.end] and node.parts:
            return None
        return _line_indent(self.text, node.start)

    def _match(self, node: Node, entries: list[tuple[str | None, object]]) -> list[int | None]:
        """The index of the original part each new entry is (by key, or in order), or None.

        An array's items are matched in order: a container by identity (one
        look-up), a scalar by type and value among the next
        :data:`_LOOKAHEAD` items after the last match, so the whole match is
        linear in the number of items.
        """
        if node.parts and node.parts[0][0] is not None:
            by_key = {part[0]: index for index, part in enumerate(node.parts)}
            return [by_key.get(key) if key is not None else None for key, _ in entries]
        by_identity = {
            id(part[2].value): index
            for index, part in enumerate(node.parts)
            if isinstance(part[2].value, (dict, list))
        }
        found: list[int | None] = []
        next_part = 0
        for _, item in entries:
            match = None
            if isinstance(item, (dict, list)):
                match = by_identity.get(id(item))
                if match is not None and match < next_part:
                    match = None
            else:
                for index in range(next_part, min(len(node.parts), next_part + _LOOKAHEAD)):
                    original = node.parts[index][2].value
                    if type(item) is type(original) and item == original:
                        match = index
                        break
            if match is not None:
                next_part = match + 1
            found.append(match)
        return found

    def _container(
        self,
        node: Node,
        value: dict[str, object] | list[object],
        entries: list[tuple[str | None, object]],
        opening: str,
        closing: str,
    ) -> str:
        text = self.text
        if not entries:
            return text[node.start : node.end] if not node.parts else opening + closing
        matched = self._match(node, entries)
        order = [index for index in matched if index is not None]
        if order != sorted(order):
            return fresh(value, _line_indent(text, node.start), self.unit)
        parts = node.parts
        if parts:
            lead = text[node.start + 1 : parts[0][1]]
            trail = text[parts[-1][2].end : node.end - 1]
            gaps = [text[parts[i][2].end : parts[i + 1][1]] for i in range(len(parts) - 1)]
        else:
            outer = _line_indent(text, node.start)
            lead = "" if self.compact else "\n" + outer + self.unit
            trail = "" if self.compact else "\n" + outer
            gaps = []
        item_indent = _line_indent(lead, len(lead)) if "\n" in lead else None
        if gaps:
            default_gap = _new_gap(gaps[-1], item_indent)
        elif item_indent is not None:
            default_gap = _new_gap("," + lead, item_indent)
        else:
            default_gap = ", "
        colon = ": "
        if parts and parts[0][0] is not None:
            key_end = scanstring(text, parts[0][1] + 1, True)[1]  # noqa: FBT003
            colon = text[key_end : parts[0][2].start]
        pieces: list[str] = []
        for (key, item), index in zip(entries, matched, strict=True):
            if index is not None:
                part = node.parts[index]
                head = text[part[1] : part[2].start]
                body = head + self.render(part[2], item)
                gap = gaps[index - 1] if index > 0 else default_gap
            else:
                body = fresh(item, item_indent, self.unit)
                if key is not None:
                    body = fresh(key, None, self.unit) + colon + body
                gap = default_gap
            pieces.append(body if not pieces else gap + body)
        return opening + lead + "".join(pieces) + trail + closing


class LayoutLostError(ValueError):
    """The change cannot be written keeping the text's comments or trailing commas."""


def _comments(text: str) -> Counter[str]:
    """The comments in ``text``, each as often as it stands there."""
    return Counter(
        found.group() for found in _EXTRAS.finditer(text) if found.group("comment") is not None
    )


def edit(  # noqa: PLR0913 - the two extras are the format's, not the edit's
    text: str,
    change: Callable[[JSONObject], Result],
    unit: str,
    whole: Callable[[JSONObject], str],
    *,
    comments: bool = False,
    trailing_commas: bool = False,
) -> tuple[JSONObject, str, Result]:
    """Apply ``change`` to the JSON object in ``text``; the new text keeps what was not changed.

    ``change(document)`` edits the document in place and returns a result.
    Returns the document, its new text, and that result. When the new text
    would not parse back to exactly the changed document, ``whole(document)``
    writes it anew instead, unless ``text`` holds comments or trailing commas
    (allowed by ``comments``, ``trailing_commas``), which writing it anew would
    lose: then :class:`LayoutLostError`. ValueError when ``text`` is not one
    JSON object.
    """
    root = parse(text, comments=comments, trailing_commas=trailing_commas)
    document = root.value
    if not isinstance(document, dict):
        msg = "not a JSON object"
        raise ValueError(msg)  # noqa: TRY004 - what a parser of text raises
    result = change(document)
    compact = "\n" not in text.strip() and bool(root.parts)  # one line: keep it one line
    rendered: str | None
    try:
        body = _Renderer(text, unit, compact=compact).render(root, document)
        rendered = text[: root.start] + body + text[root.end :]
        strict = to_strict(rendered, comments=comments, trailing_commas=trailing_commas)
        if json.loads(strict) != document:
            rendered = None
    except (ValueError, RecursionError):
        rendered = None
    if rendered is not None:
        if comments and _comments(text) - _comments(rendered):
            msg = "the change would drop a comment of the text"
            raise LayoutLostError(msg)
        return document, rendered, result
    if has_extras(text, comments=comments, trailing_commas=trailing_commas):
        msg = "the change cannot keep the text's comments or trailing commas"
        raise LayoutLostError(msg)
    return document, whole(document), result
