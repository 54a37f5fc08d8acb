"""Whether each hook call compiles runctx's own modules again, and what ``runctx doctor`` says.

Measured on real files: a package written here, compiled by ``compileall``
as pip and the Makefile do, and runctx's own modules seen through an empty
cache prefix (``PYTHONPYCACHEPREFIX``), which is what a start finds when
nothing compiled them.
"""

from __future__ import annotations

import compileall
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

from hooktools import runctx
from test_cli_doctor import environment

from runctx.own_cache import PACKAGE_DIR, cache_note, own_cache

NO_WRITE = {"PYTHONDONTWRITEBYTECODE": "1"}


def package(top: Path) -> Path:
    """A package of three modules, one of them in a subpackage."""
    root = top / "pkg"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("VALUE = 1\n")
    (root / "one.py").write_text("def one() -> int:\n    return 1\n")
    (root / "sub" / "__init__.py").write_text("")
    return root


def test_a_package_nothing_compiled_is_compiled_at_each_start(tmp_path: Path) -> None:
    """No entries and PYTHONDONTWRITEBYTECODE: all of it, every time, and the note says so."""
    root = package(tmp_path)
    state = own_cache(str(root), NO_WRITE)
    assert state.modules == 3
    assert sorted(state.uncached) == ["__init__.py", "one.py", os.path.join("sub", "__init__.py")]
    assert state.not_written == "PYTHONDONTWRITEBYTECODE is set"
    note = cache_note(state)
    assert note is not None
    assert note.startswith("3 of runctx's 3 modules have no compiled cache")
    assert f"python -m compileall -q {root}" in note


def test_compiled_entries_are_current_until_a_source_changes(tmp_path: Path) -> None:
    """The entries compileall writes are accepted; a source grown since is named alone."""
    root = package(tmp_path)
    assert compileall.compile_dir(str(root), quiet=1)
    assert own_cache(str(root), NO_WRITE).uncached == ()
    assert cache_note(own_cache(str(root), NO_WRITE)) is None
    source = root / "one.py"
    source.write_text(source.read_text() + "\ndef two() -> int:\n    return 2\n")
    state = own_cache(str(root), NO_WRITE)
    assert state.uncached == ("one.py",)
    assert (cache_note(state) or "").startswith("1 of runctx's 3 modules has no compiled cache")


def test_an_entry_of_another_python_or_a_broken_one_is_not_current(tmp_path: Path) -> None:
    """An entry whose header is not this Python's is compiled again, like a missing one."""
    root = package(tmp_path)
    assert compileall.compile_dir(str(root), quiet=1)
    cache = Path(importlib.util.cache_from_source(str(root / "one.py")))
    cache.write_bytes(b"\x00\x00\x00\x00" + cache.read_bytes()[4:])
    assert own_cache(str(root), NO_WRITE).uncached == ("one.py",)


def test_missing_entries_a_start_will_write_are_no_note(tmp_path: Path) -> None:
    """Without PYTHONDONTWRITEBYTECODE the first start writes them: nothing to say."""
    root = package(tmp_path)
    state = own_cache(str(root), {})
    assert len(state.uncached) == 3
    assert state.not_written == ""
    assert not state.compiled_each_call
    assert cache_note(state) is None


def doctor_notes(home: Path, cwd: Path, **extra: str) -> list[str]:
    """The notes of ``runctx doctor claude --json`` for the user scope."""
    done = runctx("doctor", "claude", "--json", cwd=cwd, env=environment(home, **extra))
    assert done.returncode in (0, 1), done.stderr
    (user,) = [finding for finding in json.loads(done.stdout) if finding["scope"] == "user"]
    assert user["installed"]
    notes = user["notes"]
    assert isinstance(notes, list)
    return notes


def test_doctor_names_runctx_compiled_at_each_hook_call_and_the_fix(
    tmp_path: Path, checkout: Path
) -> None:
    """An installed hook, runctx's modules uncompiled where Python looks, and no writing.

    The note counts runctx's real modules and names the command; once that
    command has run (into the same cache prefix), the note is gone.
    """
    home = tmp_path / "home"
    home.mkdir()
    installed = runctx("install", "claude", "--scope", "user", cwd=checkout, env=environment(home))
    assert installed.returncode == 0, installed.stderr
    prefix = tmp_path / "pycache"
    prefix.mkdir()
    cached = {"PYTHONPYCACHEPREFIX": str(prefix)}
    modules = len(list(Path(PACKAGE_DIR).rglob("*.py")))

    (note,) = [
        note for note in doctor_notes(home, checkout, **cached, **NO_WRITE) if "compiled" in note
    ]
    assert note.startswith(f"{modules} of runctx's {modules} modules have no compiled cache")
    assert "PYTHONDONTWRITEBYTECODE is set" in note
    assert f"`python -m compileall -q {PACKAGE_DIR}`" in note

    assert not [note for note in doctor_notes(home, checkout, **cached) if "compiled" in note]

    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", PACKAGE_DIR],
        env={**os.environ, **cached},
        check=True,
    )
    after = doctor_notes(home, checkout, **cached, **NO_WRITE)
    assert not [note for note in after if "compiled" in note]
