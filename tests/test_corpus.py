"""Recognition measured on a corpus of real command lines: recall and false positives.

``tests/corpus/commands.jsonl`` holds one JSON object per line: ``label``
(``run``: the command starts a test run; ``no``: it runs no tests), ``eco``
(the ecosystem), ``cmd`` (the command line, as a developer or a CI file writes
it) and ``src`` (where it was found; ``tests/corpus/README.md`` says more).
A line may add ``files``: project files (name to text) the command reads,
written into its checkout first. Extending the corpus is adding one line.

Each command goes through the path the hook takes for it
(:func:`runctx.hooks.main.test_runs`) in a checkout of its own that sets
nothing, with no user configuration. The test fails below
:data:`MIN_RECALL` of the runs recognised, or on any false positive.
"""

from __future__ import annotations

import collections
import json
import subprocess
from pathlib import Path

import pytest

from runctx.hooks.main import test_runs

CORPUS = Path(__file__).resolve().parent / "corpus" / "commands.jsonl"
MIN_RECALL = 0.98
MIN_LINES = 600
LABELS = ("run", "no")


def _lines():
    with CORPUS.open(encoding="utf-8") as corpus:
        return [(n, json.loads(text)) for n, text in enumerate(corpus, 1) if text.strip()]


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    """An empty git checkout that configures nothing."""
    root = tmp_path_factory.mktemp("corpus") / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


@pytest.fixture(autouse=True)
def no_user_configuration(monkeypatch, tmp_path):
    """No configuration of the user running the suite leaks into the measure."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    for name in ("RUNCTX_CONFIG", "RUNCTX_ON_SAME_CHECKOUT"):
        monkeypatch.delenv(name, raising=False)


def test_every_line_is_well_formed():
    """Each line has a label, an ecosystem, a command and a source; no command twice.

    A command may come back with other project files: they decide its label.
    """
    lines = _lines()
    assert len(lines) >= MIN_LINES
    seen: dict[tuple[str, str], int] = {}
    for number, entry in lines:
        assert entry.get("label") in LABELS, number
        assert isinstance(entry.get("cmd"), str), number
        assert entry["cmd"].strip(), number
        assert isinstance(entry.get("eco"), str), number
        assert entry["eco"], number
        assert isinstance(entry.get("src"), str), number
        assert entry["src"], number
        assert set(entry) <= {"label", "eco", "cmd", "src", "files"}, number
        files = entry.get("files", {})
        assert isinstance(files, dict), number
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()), number
        key = (entry["cmd"], json.dumps(files, sort_keys=True))
        assert key not in seen, f"line {number} repeats line {seen.get(key)}"
        seen[key] = number


def _recognised(entry, checkout, tmp_path_factory):
    cwd = checkout
    if entry.get("files"):
        cwd = tmp_path_factory.mktemp("project")
        for name, text in entry["files"].items():
            path = cwd / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    return bool(test_runs(entry["cmd"], str(cwd)))


def test_recall_and_false_positives(checkout, tmp_path_factory):
    """At least 98% of the runs are recognised, and no command that runs no tests is."""
    missed, false = [], []
    runs = collections.Counter()
    found = collections.Counter()
    for number, entry in _lines():
        recognised = _recognised(entry, checkout, tmp_path_factory)
        if entry["label"] == "run":
            runs[entry["eco"]] += 1
            found[entry["eco"]] += recognised
            if not recognised:
                missed.append(f"  line {number} [{entry['eco']}] {entry['cmd']!r}")
        elif recognised:
            false.append(f"  line {number} [{entry['eco']}] {entry['cmd']!r}")
    total = sum(runs.values())
    recall = sum(found.values()) / total
    summary = (
        f"recall {recall:.4f} ({sum(found.values())}/{total} runs), "
        f"{len(false)} false positive(s); by ecosystem: "
        + ", ".join(f"{eco} {found[eco]}/{runs[eco]}" for eco in sorted(runs))
    )
    print(summary)
    report = "\n".join([summary, "missed:", *missed, "false positives:", *false])
    assert recall >= MIN_RECALL, report
    assert not false, report


ECOSYSTEMS = (
    *("python", "javascript", "go", "rust", "jvm", "build-systems", "ruby", "php", "dotnet"),
    *("elixir", "swift", "dart", "haskell", "zig", "lua", "r", "julia"),
)


def test_every_ecosystem_has_runs_and_look_alikes():
    """Each ecosystem has test runs and commands that run no tests, enough of both to count."""
    ecos = collections.Counter((entry["eco"], entry["label"]) for _, entry in _lines())
    assert {eco for eco, _ in ecos} == set(ECOSYSTEMS)
    for eco in ECOSYSTEMS:
        assert ecos[(eco, "run")] >= 10, eco
        assert ecos[(eco, "no")] >= 5, eco
