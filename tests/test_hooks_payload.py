"""Reading a hook payload (``hooks/payload.py``) and each agent's fields, from any input.

Property tests: whatever bytes arrive on stdin and whatever shape the object
has, the reader gives a JSON object, each agent's reader its fields, or a
``PayloadError`` saying why not; never any other exception.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from strategies import PROPERTY, json_values

from runctx.fastpath.jsonscan import loads
from runctx.hooks.agents import AGENT_NAMES, agent
from runctx.hooks.payload import PayloadError, json_object

payload_keys = st.sampled_from(
    [
        "hook_event_name",
        "tool_name",
        "cwd",
        "tool_input",
        "command",
        "toolName",
        "toolArgs",
        "workspace_roots",
        "dir_path",
        "source",
    ]
)
payload_values = st.one_of(
    json_values,
    st.sampled_from(
        [
            "PreToolUse",
            "SessionStart",
            "Bash",
            "bash",
            "run_shell_command",
            "beforeShellExecution",
            "/",
            "/tmp",
            "relative",
            "",
            "pytest -x",
        ]
    ),
    st.dictionaries(payload_keys, json_values | st.text(max_size=20), max_size=4),
    st.dictionaries(payload_keys, json_values, max_size=3).map(json.dumps),
)
payloads = st.dictionaries(payload_keys, payload_values, max_size=7)


def _faces():
    for name in AGENT_NAMES:
        chosen = agent(name)
        yield chosen.PRE_TOOL_FACE.read
        if chosen.AFTER_TOOL_FACE is not None:
            yield chosen.AFTER_TOOL_FACE.read
        if chosen.SESSION_FACE is not None:
            yield chosen.SESSION_FACE.read


READERS = list(_faces())


@PROPERTY
@given(payloads, st.sampled_from(range(len(READERS))))
def test_a_payload_of_any_shape_is_read_or_refused_as_a_payload_error(payload, which):
    """Every agent's reader gives its fields or a PayloadError, whatever the payload holds."""
    try:
        found = READERS[which](payload)
    except PayloadError:
        return
    if isinstance(found, tuple):
        command, cwd = found
        assert isinstance(command, str)
        assert os.path.isabs(cwd)
    else:
        assert found is None or os.path.isabs(found)


@PROPERTY
@given(st.binary(max_size=2000))
@example(b"[" * 100_000)
@example(b'{"a": "\\ud800"}')
def test_payload_bytes_of_any_kind_are_an_object_or_a_payload_error(data):
    """Any bytes on stdin parse to a JSON object or a PayloadError (nesting included)."""
    with contextlib.suppress(PayloadError):
        assert isinstance(json_object(data, "input"), dict)


def _json_verdict(parse, raw):
    """What ``parse(raw)`` gives: ("value", its repr) or ("error", the exception type)."""
    try:
        return "value", repr(parse(raw))  # repr: NaN is not equal to itself
    except (ValueError, RecursionError) as error:
        return "error", type(error).__name__


def _documents():
    """JSON documents written the ways an agent may write them, and the ways json reads."""
    spacing = st.sampled_from([None, 0, 2])
    separators = st.sampled_from([(",", ":"), (", ", ": ")])
    return st.builds(
        lambda value, indent, seps, ascii_only, lead, trail: (
            lead
            + json.dumps(value, indent=indent, separators=seps, ensure_ascii=ascii_only)
            + trail
        ),
        json_values,
        spacing,
        separators,
        st.booleans(),
        st.sampled_from(["", " ", "\n\t\r "]),
        st.sampled_from(["", "\n", " \r\n", " x", "}", "\x0c"]),
    )


@PROPERTY
@given(
    _documents(), st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-32", "str"])
)
@example('{"a": NaN, "b": -Infinity}', "utf-8")
@example('{"a": "\\ud800"}', "utf-8")
@example('{"a": 1, "a": 2}', "utf-8")
@example("\ufeff{}", "str")
@example('{"a": "x\ty"}', "utf-8")
@example('{"a": 1e400, "b": 12345678901234567890}', "utf-8")
def test_loads_reads_every_document_as_json_loads_does(document, encoding):
    """The hook's reader gives json.loads's value, or fails where json.loads fails."""
    raw = document if encoding == "str" else document.encode(encoding, "surrogatepass")
    assert _json_verdict(loads, raw) == _json_verdict(json.loads, raw)


@PROPERTY
@given(st.binary(max_size=200))
@example(b"\xef\xbb\xbf{}")
@example(b"{\x00}")
@example(b'"\xff"')
@example(b"  ")
def test_loads_of_any_bytes_agrees_with_json_loads(data):
    """Bytes of any kind: the same value as json.loads, or an error where it errs."""
    assert _json_verdict(loads, data) == _json_verdict(json.loads, data)


def test_loads_reads_a_plain_payload_without_importing_json():
    """A UTF-8 payload is parsed by the C scanner alone: the json package is not imported."""
    code = (
        "import sys\n"
        "from runctx.fastpath.jsonscan import loads\n"
        'value = loads(b\' {"tool_input": {"command": "ls"}, "n": [1, 2.5, null]}\\n\')\n'
        "assert value == {'tool_input': {'command': 'ls'}, 'n': [1, 2.5, None]}, value\n"
        "print(sorted(name for name in ('json', 're', 'enum') if name in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ("{not json", "Expecting property name enclosed in double quotes: line 1 column 2"),
        ('{"a": 1} x', "Extra data: line 1 column 10"),
        ('{"a": [1,', "Expecting value: line 1 column 10"),
        ('{"a": "\x01"}', "Invalid control character"),
        ("", "Expecting value: line 1 column 1"),
    ],
)
def test_loads_in_a_fresh_process_says_what_json_says(document, message):
    """Where the document is not JSON, a process that has not loaded json gets json's error.

    (The C scanner can raise json's error only when ``json.decoder`` is loaded.)
    """
    code = (
        "import sys\n"
        "from runctx.fastpath.jsonscan import loads\n"
        "try:\n"
        "    loads(sys.argv[1].encode())\n"
        "except ValueError as error:\n"
        "    print(type(error).__name__, error)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, document],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert done.stdout.startswith(f"JSONDecodeError {message}"), done.stdout
