"""Property tests of the escaping step: any text, any bytes, every face safe and exact."""

from __future__ import annotations

import base64
import json
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runctx.present.escape import hook_json, json_bytes, json_text, terminal_bytes, visible

PROPERTY = settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
any_text = st.one_of(st.text(), st.binary().map(os.fsdecode))


@PROPERTY
@given(any_text)
def test_visible_text_is_printable_and_escaping_it_again_changes_nothing(text):
    """What the terminal face gives has no control or invisible character, and is a fixpoint."""
    shown = visible(text)
    assert shown.isprintable()
    assert visible(shown) == shown


@PROPERTY
@given(st.text().filter(str.isprintable))
def test_printable_text_is_shown_as_it_is(text):
    """Text with nothing to escape reaches the terminal unchanged."""
    assert visible(text) == text


@PROPERTY
@given(any_text, st.sampled_from(["utf-8", "ascii", "latin-1", "cp1252", "nonesuch"]))
def test_terminal_bytes_hold_no_control_byte_in_any_encoding(text, encoding):
    """Encoded for any stream, the output has no C0 control byte but the newlines of lines."""
    data = terminal_bytes(text, encoding)
    assert not any(byte < 0x20 and byte != 0x0A for byte in data)
    assert 0x7F not in data


@PROPERTY
@given(st.binary())
def test_json_text_is_utf8_and_json_bytes_give_the_bytes_back(raw):
    """Any bytes read with surrogate escapes: valid UTF-8 text, and exact bytes when needed."""
    text = os.fsdecode(raw)
    shown = json_text(text)
    shown.encode("utf-8")  # never a lone surrogate
    exact = json_bytes(text)
    if exact is None:
        assert shown.encode("utf-8") == raw
    else:
        assert base64.b64decode(exact) == raw


@PROPERTY
@given(st.recursive(any_text, lambda inner: st.lists(inner, max_size=3), max_leaves=10))
def test_hook_json_is_ascii_and_strict_for_any_strings(value):
    """A hook reply built of any strings is ASCII and holds no lone surrogate."""
    reply = hook_json({"text": value})
    assert reply.isascii()
    parsed = json.loads(reply)

    def walk(item):
        if isinstance(item, str):
            item.encode("utf-8")
            assert all(line.isprintable() for line in item.split("\n"))
        elif isinstance(item, list):
            for inner in item:
                walk(inner)

    walk(parsed["text"])
