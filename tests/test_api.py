"""The public face of ``import runctx``: lazy, complete, and the documented example runs."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest
from proctools import make_checkout

import runctx

DOC = Path(__file__).resolve().parent.parent / "docs" / "api.md"


def api_example() -> str:
    """The first Python block of ``docs/api.md``."""
    match = re.search(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)
    assert match is not None, "docs/api.md has no python example"
    return match.group(1)


def test_the_documented_example_runs_next_to_real_runs(shared_tmp, runs):
    """The API example of docs/api.md runs and reports a run of ours and a foreign one."""
    mine = make_checkout(shared_tmp / "a", "proj")
    theirs = make_checkout(shared_tmp / "b", "proj")
    ours, foreign = runs.run_tests_script(mine), runs.run_tests_script(theirs)
    result = subprocess.run(
        [sys.executable, "-c", api_example()],
        cwd=mine,
        capture_output=True,
        text=True,
        errors="backslashreplace",
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert f"same checkout: {ours.pid} ours" in lines
    foreign_line = next(line for line in lines if line.startswith(f"foreign: {foreign.pid} "))
    assert f"root {theirs} != {mine}" in foreign_line
    assert lines[-1] == f"would wait for [{ours.pid}]"


def test_import_loads_nothing_else():
    """``import runctx`` alone imports no other runctx module (the hook path stays cheap)."""
    code = "import sys, runctx; print(sorted(m for m in sys.modules if m.startswith('runctx')))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "['runctx']"


@pytest.mark.parametrize("name", runctx.__all__)
def test_every_public_name_resolves_from_its_home(name):
    """Each name of __all__ is public and resolves to the object its home module defines."""
    assert not name.startswith("_") or name == "__version__"
    value = getattr(runctx, name)
    if name == "__version__":
        assert isinstance(value, str)
        return
    home = importlib.import_module(runctx._HOMES[name])
    assert getattr(home, name) is value


def test_dir_lists_the_public_names_only():
    """dir(runctx) is __all__, and an unknown name is an AttributeError."""
    assert dir(runctx) == sorted(runctx.__all__)
    with pytest.raises(AttributeError, match="no attribute 'fold'"):
        _ = runctx.fold
