"""The public face of ``import runctx``: lazy, complete, and the documented example runs."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from scenes import two_checkouts

import runctx
from runctx.folding import fold_runs

DOC = Path(__file__).resolve().parent.parent / "docs" / "api.md"
TYPING = Path(__file__).resolve().parent / "typing" / "test_public_api.py"


def api_example() -> str:
    """The first Python block of ``docs/api.md``."""
    match = re.search(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)
    assert match is not None, "docs/api.md has no python example"
    return match.group(1)


def test_the_documented_example_runs_next_to_real_runs(shared_tmp, runs):
    """The API example of docs/api.md runs and reports a run of ours and a foreign one."""
    mine, theirs = two_checkouts(shared_tmp)
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
    assert "a test run started here would: stop" in lines  # on-same-checkout's default
    assert lines[-1] == f"would wait for [{ours.pid}]"


def test_import_loads_nothing_else():
    """``import runctx`` alone imports no other runctx module (the hook path stays cheap)."""
    code = "import sys, runctx; print(sorted(m for m in sys.modules if m.startswith('runctx')))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "['runctx']"


def documented_names() -> list[str]:
    """The names of the table of docs/api.md's Python API, in order, one per row."""
    section = DOC.read_text().split("## The Python API", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([^`]+)` \|", section, re.MULTILINE)


def test_the_documented_names_are_the_public_names_each_once():
    """docs/api.md's table lists each public name once, and nothing else."""
    names = documented_names()
    assert len(names) == len(set(names)), "a name is listed twice in docs/api.md"
    assert sorted(names) == sorted(set(runctx.__all__) - {"__version__"})


def test_the_public_api_is_small():
    """The contract stays small: the pieces a scan is made of are not in it."""
    assert 20 <= len(runctx.__all__) <= 30
    for internal in ("fold_runs", "FoldedRun", "RunnerPattern", "ProcRecord", "HasOwner"):
        assert internal not in runctx.__all__
        with pytest.raises(AttributeError, match=f"no attribute {internal!r}"):
            getattr(runctx, internal)
    assert callable(fold_runs)  # still importable from its own module


@pytest.mark.parametrize("name", sorted(set(runctx.__all__) - {"__version__"}))
def test_every_public_name_is_runctx_own_and_type_checked(name):
    """Each public name is a runctx object under its own name, and tests/typing pins its type."""
    value = getattr(runctx, name)
    assert value.__module__.startswith("runctx."), f"{name} is not defined by runctx"
    assert value.__name__ == name, f"{name} is an alias of {value.__name__}"
    assert getattr(sys.modules[value.__module__], name) is value
    checked = re.search(rf"\brunctx\.{name}\b", TYPING.read_text())
    assert checked, f"tests/typing does not check runctx.{name}"


def test_the_version_is_the_installed_distribution():
    """``runctx.__version__`` is the version of the installed distribution."""
    assert runctx.__version__ == version("runctx")
    assert "__version__" in runctx.__all__


def test_a_star_import_binds_the_public_names():
    """``from runctx import *`` binds exactly __all__, loaded from runctx's modules."""
    code = (
        "import runctx; before = set(globals()); from runctx import *; "
        "print(sorted(set(globals()) - before - {'before'}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == str(sorted(runctx.__all__))


def test_dir_lists_the_public_names_only():
    """dir(runctx) is __all__, and an unknown name is an AttributeError."""
    assert dir(runctx) == sorted(runctx.__all__)
    with pytest.raises(AttributeError, match="no attribute 'fold'"):
        _ = runctx.fold
