"""Property tests of the parsers of user input: shell commands, hook payloads, settings.

Each is fed arbitrary input and must give a value or its own documented
refusal (``PayloadError`` for a payload, ``ConfigError`` for ``[tool.runctx]``,
``SettingsFileError`` for an agent's settings file), never any other
exception. Linear time is checked by ``make fuzz`` (``fuzz/linear.py``).
"""

from __future__ import annotations

import contextlib
import json
import os

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from runctx.exceptions import ConfigError
from runctx.hooks import settings_file
from runctx.hooks.agents import AGENT_NAMES, agent
from runctx.hooks.payload import PayloadError, json_object
from runctx.runners import BUILTIN_PATTERNS
from runctx.settings import Settings, mentions_runctx_table, settings_for, settings_of_table
from runctx.shell.commands import TestInvocation, test_invocations
from runctx.shell.prefilter import is_probably_test_command

PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SHELL_PIECES = st.sampled_from(
    [
        "pytest",
        "python -m pytest",
        "cd ",
        "&&",
        "||",
        ";",
        "|",
        "$(",
        ")",
        "`",
        "'",
        '"',
        "\\",
        "\n",
        "bash -c ",
        "env X=1 ",
        "timeout 5 ",
        "uv run ",
        "tox",
        "make test",
        "{",
        "}",
        "(",
        "<<EOF\n",
        "EOF",
        "#",
        " ",
        "npm test",
        "go test ./...",
        "pushd /tmp",
        "popd",
        "cd -",
        "..",
        "/",
        "$HOME",
        "*",
        "\x00",
        "\x1b[2J",
        "\udcff",
    ]
)
commands = st.one_of(
    st.text(max_size=300),
    st.lists(st.one_of(SHELL_PIECES, st.text(max_size=8)), max_size=60).map("".join),
)


@PROPERTY
@given(commands, st.sampled_from(["/", "/tmp/x", "/a b/c"]))
@example("cd " * 5000 + "pytest", "/")
@example("$(" * 3000 + "pytest", "/")
@example("bash -c '" * 100 + "pytest", "/")
def test_a_shell_command_string_of_any_text_gives_test_runs(command, cwd):
    """Any command string gives a tuple of test invocations, never an exception."""
    found = test_invocations(command, cwd, BUILTIN_PATTERNS)
    assert isinstance(found, tuple)
    assert all(isinstance(invocation, TestInvocation) for invocation in found)
    assert all(os.path.isabs(invocation.cwd) for invocation in found)
    if found:
        assert is_probably_test_command(command, BUILTIN_PATTERNS)


# -- hook payloads --------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=20,
)
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


# -- [tool.runctx] ----------------------------------------------------------------------

toml_tables = st.dictionaries(
    st.sampled_from(["on-same-checkout", "runners", "other"]),
    st.one_of(
        json_values,
        st.sampled_from(["stop", "ask", "warn", "wait"]),
        st.lists(
            st.dictionaries(
                st.sampled_from(
                    [
                        "kind",
                        "program",
                        "module",
                        "args",
                        "role",
                        "any_args",
                        "not_with",
                        "value_options",
                        "bogus",
                    ]
                ),
                st.one_of(
                    st.text(max_size=10), st.lists(st.text(max_size=10), max_size=3), json_values
                ),
                max_size=5,
            ),
            max_size=3,
        ),
    ),
    max_size=3,
)


@PROPERTY
@given(toml_tables)
def test_a_runctx_table_of_any_shape_is_settings_or_a_config_error(table):
    """Any [tool.runctx] table validates into Settings or a ConfigError naming the file."""
    try:
        found: object = settings_of_table(table, "/p/pyproject.toml")
    except ConfigError as error:
        found = error
    if isinstance(found, ConfigError):
        assert str(found).startswith("/p/pyproject.toml")
    else:
        assert isinstance(found, Settings)


@PROPERTY
@given(st.binary(max_size=3000))
@example(b"[" * 10_000 + b"tool.runctx")
@example(b"\n" * 10_000 + b"runctx")
def test_the_cheap_table_test_takes_any_bytes(data):
    """Whether a text may hold the table is a yes or no for any bytes."""
    assert mentions_runctx_table(data) in (True, False)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400))
def test_a_pyproject_of_any_text_is_settings_or_a_config_error(tmp_path_factory, text):
    """Any pyproject.toml text gives Settings or a ConfigError, never another exception."""
    root = tmp_path_factory.mktemp("pyproject")
    (root / "pyproject.toml").write_text("[tool.runctx]\n" + text, encoding="utf-8")
    with contextlib.suppress(ConfigError):
        assert isinstance(settings_for(str(root), environ={}), Settings)


# -- an agent's settings file ---------------------------------------------------------

documents = st.dictionaries(st.text(max_size=8), json_values, max_size=5)


@PROPERTY
@given(st.text(max_size=500))
@example('{"a": 1e999}')
@example('{"a": NaN}')
@example('{"a": 1, "a": 2}')
@example("[" * 50_000)
def test_a_settings_text_of_any_kind_is_a_document_or_a_settings_file_error(text):
    """Any text parses to a settings object or a SettingsFileError saying why not."""
    with contextlib.suppress(settings_file.SettingsFileError):
        assert isinstance(settings_file.parse(text, "/p/settings.json"), dict)


@pytest.mark.parametrize("name", AGENT_NAMES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    document=documents,
    indent=st.sampled_from([None, 0, 2, 4, "\t"]),
    separators=st.sampled_from([(", ", ": "), (",", ":"), (" , ", " : ")]),
)
def test_install_then_uninstall_of_any_document_loses_nothing(name, document, indent, separators):
    """On any document in any layout, install keeps every value; uninstall gives the text back."""
    spec = agent(name).INSTALL
    text = json.dumps(document, indent=indent, separators=separators) + "\n"
    if "hooks" in document:
        return  # a user's own hooks: covered by the example-based install tests
    installed = settings_file._apply("/p/s.json", text, _change(spec, install=True), None)
    assert installed.after is not None
    after = json.loads(installed.after)
    assert {key: value for key, value in after.items() if key not in ("hooks", "version")} == {
        key: value for key, value in document.items() if key != "version"
    }
    removed = settings_file._apply("/p/s.json", installed.after, _change(spec, install=False), None)
    if "version" not in document and spec.version is not None:
        return  # install added a version key that uninstall keeps on purpose
    assert removed.after == text


def _change(spec, *, install: bool):
    def change(document, path):
        if install:
            added = settings_file.install(spec, document, "runctx", path)
            return added, bool(added)
        gone = settings_file.uninstall(spec, document, path)
        return gone, gone > 0

    return change
