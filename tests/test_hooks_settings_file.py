"""Agent settings files (``hooks/settings_file.py``): the ready files, and updates under a lock."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from proctools import wait_for
from strategies import PROPERTY, json_values

from runctx.hooks import json_layout, settings_file
from runctx.hooks.agents import AGENT_NAMES, agent
from runctx.hooks.ready import READY_DIR

ROOT = Path(__file__).resolve().parents[1]
READY_FILES = {
    name: os.path.join(READY_DIR, name, os.path.basename(agent(name).FILES.project))
    for name in AGENT_NAMES
}
"""The ready file of each agent: what an install writes into a new project file."""


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_the_ready_files_match_what_install_writes(name):
    """hooks/ holds, for every agent, what an install into an empty file produces."""
    document: dict[str, object] = {}
    settings_file.install(agent(name).INSTALL, document, "runctx", "ready")
    assert settings_file.settings_text(document, None) == (ROOT / READY_FILES[name]).read_text()


def lock_waiters(directory: Path) -> int:
    """How many lock requests on ``directory`` the kernel holds blocked (``->`` in /proc/locks)."""
    info = directory.stat()
    where = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    with open("/proc/locks") as locks:
        return sum(line.split()[1] == "->" and where in line.split() for line in locks)


def test_an_update_waits_while_another_holds_the_file(tmp_path):
    """A second update blocks on the lock until the first is written: neither change is lost."""
    path = tmp_path / "settings.json"
    path.write_text("{}\n")
    inside, release = threading.Event(), threading.Event()

    def first_change(document, _where):
        document["first"] = True
        inside.set()
        release.wait()
        return "first", True

    def second_change(document, _where):
        document["second"] = True
        return "second", True

    first = threading.Thread(target=settings_file.update, args=(str(path), first_change))
    first.start()
    try:
        inside.wait()
        second = threading.Thread(target=settings_file.update, args=(str(path), second_change))
        second.start()
        wait_for(lambda: lock_waiters(tmp_path) == 1, what="the second update to wait for the lock")
        assert json.loads(path.read_text()) == {}
    finally:
        release.set()
        first.join()
    second.join()
    assert json.loads(path.read_text()) == {"first": True, "second": True}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json"]


# -- properties: any text, any document, any layout ---------------------------------

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
            installed = settings_file.install(spec, document, "runctx", path)
            return installed, installed.changed
        gone = settings_file.uninstall(spec, document, path)
        return gone, gone > 0

    return change


def _with_comments(text: str) -> str:
    """``text`` (indented JSON) with comments: after each opening bracket and comma, at the top."""
    lines = [
        line + " // note" if line.rstrip().endswith(("{", "[", ",")) else line
        for line in text.split("\n")
    ]
    return "/* settings */ " + "\n".join(lines)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=documents, indent=st.sampled_from([2, 4, "\t"]))
def test_comments_survive_install_and_uninstall_in_a_gemini_file(document, indent):
    """On any commented Gemini file install keeps the comments; uninstall gives the text back."""
    spec = agent("gemini").INSTALL
    if "hooks" in document:
        return  # a user's own hooks: covered by the example-based install tests
    text = _with_comments(json.dumps(document, indent=indent)) + "\n"
    installed = settings_file._apply("/p/s.json", text, _change(spec, install=True), None, spec)
    assert installed.after is not None
    assert installed.after.count("// note") >= text.count("// note")
    assert "/* settings */" in installed.after
    strict = json_layout.to_strict(installed.after, comments=True, trailing_commas=False)
    assert {k: v for k, v in json.loads(strict).items() if k != "hooks"} == document
    removed = settings_file._apply(
        "/p/s.json", installed.after, _change(spec, install=False), None, spec
    )
    assert removed.after == text


@PROPERTY
@given(st.text(alphabet='{}[],:"/*\n ab1', max_size=200))
def test_blanking_comments_keeps_every_other_character_in_place(text):
    """to_strict only ever turns a comment or a trailing comma into spaces (or refuses)."""
    with contextlib.suppress(ValueError):
        strict = json_layout.to_strict(text, comments=True, trailing_commas=True)
        assert len(strict) == len(text)
        for before, after in zip(text, strict, strict=True):
            assert after in (before, " ")
            if before == "\n":
                assert after == "\n"
