"""The one escaping step, per face: terminal text, JSON text, hook replies."""

from __future__ import annotations

import base64
import io
import json
import os

import pytest

from runctx.present.escape import (
    hook_json,
    is_exact,
    json_bytes,
    json_text,
    terminal_bytes,
    visible,
    visible_lines,
)
from runctx.present.output import OutputClosedError, OutputError, write_json, write_text

HOSTILE_ARG = "\x1b]0;pwned\x07\x1b[2J\x1b[31m"
HOSTILE_PATH = os.fsdecode(b"/tmp/x\x1b[2Jy\nFAKE: line\xff\xfe")


def strict_json(data: bytes) -> object:
    """Parse ``data`` as a strict parser would: UTF-8 only, no lone surrogate in any string."""
    value = json.loads(data.decode("utf-8"))

    def walk(item: object) -> None:
        if isinstance(item, str):
            item.encode("utf-8")  # a lone surrogate raises here, as serde_json refuses it
        elif isinstance(item, dict):
            for key, inner in item.items():
                walk(key)
                walk(inner)
        elif isinstance(item, list):
            for inner in item:
                walk(inner)

    walk(value)
    return value


def test_visible_escapes_every_control_character():
    """C0, DEL, C1, escape sequences, newlines and tabs come out as visible escapes."""
    shown = visible(HOSTILE_ARG + "\x7f\x85\u009b\t\r\n")
    assert shown == "\\x1b]0;pwned\\x07\\x1b[2J\\x1b[31m\\x7f\\u0085\\u009b\\t\\r\\n"
    assert shown.isprintable()


def test_visible_shows_bytes_that_are_not_utf8_as_hex():
    r"""A byte that is not UTF-8 (read with surrogate escapes) is shown as ``\xNN``."""
    assert visible(os.fsdecode(b"bad\xff\xfe")) == "bad\\xff\\xfe"


def test_visible_escapes_bidi_overrides_and_invisible_characters():
    """Characters that reorder or hide text (RLO, zero-width joiner, line separator) are escaped."""
    assert visible("a\u202eb\u200dc\u2028d") == "a\\u202eb\\u200dc\\u2028d"


def test_visible_keeps_printable_text_and_backslashes():
    """Letters of any script, symbols and backslashes are kept as they are."""
    text = "héllo wörld ✓ 日本 C:\\dir"
    assert visible(text) == text


def test_visible_is_idempotent():
    """Escaping twice gives what escaping once gave, so a backstop cannot double-escape."""
    once = visible(HOSTILE_PATH + HOSTILE_ARG)
    assert visible(once) == once


def test_visible_lines_keeps_the_message_own_newlines_only():
    """A message's own line breaks stay; a foreign newline inside a line cannot appear."""
    assert visible_lines("one\x1b[2J\ntwo") == "one\\x1b[2J\ntwo"


def test_json_text_is_exact_for_utf8_and_replaces_other_bytes():
    """Valid text is kept exactly; each byte that is not UTF-8 becomes U+FFFD."""
    assert json_text("ok ✓ \x1b") == "ok ✓ \x1b"
    assert json_text(os.fsdecode(b"bad\xff\xfe")) == "bad\ufffd\ufffd"


def test_json_bytes_gives_the_exact_bytes_back_only_when_needed():
    """The base64 companion is absent for exact text and decodes to the original bytes."""
    assert json_bytes("bad\\xff") is None
    raw = b"/tmp/bad\xff\xfe\n"
    encoded = json_bytes(os.fsdecode(raw))
    assert encoded is not None
    assert base64.b64decode(encoded) == raw


def test_a_real_name_with_backslash_x_is_not_taken_for_a_bad_byte():
    r"""``bad\xff`` typed as text and the byte 0xff differ in JSON: only one has bytes."""
    typed = "bad\\xff"
    read = os.fsdecode(b"bad\xff")
    assert json_text(typed) != json_text(read)
    assert json_bytes(typed) is None
    assert json_bytes(read) is not None


