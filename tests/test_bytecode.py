"""Stale bytecode: ``--runctx-bytecode=check`` names it, ``fresh`` never runs it.

The field report's case, end to end, in real pytest sessions: a module that
returns ``"AAAA"`` and a test that asserts it; the module is edited to
``"BBBB"`` (the same size) with a modification time in the same second as
before, which is what an edit within the same second leaves. Python's cache
trusts its entry while the source's second and size match, so a plain
session still runs ``"AAAA"`` and passes: green on code that is not on disk.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import py_compile
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from proctools import PYTHON, make_checkout
from runfactory import RunFactory, clean_env

from runctx import bytecode
from runctx.bytecode import Staleness

TOOL = 'def says():\n    return "{}"\n'
TEST = 'import tool\n\n\ndef test_tool():\n    assert tool.says() == "AAAA"\n'
NS = 1_000_000_000


def session_env(checkout: Path) -> dict[str, str]:
    """A nested session's environment: bytecode written and read as on a user's machine."""
    env = clean_env(PYTHONPATH=str(checkout))
    for name in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX", "RUNCTX_FRESH_PYCACHE"):
        env.pop(name, None)
    return env


def run_session(runs: RunFactory, checkout: Path, *args: str) -> tuple[int, str]:
    """A real pytest session in ``checkout``, run to its end: (exit status, output)."""
    out = checkout.parent / f"{checkout.name}-out-{len(list(checkout.parent.glob('*-out-*')))}"
    with out.open("wb") as stdout:
        process = runs.child(
            [PYTHON, "-m", "pytest", "-p", "no:cacheprovider", *args],
            cwd=checkout,
            env=session_env(checkout),
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=subprocess.STDOUT,
        )
        status = process.wait()
    return status, out.read_text(errors="backslashreplace")


def edit_in_the_same_second(path: Path, text: str) -> None:
    """Write ``text`` (the same size) with an mtime in the same second as before, other ns."""
    before = path.stat()
    assert len(text.encode()) == before.st_size
    path.write_text(text)
    second = before.st_mtime_ns // NS * NS
    os.utime(path, ns=(before.st_atime_ns, second + (before.st_mtime_ns + 1) % NS))
    after = path.stat()
    assert after.st_mtime_ns != before.st_mtime_ns
    assert after.st_mtime_ns // NS == before.st_mtime_ns // NS


@pytest.fixture
def edited(shared_tmp: Path, runs: RunFactory) -> Path:
    """A checkout whose ``tool.py`` was cached as ``AAAA``, then made ``BBBB`` in that second."""
    checkout = make_checkout(shared_tmp)
    (checkout / "tool.py").write_text(TOOL.format("AAAA"))
    (checkout / "test_tool.py").write_text(TEST)
    status, output = run_session(runs, checkout)
    assert status == 0, output
    assert list((checkout / "__pycache__").glob("tool.*.pyc")), "the first session wrote a cache"
    edit_in_the_same_second(checkout / "tool.py", TOOL.format("BBBB"))
    return checkout


def test_a_plain_session_runs_the_stale_cache_and_passes(edited, runs):
    """The trap is real: without runctx, the session after the edit runs the old code, green."""
    status, output = run_session(runs, edited)
    assert status == 0, output
    assert "1 passed" in output


def test_check_names_the_stale_module_and_fails_the_session(edited, runs):
    """``check`` names the module whose cache served code not on disk, and turns 0 into 1."""
    status, output = run_session(runs, edited, "--runctx-bytecode=check")
    assert "1 passed" in output  # the stale code ran: the test passed on it
    assert status == 1, output
    line = next(line for line in output.splitlines() if line.startswith("  tool ("))
    assert str(edited / "tool.py") in line
    assert "same size and modification second" in line
    assert "was served to this session" in line


def test_fresh_runs_the_code_on_disk(edited, runs):
    """``fresh`` compiles into a cache of its own: the edited code runs, and the test fails."""
    status, output = run_session(runs, edited, "--runctx-bytecode=fresh")
    assert status == 1, output
    assert "'BBBB' == 'AAAA'" in output
    assert "stale bytecode" not in output


def test_fresh_removes_its_cache_and_leaves_the_checkouts_alone(edited, runs):
    """The fresh cache is named in the header and gone afterwards; ``__pycache__`` is untouched."""
    cached = {p: p.read_bytes() for p in (edited / "__pycache__").iterdir()}
    _status, output = run_session(runs, edited, "--runctx-bytecode=fresh")
    header = next(line for line in output.splitlines() if "--runctx-bytecode=fresh" in line)
    prefix = header.split("(", 1)[1].split(")", 1)[0]
    assert Path(prefix).name.startswith("runctx-pycache-")
    assert not Path(prefix).exists()
    assert {p: p.read_bytes() for p in (edited / "__pycache__").iterdir()} == cached


def test_check_gathers_what_the_xdist_workers_ran(edited, runs):
    """Under xdist the workers import the code: ``check`` still names the stale module."""
    status, output = run_session(runs, edited, "--runctx-bytecode=check", "-n", "2")
    assert status == 1, output
    assert any(line.startswith("  tool (") for line in output.splitlines()), output


def test_fresh_under_xdist_runs_the_code_on_disk(edited, runs):
    """The workers of a ``fresh`` session use its cache too (``PYTHONPYCACHEPREFIX``)."""
    status, output = run_session(runs, edited, "--runctx-bytecode=fresh", "-n", "2")
    assert status == 1, output
    assert "'BBBB' == 'AAAA'" in output


def test_check_says_so_when_every_module_ran_its_source(shared_tmp, runs):
    """With no stale module, ``check`` says how many it checked, and the exit status stays 0."""
    checkout = make_checkout(shared_tmp)
    (checkout / "tool.py").write_text(TOOL.format("AAAA"))
    (checkout / "test_tool.py").write_text(TEST)
    status, output = run_session(runs, checkout, "--runctx-bytecode=check")
    assert status == 0, output
    assert "--runctx-bytecode=check: all 2 module(s) checked ran the code" in output


def test_test_modules_are_compared_with_pytests_own_cache(shared_tmp, runs):
    """Test modules are cached by pytest by their source's hash: an edit runs, none is named.

    The check compares each test module with pytest's cache through pytest's
    own rewriting; a wrong comparison would name the unchanged module stale.
    """
    checkout = make_checkout(shared_tmp)
    test = checkout / "test_value.py"
    test.write_text("def test_value():\n    assert 1 == 1\n")
    assert run_session(runs, checkout)[0] == 0
    edit_in_the_same_second(test, "def test_value():\n    assert 1 == 2\n")
    status, output = run_session(runs, checkout, "--runctx-bytecode=check")
    assert "1 failed" in output
    assert status == 1, output
    assert "stale bytecode" not in output
    assert "--runctx-bytecode=check: all 1 module(s) checked ran the code" in output


def test_a_bad_ini_value_is_a_usage_error(shared_tmp, runs):
    """``runctx_bytecode = sometimes`` in the ini is refused, naming the setting."""
    checkout = make_checkout(shared_tmp)
    (checkout / "pytest.ini").write_text("[pytest]\nrunctx_bytecode = sometimes\n")
    (checkout / "test_x.py").write_text("def test_x():\n    pass\n")
    status, output = run_session(runs, checkout)
    assert status == pytest.ExitCode.USAGE_ERROR, output
    assert "runctx_bytecode = 'sometimes'" in output


def test_a_module_left_only_as_bytecode_is_named_and_fails_the_session(shared_tmp, runs):
    """A removed module whose ``NAME.pyc`` stays beside it still imports: ``check`` names it.

    Python imports a bytecode file with no source (``tool.pyc`` where
    ``tool.py`` was); the session passes on code that is on disk only as
    bytecode.
    """
    checkout = make_checkout(shared_tmp)
    source = checkout / "tool.py"
    source.write_text(TOOL.format("AAAA"))
    py_compile.compile(str(source), str(checkout / "tool.pyc"), doraise=True)
    source.unlink()
    (checkout / "test_tool.py").write_text(TEST)
    status, output = run_session(runs, checkout)
    assert status == 0, output  # the trap: the removed module's code ran, green
    status, output = run_session(runs, checkout, "--runctx-bytecode=check")
    assert "1 passed" in output
    assert status == 1, output
    line = next(line for line in output.splitlines() if line.startswith("  tool ("))
    assert str(checkout / "tool.pyc") in line
    assert "no source on disk" in line


# --------------------------------------------------------------------------- in-process


@pytest.fixture
def package(shared_tmp, monkeypatch):
    """A checkout on ``sys.path`` with a uniquely named module, unloaded afterwards."""
    checkout = make_checkout(shared_tmp)
    name = f"runctx_probe_{os.getpid()}_{id(checkout)}"
    (checkout / f"{name}.py").write_text(TOOL.format("AAAA"))
    monkeypatch.syspath_prepend(str(checkout))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(sys, "pycache_prefix", None)
    yield checkout, name
    sys.modules.pop(name, None)


def stale_modules(checkout, since):
    """What the plugin finds at the end of a session: each of the checkout's modules checked."""
    found = (
        bytecode.check_module(name, module, since)
        for name, module in bytecode.checkout_modules(checkout)
    )
    return tuple(stale for stale in found if stale is not None)


