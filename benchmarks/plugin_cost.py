"""The pytest plugin's cost per session: a real small suite with and without ``-p no:runctx``.

The suite is a small project made in a temporary git checkout (a package and
a few dozen tests that exercise it), run as a whole ``python -m pytest``
process, the two ways taking turns. The CPU seconds are the session
process's own and its children's (``wait4``), so the plugin's scan, its
imports and its hooks are all in the difference. Nothing here asserts a time.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

PACKAGE = '''"""A small library the suite tests."""


def words(text):
    return [word for word in text.split() if word]


def counts(text):
    found = {}
    for word in words(text):
        found[word] = found.get(word, 0) + 1
    return found
'''

TESTS = """import pytest

from tinylib import counts, words


@pytest.mark.parametrize("size", range(40))
def test_counts(size):
    text = " ".join(["a", "b"] * size)
    assert counts(text) == ({"a": size, "b": size} if size else {})


def test_words():
    assert words(" a  b ") == ["a", "b"]
"""


def make_suite(directory: Path) -> Path:
    """A small real project with its tests, in a git checkout of its own."""
    root = directory / "suite"
    (root / "tinylib").mkdir(parents=True)
    (root / "tinylib" / "__init__.py").write_text(PACKAGE)
    (root / "tests").mkdir()
    (root / "tests" / "test_tinylib.py").write_text(TESTS)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "tinylib"\nversion = "0"\n[tool.pytest.ini_options]\n'
        'pythonpath = ["."]\n'
    )
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _session(argv: Sequence[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """One session: (wall seconds, CPU seconds of the process and its children)."""
    began = time.perf_counter()
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _pid, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - began
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        msg = f"{list(argv)} failed with status {process.returncode}"
        raise RuntimeError(msg)
    return elapsed, usage.ru_utime + usage.ru_stime


def quiet_box_prefix() -> list[str] | None:
    """``unshare`` into a new pid namespace with its own ``/proc``: a quiet box, where allowed.

    The scan then sees the session's own processes only, as on a box where
    nothing else runs: the plugin's own cost, not that of the box's load.
    None where it cannot be made (not root, no ``unshare``).
    """
    unshare = shutil.which("unshare")
    if unshare is None or os.geteuid() != 0:
        return None
    probe = subprocess.run(
        [unshare, "-p", "-f", "--mount-proc", "true"], capture_output=True, check=False
    )
    return [unshare, "-p", "-f", "--mount-proc"] if probe.returncode == 0 else None


Cost = dict[str, tuple[float, float, float]]
"""Per way of running: (median wall ms, median CPU ms, least CPU ms)."""


def plugin_cost(repeats: int, prefix: Sequence[str] = ()) -> Cost:
    """Median wall and CPU ms (and least CPU ms) with the plugin, and with ``-p no:runctx``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RUNCTX_", "PYTEST_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # the warm-up round writes the caches, as in use
    base = [*prefix, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    ways = {"pytest (runctx plugin)": base, "pytest -p no:runctx": [*base, "-p", "no:runctx"]}
    with tempfile.TemporaryDirectory(prefix="runctx-bench-suite-") as directory:
        root = make_suite(Path(directory))
        taken: dict[str, list[tuple[float, float]]] = {name: [] for name in ways}
        for round_number in range(repeats + 1):
            for name, argv in ways.items():
                sample = _session(argv, root, env)
                if round_number:  # the first round warms the caches
                    taken[name].append(sample)
    # The median of each, and the least CPU: on a shared box, noise only ever adds.
    return {
        name: (
            statistics.median(s[0] for s in samples) * 1000,
            statistics.median(s[1] for s in samples) * 1000,
            min(s[1] for s in samples) * 1000,
        )
        for name, samples in taken.items()
    }


def plugin_rows(repeats: int) -> dict[str, Cost]:
    """The plugin's cost on a quiet box (where one can be made) and on this box as it is."""
    rows = {}
    quiet = quiet_box_prefix()
    if quiet is not None:
        rows["a quiet box (own pid namespace)"] = plugin_cost(repeats, quiet)
    rows["this box, as it is"] = plugin_cost(repeats)
    return rows


def render(rows: dict[str, Cost]) -> str:
    """The plugin's cost per session as Markdown."""
    out = ["### The pytest plugin, per session of a small suite (ms; median, and least CPU)", ""]
    out += [
        "| box | session | wall | CPU | least CPU | CPU share |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for box, cost in rows.items():
        out.extend(
            f"| {box} | `{name}` | {wall:.1f} | {cpu:.1f} | {least:.1f} | |"
            for name, (wall, cpu, least) in cost.items()
        )
        (with_wall, with_cpu, with_least), (without_wall, without_cpu, without_least) = (
            cost.values()
        )
        # The share of the session without the plugin: what the cost is on any box's speed.
        share = (with_cpu - without_cpu) / without_cpu * 100 if without_cpu else float("nan")
        out.append(
            f"| {box} | **the plugin's cost** | **{with_wall - without_wall:+.1f}** | "
            f"**{with_cpu - without_cpu:+.1f}** | **{with_least - without_least:+.1f}** | "
            f"**{share:+.0f}%** |"
        )
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(render(plugin_rows(int(sys.argv[1]) if len(sys.argv) > 1 else 9)) + "\n")
