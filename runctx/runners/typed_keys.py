r"""Commands typed into a terminal by another program: ``tmux send-keys 'pytest' Enter``.

A terminal multiplexer can type keys into one of its panes, and the shell
there runs each line the keys end with Enter. What those lines run is the
command's: ``tmux send-keys -t work 'pytest -x' Enter`` starts a run as surely
as ``pytest -x`` typed by hand, in the pane's shell (taken to be in the same
directory). Keys typed without Enter run nothing yet.

- tmux (``send-keys``, alias ``send``; its manual): each argument is a key
  name (``Enter``, ``C-m``, ``Space``, ``C-c``) or, when no key has that
  name, text typed as it is; ``-l`` types every argument as text; ``-H``
  takes each argument for a character's hex code; ``-X`` sends a command to
  copy mode, which types nothing. Several tmux commands may follow one
  another, separated by a ``;`` word.
- screen (``-X stuff TEXT``): the text is typed with its escapes (``\n``,
  ``\r``, ``^M``, octal ``\015``).

:func:`typed_lines` gives the lines that are entered, or None when the
command types nothing into a terminal (it is read as a wrapper, or not).
"""

from __future__ import annotations

import re

from runctx.regex import on_first_use

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

TYPING_PROGRAMS = frozenset({"tmux", "screen"})
"""The programs :func:`typed_lines` reads."""

_TMUX_GLOBAL_VALUES = frozenset({"-L", "-S", "-f", "-T", "-c"})
_TMUX_SEND = frozenset({"send-keys", "send"})
_SEND_VALUES = frozenset({"-c", "-N", "-t"})
_ENTER_KEYS = frozenset({"enter", "c-m", "^m", "kpenter", "c-j", "^j"})
_CANCEL_KEYS = frozenset({"c-c", "^c", "c-u", "^u"})
"""Keys after which the line typed so far is not run (an interrupt, a line kill)."""
_KEY_NAMES = frozenset(
    {f"f{n}" for n in range(1, 25)}
    | {"ic", "insert", "dc", "delete", "home", "end", "npage", "pagedown", "pgdn", "ppage"}
    | {"pageup", "pgup", "btab", "bspace", "escape", "up", "down", "left", "right", "any"}
)
"""tmux's key names (case does not matter): a word that is one types no text."""
_MODIFIED_KEY = on_first_use(r"(?:[CMS]-)+(\S)|(?:[CMS]-)+(\w+)|\^.|KP[0-9/*+.-]", re.IGNORECASE)
_SPELLED = {"space": " ", "tab": "\t"}
_SCREEN_ESCAPES = on_first_use(r"\\([0-7]{1,3}|.)|\^(.)", re.DOTALL)
_SCREEN_CHARS = {"n": "\n", "r": "\n", "t": "\t"}


def typed_lines(program: str, args: Sequence[str]) -> tuple[str, ...] | None:
    """The lines that ``program args`` types into a terminal and enters.

    None when ``program`` types no keys with these arguments (``tmux new
    pytest`` starts a command: the caller reads it as a wrapper). An empty
    tuple when keys are typed but no line is entered.
    """
    if program == "tmux":
        return _tmux(args)
    if program == "screen":
        return _screen(args)
    return None


def _tmux(args: Sequence[str]) -> tuple[str, ...] | None:
    j = 0
    while j < len(args) and args[j].startswith("-") and len(args[j]) > 1:
        if args[j] in {"-V", "-h"}:
            return None
        j += 2 if args[j] in _TMUX_GLOBAL_VALUES else 1
    commands = _tmux_commands(args[j:])
    if not commands or not any(words[0] in _TMUX_SEND for words in commands):
        return None
    text: list[str] = []
    for words in commands:
        if words[0] in _TMUX_SEND:
            _send_keys(words[1:], text)
    return _entered("".join(text))


def _tmux_commands(words: Sequence[str]) -> list[Sequence[str]]:
    """The tmux commands separated by ``;`` words (``send-keys x ; send-keys Enter``)."""
    commands: list[Sequence[str]] = []
    start = 0
    for k, word in enumerate(words):
        if word in {";", "\\;"}:
            if k > start:
                commands.append(words[start:k])
            start = k + 1
    if start < len(words):
        commands.append(words[start:])
    return commands


def _send_keys(words: Sequence[str], text: list[str]) -> None:
    literal = hexadecimal = False
    j = 0
    while j < len(words) and words[j].startswith("-") and len(words[j]) > 1:
        word = words[j]
        j += 1
        if word == "--":
            break
        for k, flag in enumerate(word[1:], start=1):
            if flag == "X":
                return  # a copy-mode command: nothing is typed
            if f"-{flag}" in _SEND_VALUES:
                j += 0 if k + 1 < len(word) else 1  # ``-tpane`` or ``-t pane``
                break
            literal = literal or flag == "l"
            hexadecimal = hexadecimal or flag == "H"
    text.extend(_key(word, literal=literal, hexadecimal=hexadecimal) for word in words[j:])


def _key(word: str, *, literal: bool, hexadecimal: bool) -> str:
    """What one ``send-keys`` argument types: text, a newline for Enter, a cancel mark."""
    if hexadecimal:
        return _hex_char(word)
    lowered = word.lower()
    if literal:
        return word
    if lowered in _ENTER_KEYS:
        return "\n"
    if lowered in _CANCEL_KEYS:
        return "\x15"  # the line typed so far is dropped
    if lowered in _KEY_NAMES or _modified_key(word):
        return ""  # another key (Escape, Up, F5, C-l): it types no text
    return _SPELLED.get(lowered, word)


def _hex_char(word: str) -> str:
    """The character ``send-keys -H`` types for one hex code."""
    try:
        char = chr(int(word, 16))
    except (ValueError, OverflowError):
        return ""
    return "\n" if char == "\r" else char  # a terminal enters the line on either


def _modified_key(word: str) -> bool:
    """Whether ``word`` names a key with modifiers (``C-l``, ``M-Up``, ``^D``) or the keypad's."""
    match = _MODIFIED_KEY().fullmatch(word)
    if match is None:
        return False
    name = match.group(2)
    return name is None or name.lower() in _KEY_NAMES or name.lower() in _ENTER_KEYS


def _screen(args: Sequence[str]) -> tuple[str, ...] | None:
    for j, word in enumerate(args[:-2]):
        if word == "-X" and args[j + 1] == "stuff":
            return _entered(_SCREEN_ESCAPES().sub(_screen_char, args[j + 2]))
    return None


def _screen_char(match: re.Match[str]) -> str:
    escaped, control = match.group(1), match.group(2)
    if control is not None:
        return "\n" if control in "MJmj" else ("\x15" if control in "CUcu" else "")
    if escaped.isdigit():
        code = int(escaped, 8)
        return "\n" if code in {10, 13} else chr(code)
    return _SCREEN_CHARS.get(escaped, escaped)


def _entered(text: str) -> tuple[str, ...]:
    """The lines of ``text`` that end with Enter, each after its last cancel."""
    *entered, _pending = text.split("\n")
    return tuple(line.rpartition("\x15")[2] for line in entered if line.rpartition("\x15")[2])
