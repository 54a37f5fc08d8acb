"""Content never raises: every reader of a checkout's files returns, or says why.

Each reader is fed arbitrary TOML, JSON or text through a real file (hatch
tables in pyproject.toml and hatch.toml, Makefile, justfile, Taskfile,
package.json, runctx's own settings), and paths built from commands (a NUL, a
lone surrogate in ``make -f``, ``just --justfile``, ``task -t``, ``npm
--prefix``, the cwd). A reader returns a value (None: unknown) or, for
settings, raises :class:`~runctx.exceptions.ConfigError` saying why; nothing else.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runctx.environment import command_environment
from runctx.exceptions import ConfigError
from runctx.runners.tasks import ProjectFiles, TaskTexts, task_texts
from runctx.runners.walk import TaskCall
from runctx.settings import runctx_table, settings_of_table, user_table
from runctx.shell.commands import test_invocations
from runctx.unknown import Unknown

PROPERTY = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

KEYS = st.sampled_from(
    ["tool", "hatch", "envs", "default", "scripts", "path", "template", "runctx", "mode", "x"]
)
JSON_LEAVES = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(KEYS | st.text(), inner, max_size=4)
    ),
    max_leaves=30,
)
TOML_LEAVES = (
    st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.text()
    | st.floats(allow_nan=False, allow_infinity=False)
)
TOML_VALUES = st.recursive(
    TOML_LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=30,
)


def toml_text(value: object) -> str:
    """A TOML document holding ``value`` under nested tables (inline tables and arrays)."""

    def inline(item: object) -> str:
        if item is None:  # TOML has no null: an empty string stands for it
            return '""'
        if isinstance(item, bool):
            return "true" if item else "false"
        if isinstance(item, (int, float)):
            return repr(item)
        if isinstance(item, str):
            return json.dumps(item)
        if isinstance(item, list):
            return "[" + ", ".join(inline(i) for i in item) + "]"
        assert isinstance(item, dict)
        return "{" + ", ".join(f"{json.dumps(k)} = {inline(v)}" for k, v in item.items()) + "}"

    return f"tool = {inline(value)}\n"


DEEP_TOML = "[tool.hatch.envs.default]\npath = " + "[" * 2000 + "]" * 2000 + "\n"
DEEP_JSON = '{"scripts": ' + "[" * 5000 + "]" * 5000 + "}"
HOSTILE_TEXTS = st.text() | st.sampled_from([DEEP_TOML, DEEP_JSON, "\0" * 10, "\udcff"])

READERS = {
    "package-json": ("package.json", ("unit",)),
    "make": ("Makefile", ("ci",)),
    "just": ("justfile", ("check",)),
    "taskfile": ("Taskfile.yml", ("verify",)),
    "hatch": ("pyproject.toml", ("default:cov",)),
}


@pytest.fixture(scope="module")
def project():
    """A directory the readers find their files in."""
    with tempfile.TemporaryDirectory(prefix="runctx-content-") as path:
        yield Path(path)


def _write(path: Path, text: str) -> None:
    path.write_bytes(text.encode("utf-8", "surrogateescape"))


@pytest.mark.parametrize("reader", sorted(READERS))
@PROPERTY
@given(text=HOSTILE_TEXTS, value=JSON_VALUES | TOML_VALUES)
def test_each_task_reader_returns_on_any_content(project, reader, text, value):
    """Arbitrary text, JSON or TOML in the reader's file: a list of texts or None, never a raise."""
    name, tasks = READERS[reader]
    for content in (text, json.dumps(value), toml_text(value)):
        _write(project / name, content)
        found = task_texts(TaskCall(reader, reader, tasks), str(project), ProjectFiles())
        assert (
            found is None
            or isinstance(found, Unknown)
            or all(isinstance(t, str) for t in found.texts)
        )


@PROPERTY
@given(value=TOML_VALUES, text=HOSTILE_TEXTS)
def test_the_hatch_environment_reader_returns_on_any_content(project, value, text):
    """``[tool.hatch.envs.default] path`` of any type and depth: an environment or None."""
    for content in (toml_text(value), text, DEEP_TOML):
        _write(project / "pyproject.toml", "# hatch\n" + content)
        found = command_environment("hatch:run", ["hatch", "run", "cov"], str(project), {})
        assert found is None or found.kind


@PROPERTY
@given(value=TOML_VALUES, text=HOSTILE_TEXTS)
def test_the_settings_readers_return_or_say_why(project, value, text):
    """The settings from any TOML: a table or a ConfigError naming the file, nothing else."""
    for content in (toml_text({"runctx": value}), "[tool.runctx]\n" + text, DEEP_TOML):
        path = project / "pyproject.toml"
        _write(path, content)
        for read in (runctx_table, user_table):
            said = ""
            try:
                table = read(str(path))
                assert isinstance(table, dict)
                settings_of_table(table, str(path))
            except ConfigError as error:
                said = str(error)
            assert not said or str(path) in said


BAD_PARTS = st.sampled_from(["a\0b", "\udcff", "x\ud800y", "\0", "ok"])


@PROPERTY
@given(part=BAD_PARTS, where=BAD_PARTS)
def test_paths_built_from_commands_are_checked_before_use(project, part, where):
    """A NUL or a lone surrogate in a path a command builds: read, or left to its name.

    ``make -f``, ``just --justfile``, ``task -t``, ``npm --prefix`` and the
    cwd are checked before use: never an exception.
    """
    cwd = str(project) if where == "ok" else os.path.join(str(project), where)
    quoted = part.replace("\0", "")  # the shell cannot carry a NUL: the cwd and the file can
    for command in (
        f"make -f '{quoted}' ci",
        f"just --justfile '{quoted}' check",
        f"task -t '{quoted}' verify",
        f"npm --prefix '{quoted}' run unit",
        "make ci && npm run unit && just check && task verify && hatch run cov",
    ):
        assert isinstance(test_invocations(command, cwd), tuple)
        for argv in (command.split(), ["npm", "--prefix", part, "ci"], ["uv", "sync"]):
            found = command_environment("pip:install", argv, cwd, {})
            assert found is None or found.kind
    for reader, (_name, tasks) in READERS.items():
        call = TaskCall(reader, reader, tasks, part)
        found = task_texts(call, cwd, ProjectFiles())
        assert found is None or isinstance(found, (TaskTexts, Unknown))
