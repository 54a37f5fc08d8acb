"""The hook's path for a command that is not a test run stays cheap with the safety steps in.

Escaping, bounded reads and the linear walk load on that path; none of them
may bring ``typing``, ``base64``, ``hypothesis``, ``atheris`` or the output
module with it (``-X importtime`` shows what was imported).
"""

from __future__ import annotations

import re

import pytest
from hooktools import claude_pre_tool_use, run_hook
from proctools import make_checkout

NOT_ON_THE_HOOK_PATH = (
    "typing",
    "base64",
    "hypothesis",
    "atheris",
    "threading",
    "tomllib",
    "runctx.present.output",
    "runctx.present.json",
)


@pytest.mark.parametrize("pyproject", ["", '[project]\nname = "x"\n'])
def test_a_non_test_command_loads_no_safety_heavyweight(tmp_path, pyproject):
    """A non-test command in a checkout (with or without pyproject.toml) imports none of them."""
    checkout = make_checkout(tmp_path)
    if pyproject:
        (checkout / "pyproject.toml").write_text(pyproject)
    else:
        (checkout / "pyproject.toml").unlink()
    done = run_hook(
        "claude", claude_pre_tool_use("git diff", checkout), python_args=("-X", "importtime")
    )
    assert done.returncode == 0
    assert done.stdout == ""
    imported = set(re.findall(r"\|\s+([\w.]+)\s*$", done.stderr, flags=re.MULTILINE))
    assert "runctx.checkout" in imported
    if pyproject:
        assert "runctx.planted" in imported
    for name in NOT_ON_THE_HOOK_PATH:
        assert name not in imported, f"{name} is imported on the non-test path"