def test_a_lone_surrogate_from_a_payload_is_not_exact():
    r"""``\ud800`` (only a JSON payload can carry it) is neither exact nor written raw."""
    assert not is_exact("a\ud800")
    assert json_text("a\ud800").encode("utf-8")
    assert visible("a\ud800") == "a\\ud800"


def test_hook_json_is_ascii_and_accepted_by_a_strict_parser():
    """A hook reply holds no control character and no lone surrogate, in ASCII."""
    reply = hook_json({"reason": f"root {visible(HOSTILE_PATH)} != /b\nnext line", "n": 1})
    assert reply.isascii()
    parsed = strict_json(reply.encode())
    expected = "root /tmp/x\\x1b[2Jy\\nFAKE: line\\xff\\xfe != /b\nnext line"
    assert parsed == {"reason": expected, "n": 1}


def test_hook_json_escapes_what_slipped_past_the_words():
    """Raw foreign text in a reply still loses its escape sequences and bad bytes."""
    reply = hook_json({"reason": HOSTILE_PATH + HOSTILE_ARG})
    parsed = strict_json(reply.encode())
    assert isinstance(parsed, dict)
    assert "\x1b" not in parsed["reason"]
    assert "\\xff\\xfe" in parsed["reason"]


@pytest.mark.parametrize("encoding", ["utf-8", "ascii", "latin-1", "bogus-encoding"])
def test_terminal_bytes_never_fail_on_any_encoding(encoding):
    """Text for a terminal encodes on any stream encoding, unknown ones included."""
    data = terminal_bytes(f"… {HOSTILE_PATH} ✓ {HOSTILE_ARG}", encoding)
    assert b"\x1b" not in data
    assert b"\xff" not in data or encoding == "latin-1"


def _stream(encoding: str, errors: str = "strict") -> tuple[io.TextIOWrapper, io.BytesIO]:
    raw = io.BytesIO()
    return io.TextIOWrapper(raw, encoding=encoding, errors=errors), raw


@pytest.mark.parametrize("encoding", ["utf-8", "ascii"])
def test_write_text_on_a_strict_stream(encoding):
    """Writing a hostile line to a strict stream of any encoding succeeds, escaped."""
    stream, raw = _stream(encoding)
    write_text(f"root {HOSTILE_PATH} …\n", stream)
    written = raw.getvalue()
    assert written.isascii() or encoding == "utf-8"
    assert b"\x1b" not in written
    assert b"\\xff\\xfe" in written


def test_write_json_is_utf8_and_strict():
    """JSON output is UTF-8 whatever the stream encoding, and a strict parser accepts it."""
    stream, raw = _stream("ascii")
    write_json({"root": HOSTILE_PATH, "name": "é"}, stream)
    parsed = strict_json(raw.getvalue())
    assert parsed == {"root": "/tmp/x\x1b[2Jy\nFAKE: line\ufffd\ufffd", "name": "é"}


def test_writing_to_a_closed_pipe_is_output_closed():
    """A reader that went away is told apart from other failures to write."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    with open(write_end, "w", encoding="utf-8") as stream, pytest.raises(OutputClosedError):
        write_text("x\n", stream)


def test_writing_to_a_full_disk_says_so():
    """ENOSPC is an OutputError whose message names the cause."""
    with open("/dev/full", "w", encoding="utf-8") as stream, pytest.raises(OutputError) as raised:
        write_text("x\n", stream)
    assert not isinstance(raised.value, OutputClosedError)
    assert "No space left on device" in str(raised.value)


def test_writing_to_no_stream_is_output_closed(monkeypatch):
    """A closed stdout (``None`` in Python) is a closed output, not an AttributeError."""
    monkeypatch.setattr("sys.stdout", None)
    with pytest.raises(OutputClosedError):
        write_text("x\n")
