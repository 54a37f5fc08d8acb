"""One escaping for every machine face: no raw C0, C1 or bidi control, decoded strings exact.

A run whose directory and argv carry a CSI (U+009B), a bidi override
(U+202E) and DEL is started for real; ``status --json``, ``check --json``,
the OpenMetrics face and JSON log lines are read as bytes.
"""

from __future__ import annotations

import json
import unicodedata

import pytest
from hooktools import runctx
from hypothesis import given, settings
from hypothesis import strategies as st
from proctools import PYTHON, make_checkout, name_every_foreign_run
from runfactory import RUN_TESTS_SCRIPT

from runctx.present.escape import json_controls_escaped
from runctx.present.output import json_dumps

CONTROLS = "\u009b31m\u202eevil\u2066\x7f\u0085\u200f"
"""C1 (CSI, NEL), bidi (RLO, LRI, RLM) and DEL: what ``ensure_ascii=False`` leaves raw."""


def raw_controls(text: str) -> list[str]:
    """The characters in ``text`` that are controls or format characters, but JSON's layout."""
    kinds = ("Cc", "Cf", "Zl", "Zp")
    return [c for c in text if c not in "\n " and unicodedata.category(c) in kinds]


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory):
    """A live orphaned run whose checkout's name and argv hold the controls; a viewer checkout."""
    from runfactory import RunFactory

    base = tmp_path_factory.mktemp("faces")
    base.chmod(0o755)
    root = make_checkout(base, f"proj{CONTROLS}")
    (root / "run_tests.py").write_text(RUN_TESTS_SCRIPT)
    viewer = name_every_foreign_run(make_checkout(base, "viewer"))
    ready = base / "ready"
    factory = RunFactory()
    try:
        run = factory.orphan([PYTHON, "run_tests.py", str(ready), CONTROLS], root, ready=ready)
        yield run.pid, root, viewer
    finally:
        factory.reap()


def test_status_json_escapes_c1_and_bidi_and_decodes_exactly(hostile_run):
    """``status --json``: no raw C1/bidi/DEL byte; the argv and root decode to the real text."""
    pid, root, viewer = hostile_run
    done = runctx("status", "--json", cwd=viewer, text=False)
    assert done.returncode == 0, done.stderr
    text = done.stdout.decode("utf-8")
    assert raw_controls(text) == []
    assert "\\u009b" in text
    assert "\\u202e" in text
    run = next(r for r in json.loads(text)["runs"] if r["pid"] == pid)
    assert run["argv"][-1] == CONTROLS
    assert run["root"] == str(root)


def test_check_json_escapes_c1_and_bidi(hostile_run):
    """``check --json`` from inside the hostile checkout: no raw control, the root exact."""
    _pid, root, _viewer = hostile_run
    done = runctx("check", "--json", cwd=root, text=False)
    text = done.stdout.decode("utf-8")
    assert raw_controls(text) == [], text
    assert "\\u202e" in text
    assert str(root) in json.dumps(json.loads(text), ensure_ascii=False)


def test_openmetrics_and_json_logs_hold_no_raw_control(hostile_run):
    """OpenMetrics labels and ``--log-json -vv`` lines: every control escaped."""
    _pid, _root, viewer = hostile_run
    done = runctx(
        "status", "--format", "openmetrics", "--root-label", "path", cwd=viewer, text=False
    )
    assert done.returncode == 0, done.stderr
    assert raw_controls(done.stdout.decode("utf-8")) == []
    assert "\\u202e" in done.stdout.decode("utf-8")
    done = runctx("--log-json", "-vv", "status", cwd=viewer, text=False)
    assert done.returncode == 0, done.stderr
    assert raw_controls(done.stderr.decode("utf-8")) == []


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.text(st.characters(blacklist_categories=("Cs",))),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
        max_leaves=10,
    )
)
def test_any_json_value_is_written_without_raw_controls_and_reads_back_exactly(value):
    """Any strings: the JSON face writes no raw control character and decodes to the same value."""
    text = json_dumps(value)
    assert raw_controls(text) == []
    assert json.loads(text) == value
    assert json_controls_escaped(text) == text  # idempotent