def test_a_source_changed_after_its_import_is_named_changed(package):
    """A module imported this session whose source then changed ran code not on disk."""
    checkout, name = package
    since = bytecode.filesystem_now()
    importlib.import_module(name)
    (checkout / f"{name}.py").write_text(TOOL.format("a longer version"))
    found = stale_modules(str(checkout), since)
    assert [(s.name, s.how) for s in found] == [(name, Staleness.CHANGED)]


def test_a_module_that_ran_its_source_is_not_named(package):
    """A module whose source is unchanged since its import is not named."""
    checkout, name = package
    since = bytecode.filesystem_now()
    importlib.import_module(name)
    assert stale_modules(str(checkout), since) == ()


def test_only_modules_of_the_checkout_are_checked(package):
    """``checkout_modules`` holds the checkout's module and none of the suite's."""
    checkout, name = package
    importlib.import_module(name)
    names = [found for found, _ in bytecode.checkout_modules(str(checkout))]
    assert names == [name]


def test_headers_of_real_caches_are_read(shared_tmp):
    """A timestamp cache matches its source's second and size; a hash cache its bytes."""
    source = shared_tmp / "m.py"
    source.write_text(TOOL.format("AAAA"))
    stamped = shared_tmp / "stamped.pyc"
    py_compile.compile(
        str(source), str(stamped), invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP
    )
    hashed = shared_tmp / "hashed.pyc"
    py_compile.compile(
        str(source), str(hashed), invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH
    )
    data = source.read_bytes()
    for cache in (stamped, hashed):
        header = bytecode.parse_header(cache.read_bytes())
        assert header is not None
        assert bytecode.header_matches(header, source.stat(), data)
    edit_in_the_same_second(source, TOOL.format("BBBB"))
    edited = source.read_bytes()
    stamped_header = bytecode.parse_header(stamped.read_bytes())
    hashed_header = bytecode.parse_header(hashed.read_bytes())
    assert stamped_header is not None
    assert hashed_header is not None
    assert bytecode.header_matches(stamped_header, source.stat(), edited)  # the trap
    assert not bytecode.header_matches(hashed_header, source.stat(), edited)
    assert bytecode.parse_header(b"not a cache at all") is None


