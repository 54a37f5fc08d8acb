"""Reading a hook payload (``hooks/payload.py``) and each agent's fields, from any input.

Property tests: whatever bytes arrive on stdin and whatever shape the object
has, the reader gives a JSON object, each agent's reader its fields, or a
``PayloadError`` saying why not; never any other exception.
"""

from __future__ import annotations

import contextlib
import json
import os

from hypothesis import example, given
from hypothesis import strategies as st
from strategies import PROPERTY, json_values

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