@given(st.binary(max_size=64))
def test_any_bytes_are_a_header_or_none(data):
    """A cache file of any content gives a header or None, never an exception."""
    header = bytecode.parse_header(importlib.util.MAGIC_NUMBER + data)
    assert header is None or isinstance(header, bytecode.CacheHeader)
    assert bytecode.parse_header(data) is None or data[:4] == importlib.util.MAGIC_NUMBER


WRITES_ITS_CACHE = """
import os, pathlib, subprocess, sys


def test_the_sessions_processes_write_its_cache():
    prefix = pathlib.Path(os.environ["PYTHONPYCACHEPREFIX"])
    here = pathlib.Path(__file__).parent
    subprocess.run([sys.executable, "-c", "import tool"], cwd=here, check=True)
    assert list(prefix.rglob("tool.*.pyc")), "a process of the session wrote its cache"
    assert not sys.dont_write_bytecode
"""


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["in process", "xdist"])
def test_fresh_writes_its_own_cache_under_pythondontwritebytecode(shared_tmp, runs, workers):
    """``PYTHONDONTWRITEBYTECODE=1``: the session's cache is written all the same, and no other.

    Without it every process of the session (xdist workers, subprocesses)
    would compile every module from its source again.
    """
    checkout = make_checkout(shared_tmp)
    (checkout / "tool.py").write_text(TOOL.format("AAAA"))
    (checkout / "test_writes.py").write_text(WRITES_ITS_CACHE)
    out = checkout.parent / f"{checkout.name}-out"
    env = {**session_env(checkout), "PYTHONDONTWRITEBYTECODE": "1"}
    with out.open("wb") as stdout:
        process = runs.child(
            [PYTHON, "-m", "pytest", "-p", "no:cacheprovider", "--runctx-bytecode=fresh", *workers],
            cwd=checkout,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=subprocess.STDOUT,
        )
        status = process.wait()
    output = out.read_text(errors="backslashreplace")
    assert status == 0, output
    assert "runctx: PYTHONDONTWRITEBYTECODE is set: the session writes" in output
    assert not (checkout / "__pycache__").exists(), "nothing is written beside the sources"


def test_fresh_names_the_modules_imported_before_its_cache_and_why(shared_tmp, runs):
    """A module of the checkout loaded with pytest's plugins (``-p``) cannot use the cache."""
    checkout = make_checkout(shared_tmp)
    (checkout / "early_plugin.py").write_text("LOADED = True\n")
    (checkout / "test_ok.py").write_text("def test_ok():\n    pass\n")
    status, output = run_session(runs, checkout, "--runctx-bytecode=fresh", "-p", "early_plugin")
    assert status == 0, output
    line = next(line for line in output.splitlines() if "before it was in place" in line)
    assert line.endswith(": early_plugin"), line
    assert "when pytest started, by a plugin it loads at startup" in line
