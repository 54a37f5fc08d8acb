"""One configuration: the cheap test for [tool.runctx], the table, the user's file, the value."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest
from hooktools import claude_pre_tool_use, hook_env, reply, run_hook
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from proctools import OTHER_UID, make_checkout
from runfactory import clean_env
from strategies import PROPERTY, json_values

from runctx.exceptions import ConfigError, RunctxError
from runctx.runners import BUILTIN_PATTERNS, RunnerMatch, detect_runner
from runctx.settings import (
    BUSY_BOX_ENV,
    CONFIG_ENV,
    DEFAULT_BUSY,
    DEFAULT_ENVIRONMENT_CHANGE_MODE,
    DEFAULT_SHARED_TREE_MODE,
    DEFAULTS,
    ENVIRONMENT_CHANGE_ENV,
    MAX_LINE_BYTES,
    MAX_PYPROJECT_BYTES,
    MAX_SCANNED_BYTES,
    MAX_USER_CONFIG_BYTES,
    MODE_ENV,
    SHARED_TREE_ENV,
    BoxMode,
    BusyRules,
    Mode,
    Settings,
    TableSearch,
    mentions_runctx_table,
    runctx_table,
    settings_for,
    settings_of_table,
    user_config_path,
)


def runners_at(root):
    """The user's runner rows of the checkout at ``root``."""
    return settings_for(str(root), environ={}).runners


@pytest.mark.parametrize(
    "text",
    [
        "[tool.runctx]\nrunners = []\n",
        "[ tool . runctx ]\n",
        '[tool."runctx"]\n',
        "[tool.runctx.extra]\n",
        "[tool]\nrunctx = { on-same-checkout = 'warn' }\n",
        "[tool]\n  runctx.on-same-checkout = 'warn'\n",
        "tool.runctx.on-same-checkout = 'warn'\n",
    ],
)
def test_every_spelling_of_the_table_is_noticed(text):
    """Each way TOML can hold [tool.runctx] makes the file worth parsing."""
    assert mentions_runctx_table(text.encode())


@pytest.mark.parametrize(
    "text",
    [
        "",
        '[project]\nname = "x"\ndependencies = ["runctx>=0.1"]\n',
        '[project.entry-points.pytest11]\nrunctx = "runctx.pytest_plugin"\n',
        "[tool.runctxx]\nrunners = 3\n",
        "[tool]\nrunctxx = 1\n",
        "[tool.black]\n# runctx is configured elsewhere\n",
    ],
)
def test_a_file_that_only_names_runctx_is_not_parsed(text, tmp_path):
    """A dependency, an entry point or a look-alike key holds no runctx table."""
    assert not mentions_runctx_table(text.encode())
    path = tmp_path / "pyproject.toml"
    path.write_text(text)
    assert runctx_table(str(path)) == {}


def test_the_table_is_read_from_a_real_file(tmp_path):
    """The [tool.runctx] table comes back as a dict."""
    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.runctx]\non-same-checkout = "warn"\n')
    assert runctx_table(str(path)) == {"on-same-checkout": "warn"}


def test_a_missing_file_has_no_table(tmp_path):
    """No pyproject.toml: an empty table, no error."""
    assert runctx_table(str(tmp_path / "pyproject.toml")) == {}


@pytest.mark.parametrize(
    ("text", "what"),
    [("[tool.runctx\n", "invalid TOML"), ("[tool]\nrunctx = 3\n", "must be a table")],
)
def test_a_malformed_table_names_the_file(tmp_path, text, what):
    """Bad TOML or a runctx key that is no table is a ConfigError naming the file."""
    path = tmp_path / "pyproject.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=what) as caught:
        runctx_table(str(path))
    assert str(path) in str(caught.value)


# --------------------------------------------------------------------------- on-same-checkout


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", Mode.STOP),
        ('[project]\nname = "p"\n', Mode.STOP),
        ("[tool.runctx]\n", Mode.STOP),
        ('[tool.runctx]\non-same-checkout = "ask"\n', Mode.ASK),
        ('[tool.runctx]\non-same-checkout = "warn"\n', Mode.WARN),
        ('[tool.runctx]\non-same-checkout = "wait"\n', Mode.WAIT),
        ('[tool.runctx]\non-same-checkout = "stop"\nrunners = []\n', Mode.STOP),
    ],
)
def test_the_setting_is_read_from_pyproject(tmp_path, text, expected):
    """``[tool.runctx] on-same-checkout`` picks the mode; stop when it is absent."""
    (tmp_path / "pyproject.toml").write_text(text)
    assert settings_for(str(tmp_path), environ={}).mode is expected


def test_no_pyproject_means_stop(tmp_path):
    """A checkout without pyproject.toml gets the default."""
    assert settings_for(str(tmp_path), environ={}).mode is Mode.STOP


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ('[tool.runctx]\non-same-checkout = "sometimes"\n', "must be one of"),
        ("[tool.runctx]\non-same-checkout = 1\n", "got 1"),
        ("[tool.runctx\n", "invalid TOML"),
        ('[tool]\nrunctx = "yes"\n', "[tool.runctx] must be a table"),
    ],
)
def test_a_malformed_setting_is_a_clear_error(tmp_path, text, what):
    """A bad value or file raises ConfigError naming the file and what is wrong."""
    (tmp_path / "pyproject.toml").write_text(text)
    with pytest.raises(ConfigError, match=r"pyproject\.toml") as raised:
        settings_for(str(tmp_path), environ={})
    assert what in str(raised.value)


def test_the_environment_overrides_the_file(tmp_path):
    """$RUNCTX_ON_SAME_CHECKOUT wins over the file; a bad value is an error too."""
    (tmp_path / "pyproject.toml").write_text('[tool.runctx]\non-same-checkout = "ask"\n')
    assert settings_for(str(tmp_path), environ={MODE_ENV: "warn"}).mode is Mode.WARN
    with pytest.raises(ConfigError, match=r"\$RUNCTX_ON_SAME_CHECKOUT must be one of"):
        settings_for(str(tmp_path), environ={MODE_ENV: "never"})


class TestRunnersSetting:
    """``[tool.runctx] runners`` in pyproject.toml extends the table."""

    def write(self, tmp_path, body):
        """Write ``body`` as tmp_path/pyproject.toml and return the checkout root."""
        (tmp_path / "pyproject.toml").write_text(textwrap.dedent(body))
        return tmp_path

    def test_good_config_extends_detection(self, tmp_path):
        """Entries by program, by module and with args become patterns that detect their runs."""
        root = self.write(
            tmp_path,
            """
            [project]
            name = "x"

            [tool.runctx]
            other_setting = true
            runners = [
              { kind = "e2e", program = "run-e2e" },
              { kind = "integ", module = "integ_runner" },
              { kind = "mk-verify", program = ["make", "gmake"], args = ["verify"] },
              { kind = "smoke", program = "mvn", any_args = ["smoke"], value_options = ["-pl"] },
              { kind = "bg", program = "bgworker", role = "worker", not_with = ["--dry"] },
            ]
            """,
        )
        extra = runners_at(root)
        assert [p.kind for p in extra] == ["e2e", "integ", "mk-verify", "smoke", "bg"]
        table = (*extra, *BUILTIN_PATTERNS)
        assert detect_runner(["./run-e2e", "--all"], table) == RunnerMatch("e2e")
        assert detect_runner(["uv", "run", "python", "-m", "integ_runner"], table) == RunnerMatch(
            "integ"
        )
        assert detect_runner(["make", "-j4", "verify"], table) == RunnerMatch("mk-verify")
        assert detect_runner(["gmake", "verify"], table) == RunnerMatch("mk-verify")
        # not mk-verify: only a task, a run only if a runner runs under it
        assert detect_runner(["make", "lint", "verify"], table) == RunnerMatch(
            "make-target", "task"
        )
        # not smoke: only a task (what its pom's default goal runs), a run only if a runner runs
        assert detect_runner(["mvn", "-pl", "smoke", "clean"], table) == RunnerMatch(
            "mvn-default-goal", "task"
        )
        assert detect_runner(["mvn", "clean", "smoke"], table) == RunnerMatch("smoke")
        assert detect_runner(["bgworker"], table) == RunnerMatch("bg", "worker")
        assert detect_runner(["bgworker", "--dry"], table) is None
        assert detect_runner(["run-e2e", "--version"], table) is None  # the default not_with
        assert detect_runner(["run-e2e"]) is None

    @pytest.mark.parametrize(
        "body",
        [
            '[project]\nname = "runctx-user"\ndependencies = ["runctx>=0.1"]\n',
            "[tool.runctxx]\nrunners = 3\n",
        ],
    )
    def test_a_file_that_only_mentions_runctx_is_not_parsed(self, tmp_path, body):
        """A dependency on runctx, or a look-alike table, is not a runctx table."""
        assert runners_at(self.write(tmp_path, body)) == ()
        assert not mentions_runctx_table(body.encode())

    def test_missing_file_gives_nothing(self, tmp_path):
        """A missing pyproject.toml (or a missing parent directory) adds no patterns."""
        assert runners_at(tmp_path) == ()
        assert runners_at(tmp_path / "no") == ()

    @pytest.mark.parametrize(
        "body",
        [
            "",
            "[project]\nname = 'x'\n",
            "[tool.black]\nline-length = 100\n",
            "[tool.runctx]\nstrict = true\n",
            "[tool.runctx]\nrunners = []\n",
        ],
    )
    def test_missing_table_gives_nothing(self, tmp_path, body):
        """A file without ``[tool.runctx] runners`` adds no patterns."""
        assert runners_at(self.write(tmp_path, body)) == ()

    @pytest.mark.parametrize(
        ("body", "names"),
        [
            ("[tool.runctx\n", "invalid TOML"),
            ("tool = 3\n[tool.runctx]\n", "invalid TOML"),
            ("[tool]\nrunctx = 3\n", "[tool.runctx] must be a table"),
            ("[tool.runctx]\nrunners = 'pytest'\n", "runners must be an array"),
            ("[tool.runctx]\nrunners = ['pytest']\n", "runners[0]"),
            (
                "[tool.runctx]\nrunners = [{kind='a', program='a'}, {kind='e', progam='x'}]\n",
                "runners[1]",
            ),
            ("[tool.runctx]\nrunners = [{kind='e', progam='x'}]\n", "unknown key progam"),
            ("[tool.runctx]\nrunners = [{kind='e'}]\n", "needs 'program' or 'module'"),
            ("[tool.runctx]\nrunners = [{kind=1, program='x'}]\n", "'kind' must be a string"),
            ("[tool.runctx]\nrunners = [{program='x'}]\n", "kind must be a non-empty string"),
            ("[tool.runctx]\nrunners = [{kind='e', program=3}]\n", "'program' must be a list"),
            ("[tool.runctx]\nrunners = [{kind='e', program='x', args='t'}]\n", "'args' must be"),
            ("[tool.runctx]\nrunners = [{kind='e', program=['x', 2]}]\n", "'program' must be"),
            ("[tool.runctx]\nrunners = [{kind='e', program=''}]\n", "empty string"),
            ("[tool.runctx]\nrunners = [{kind='e', program='x', role='boss'}]\n", "role must be"),
        ],
    )
    def test_malformed_config_names_file_and_entry(self, tmp_path, body, names):
        """Malformed TOML, tables, entries, keys or types raise ConfigError naming the file."""
        root = self.write(tmp_path, body)
        with pytest.raises(ConfigError) as caught:
            runners_at(root)
        message = str(caught.value)
        assert message.startswith(f"{root / 'pyproject.toml'}: ")
        assert names in message
        assert isinstance(caught.value, RunctxError)

    def test_unreadable_path_raises_config_error(self, tmp_path):
        """A path that exists but cannot be read as a file raises ConfigError naming it."""
        directory = tmp_path / "pyproject.toml"
        directory.mkdir()
        with pytest.raises(ConfigError, match="cannot read"):
            runners_at(tmp_path)


def write(root, text):
    """Write ``text`` as the checkout's pyproject.toml; return the root as a str."""
    (root / "pyproject.toml").write_text(text)
    return str(root)


@pytest.mark.parametrize("mode", ["stop", "ask", "warn"])
def test_each_mode_is_read_from_the_checkout(tmp_path, mode):
    """on-shared-tree = stop, ask or warn is the checkout's mode for a shared tree."""
    root = write(tmp_path, f'[tool.runctx]\non-shared-tree = "{mode}"\n')
    settings = settings_for(root, environ={})
    assert settings.on_shared_tree is Mode(mode)
    assert settings.shared_tree_mode is Mode(mode)
    assert settings.on_same_checkout is None


def test_nothing_set_gives_stop(tmp_path):
    """A checkout that sets nothing stops next to another user's run in it."""
    settings = settings_for(write(tmp_path, "[project]\nname = 'x'\n"), environ={})
    assert settings.on_shared_tree is None
    assert settings.shared_tree_mode is DEFAULT_SHARED_TREE_MODE is Mode.STOP


@pytest.mark.parametrize("value", ['"wait"', '"sometimes"', "1"])
def test_a_mode_that_cannot_apply_is_an_error_naming_file_and_key(tmp_path, value):
    """Wait (another user's run cannot be waited for) and nonsense are refused, with the place."""
    root = write(tmp_path, f"[tool.runctx]\non-shared-tree = {value}\n")
    with pytest.raises(ConfigError) as raised:
        settings_for(root, environ={})
    message = str(raised.value)
    assert "pyproject.toml: [tool.runctx] on-shared-tree must be one of" in message
    assert '"stop", "ask", "warn"' in message
    assert '"wait"' not in message.partition("got")[0]


def test_the_environment_overrides_the_file_and_is_validated(tmp_path):
    """$RUNCTX_ON_SHARED_TREE wins over the file; a bad value names the variable."""
    root = write(tmp_path, '[tool.runctx]\non-shared-tree = "stop"\non-same-checkout = "warn"\n')
    settings = settings_for(root, environ={SHARED_TREE_ENV: "warn"})
    assert settings.shared_tree_mode is Mode.WARN
    assert settings.mode is Mode.WARN  # the other setting is kept
    with pytest.raises(ConfigError, match=r"\$RUNCTX_ON_SHARED_TREE must be one of"):
        settings_for(root, environ={SHARED_TREE_ENV: "wait"})


# -- on-environment-change ------------------------------------------------------------


def test_an_environment_change_warns_unless_the_checkout_says(tmp_path):
    """Nothing set: warn; the file's ``on-environment-change`` and the variable decide else."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    plain = settings_for(write(tmp_path / "a", "[project]\nname = 'x'\n"), environ={})
    assert plain.on_environment_change is None
    assert plain.environment_change_mode is DEFAULT_ENVIRONMENT_CHANGE_MODE is Mode.WARN
    root = write(tmp_path / "b", '[tool.runctx]\non-environment-change = "stop"\n')
    assert settings_for(root, environ={}).environment_change_mode is Mode.STOP
    overridden = settings_for(root, environ={ENVIRONMENT_CHANGE_ENV: "ask"})
    assert overridden.environment_change_mode is Mode.ASK
    assert overridden.shared_tree_mode is DEFAULT_SHARED_TREE_MODE  # the others are kept


@pytest.mark.parametrize("value", ['"wait"', '"never"', "true"])
def test_an_environment_change_mode_that_cannot_apply_is_an_error(tmp_path, value):
    """``wait`` (an install is no run to wait for) and nonsense name the file and the key."""
    root = write(tmp_path, f"[tool.runctx]\non-environment-change = {value}\n")
    with pytest.raises(ConfigError) as raised:
        settings_for(root, environ={})
    assert "[tool.runctx] on-environment-change must be one of" in str(raised.value)
    with pytest.raises(ConfigError, match=r"\$RUNCTX_ON_ENVIRONMENT_CHANGE must be one of"):
        settings_for(tmp_path, environ={ENVIRONMENT_CHANGE_ENV: "wait"})


# -- busy now: thresholds and on-busy-box ----------------------------------------------


def test_the_thresholds_and_on_busy_box_are_read_from_the_checkout(tmp_path):
    """[tool.runctx] sets each threshold and on-busy-box; false turns a box threshold off."""
    root = write(
        tmp_path,
        "[tool.runctx]\nbusy-run-cpu = 0.25\nbusy-box-cpu-pressure = 60\n"
        'busy-box-load-per-cpu = false\nbusy-box-memory-available = 5\non-busy-box = "warn"\n',
    )
    busy = settings_for(root, environ={}).busy
    assert (busy.run_cpu, busy.cpu_pressure, busy.load_per_cpu, busy.memory_available) == (
        0.25,
        60.0,
        None,
        5.0,
    )
    assert busy.on_busy_box is BoxMode.WARN
    overridden = settings_for(root, environ={BUSY_BOX_ENV: "wait"}).busy
    assert overridden.on_busy_box is BoxMode.WAIT
    assert overridden.cpu_pressure == 60.0
    (tmp_path / "plain").mkdir()
    assert settings_for(write(tmp_path / "plain", ""), environ={}).busy == DEFAULT_BUSY


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("busy-run-cpu = -1", "busy-run-cpu must be a number from 0"),
        ("busy-run-cpu = false", "busy-run-cpu must be a number from 0"),
        ('busy-box-cpu-pressure = "high"', "busy-box-cpu-pressure must be a number"),
        ("busy-box-memory-available = 101", "busy-box-memory-available must be a number"),
        ("busy-box-load-per-cpu = nan", "busy-box-load-per-cpu must be a number"),
        ('on-busy-box = "sometimes"', 'on-busy-box must be one of "off", "warn", "wait"'),
    ],
)
def test_a_bad_threshold_is_an_error_naming_the_key(tmp_path, line, words):
    """A threshold out of range, or an unknown on-busy-box, names the file and the key."""
    root = write(tmp_path, f"[tool.runctx]\n{line}\n")
    with pytest.raises(ConfigError, match=words) as raised:
        settings_for(root, environ={})
    assert root in str(raised.value)


def test_a_bad_on_busy_box_in_the_environment_names_the_variable(tmp_path):
    """$RUNCTX_ON_BUSY_BOX is validated like the file's setting, and says where it came from."""
    with pytest.raises(ConfigError, match=r"\$RUNCTX_ON_BUSY_BOX must be one of"):
        settings_for(write(tmp_path, ""), environ={BUSY_BOX_ENV: "later"})


# -- properties: any table, any bytes, any text -------------------------------------

toml_tables = st.dictionaries(
    st.sampled_from(
        [
            "on-same-checkout",
            "runners",
            "other",
            "busy-run-cpu",
            "busy-box-cpu-pressure",
            "busy-box-load-per-cpu",
            "busy-box-memory-available",
            "on-busy-box",
        ]
    ),
    st.one_of(
        json_values,
        st.sampled_from(["stop", "ask", "warn", "wait", "off"]),
        st.floats(allow_nan=True),
        st.lists(
            st.dictionaries(
                st.sampled_from(
                    [
                        "kind",
                        "program",
                        "module",
                        "args",
                        "role",
                        "any_args",
                        "not_with",
                        "value_options",
                        "bogus",
                    ]
                ),
                st.one_of(
                    st.text(max_size=10), st.lists(st.text(max_size=10), max_size=3), json_values
                ),
                max_size=5,
            ),
            max_size=3,
        ),
    ),
    max_size=3,
)


@PROPERTY
@given(toml_tables)
def test_a_runctx_table_of_any_shape_is_settings_or_a_config_error(table):
    """Any [tool.runctx] table validates into Settings or a ConfigError naming the file."""
    try:
        found: object = settings_of_table(table, "/p/pyproject.toml")
    except ConfigError as error:
        found = error
    if isinstance(found, ConfigError):
        assert str(found).startswith("/p/pyproject.toml")
    else:
        assert isinstance(found, Settings)


TOML_LINES = st.sampled_from(
    [
        "[tool]",
        "[ tool ]",
        "[tool] # the tools",
        '[ "tool" ]',
        "[tool.runctx]",
        '[tool."runctx"]',
        "[ tool . 'runctx' ]",
        "[[tool.runctx.runners]]",
        "[tool.other]",
        "[project]",
        "runctx = {}",
        'runctx.on-same-checkout = "warn"',
        '"runctx" = { on-same-checkout = "warn" }',
        "tool.runctx.x = 1",
        "tool = { runctx = { x = 1 } }",
        'tool = { other = 1, "runctx" = {} }',
        'x = "runctx"',
        "runctxx = 1",
        "# [tool.runctx]",
        'dependencies = ["runctx>=1"]',
        'runctx = "runctx.pytest_plugin"',
        "",
    ]
)


@PROPERTY
@given(st.lists(TOML_LINES, max_size=6), st.sampled_from(["\n", "\r\n"]))
def test_the_cheap_table_test_never_misses_a_table(lines, newline):
    """A text that holds a runctx table, as tomllib reads it, is never skipped as holding none."""
    text = newline.join(lines)
    try:
        tool = tomllib.loads(text).get("tool")
    except tomllib.TOMLDecodeError:
        return  # not TOML: no table to miss
    if isinstance(tool, dict) and "runctx" in tool:
        assert mentions_runctx_table(text.encode())
    if "runctx" not in text:
        assert not mentions_runctx_table(text.encode())


@PROPERTY
@given(st.binary(max_size=3000))
@example(b"[" * 10_000 + b"tool.runctx")
@example(b"\n" * 10_000 + b"runctx")
def test_the_cheap_table_test_says_no_without_the_word(data):
    """Bytes without ``runctx`` hold no table; any bytes get an answer, never an exception."""
    found = mentions_runctx_table(data)
    if b"runctx" not in data:
        assert found is False


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400))
def test_a_pyproject_of_any_text_is_settings_or_a_config_error(tmp_path_factory, text):
    """Any pyproject.toml text gives Settings or a ConfigError, never another exception."""
    root = tmp_path_factory.mktemp("pyproject")
    (root / "pyproject.toml").write_text("[tool.runctx]\n" + text, encoding="utf-8")
    with contextlib.suppress(ConfigError):
        assert isinstance(settings_for(str(root), environ={}), Settings)


# -- a pyproject.toml past what is parsed: searched in chunks, never silently ignored ---------

TABLE = '[tool.runctx]\non-same-checkout = "warn"\n'
PAD = "# " + "x" * 97 + "\n"
PAST_THE_LIMIT = PAD * (MAX_PYPROJECT_BYTES // len(PAD) + 100)
NAMES_RUNCTX = (
    'dependencies = ["runctx>=1"]\n'
    "[project.entry-points.pytest11]\n"
    'runctx = "runctx.pytest_plugin"\n'
    "[tool.other]\n"
    'plugin = "runctx"\n'
    "runctx = 1\n"
)
"""A project that names runctx in every way but a [tool.runctx] table."""


def _write(root, text: str) -> None:
    (root / "pyproject.toml").write_text(text)


def test_a_large_file_that_only_names_runctx_has_the_defaults(tmp_path):
    """Past 1 MiB, runctx named as a dependency and an entry point, before and after: no table."""
    _write(tmp_path, "[project]\n" + NAMES_RUNCTX + PAST_THE_LIMIT + "[project.x]\n" + NAMES_RUNCTX)
    found = settings_for(str(tmp_path), environ={})
    assert found.on_same_checkout is None
    assert found.runners == ()


def test_a_table_past_the_limit_is_an_error_naming_file_and_limit(tmp_path):
    """A [tool.runctx] after 1 MiB of pyproject.toml is reported, never silently ignored."""
    _write(tmp_path, "[project]\n" + NAMES_RUNCTX + PAST_THE_LIMIT + TABLE)
    with pytest.raises(ConfigError) as raised:
        settings_for(str(tmp_path), environ={})
    message = str(raised.value)
    assert message.startswith(f"{tmp_path / 'pyproject.toml'} holds a [tool.runctx] table")
    assert "larger than 1 MiB" in message


@pytest.mark.parametrize(
    "table",
    [
        '[tool]\nrunctx = { on-same-checkout = "warn" }\n',
        'tool.runctx.on-same-checkout = "warn"\n',
        "[ tool . 'runctx' ]\n",
    ],
)
def test_every_spelling_of_a_table_past_the_limit_is_found(tmp_path, table):
    """A [tool] header far from its runctx key, a dotted key, a quoted name: each is found."""
    _write(tmp_path, "[project]\n" + PAST_THE_LIMIT + table)
    with pytest.raises(ConfigError, match=r"holds a \[tool.runctx\] table"):
        settings_for(str(tmp_path), environ={})


def test_a_table_that_straddles_the_limit_is_the_same_error(tmp_path):
    """A table cut by the limit is not reported as invalid TOML, but as too large to read."""
    head = "[project]\n" + PAD * (MAX_PYPROJECT_BYTES // len(PAD))
    head += " " * (MAX_PYPROJECT_BYTES - len(head) - 10)
    _write(tmp_path, head + TABLE)
    with pytest.raises(ConfigError) as raised:
        settings_for(str(tmp_path), environ={})
    assert "invalid TOML" not in str(raised.value)
    assert "larger than 1 MiB" in str(raised.value)


def test_a_large_file_without_runctx_has_the_defaults(tmp_path):
    """A pyproject.toml past the limit that never names runctx holds no table: the defaults."""
    _write(tmp_path, "[project]\n" + PAST_THE_LIMIT)
    assert settings_for(str(tmp_path), environ={}).on_same_checkout is None


def test_a_file_past_the_search_bound_is_an_error_naming_file_and_bound(tmp_path):
    """Past the search bound (its size looked at first), whether a table follows cannot be told."""
    with (tmp_path / "pyproject.toml").open("w") as stream:
        stream.write("[project]\n" + NAMES_RUNCTX)
        block = PAD * 10_000
        while stream.tell() <= MAX_SCANNED_BYTES:
            stream.write(block)
    with pytest.raises(ConfigError) as raised:
        settings_for(str(tmp_path), environ={})
    message = str(raised.value)
    assert message.startswith(
        f"{tmp_path / 'pyproject.toml'} is larger than {MAX_SCANNED_BYTES // 2**20} MiB"
    )
    assert "cannot be told" in message


def test_a_line_too_long_to_hold_that_names_runctx_may_hold_the_table(tmp_path):
    """A single line past the line bound naming runctx is an error, not a guess of no table."""
    _write(tmp_path, "[project]\n" + 'x = "' + "y" * MAX_LINE_BYTES + ' runctx"\n' + PAD)
    with pytest.raises(ConfigError, match="holds a"):
        settings_for(str(tmp_path), environ={})
    _write(tmp_path, "[project]\n" + 'x = "' + "y" * MAX_LINE_BYTES + '"\n' + NAMES_RUNCTX)
    assert settings_for(str(tmp_path), environ={}).on_same_checkout is None


def test_a_table_within_the_limit_is_read(tmp_path):
    """Up to the limit, the table is parsed as ever."""
    _write(tmp_path, "[project]\n" + PAD * 100 + TABLE)
    assert settings_for(str(tmp_path), environ={}).on_same_checkout is Mode.WARN


def test_a_fifo_pyproject_at_the_root_is_a_clear_error(tmp_path):
    """A FIFO named pyproject.toml at a checkout root is refused at once, naming what it is."""
    import os

    os.mkfifo(tmp_path / "pyproject.toml")
    with pytest.raises(ConfigError, match="FIFO"):
        settings_for(str(tmp_path), environ={})


toml_lines = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "[tool]",
                "[ tool ]",
                "[tool.other]",
                "[project]",
                "runctx = 1",
                "runctx.x = 1",
                '"runctx" = 1',
                "runctxx = 1",
                "tool.runctx.a = 1",
                "[tool.runctx]",
                "[tool.runctxs]",
                'x = "runctx"',
                "",
                "  ",
            ]
        ),
        st.text(alphabet="[]tolrunc.x=\"' \t", max_size=20),
    ),
    max_size=30,
)


@PROPERTY
@given(
    toml_lines,
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.lists(st.integers(min_value=1, max_value=40), max_size=20),
)
def test_the_search_in_chunks_agrees_with_the_rule_on_the_whole_text(lines, newline, cuts):
    """However the text is cut into chunks, the search says what the rule says of the whole."""
    data = newline.join(lines).encode()
    search = TableSearch()
    said = False
    at = 0
    for size in [*cuts, len(data)]:
        if search.feed(data[at : at + size]):
            said = True
            break
        at += size
    said = said or search.end()
    assert said == mentions_runctx_table(data)


@pytest.mark.parametrize(
    "text",
    [
        b"[auh.l-troocunauh-cotlrunto ol.runctx]\notoh.o}]\n",  # found by fuzzing
        b"[t ool.runctx]\nx = 1\n",
        b"t\tool = { runctx = 1 }\n",
        b"[to'ol]on\nrunctx..ol;\x01\x00\x10xl.ol;\xff\xff\x0f\x00ol;\x01\x00",  # found by fuzzing
        b'[t"o"ol]\nrunctx = 1\n',
    ],
    ids=["fuzzed", "space-in-tool", "tab-in-tool", "fuzzed-quote-in-header", "quotes-in-header"],
)
def test_a_tool_spelt_with_blanks_is_read_alike_whole_and_in_chunks(text):
    """The rule looks for ``tool`` as it reads a line (blanks, and a header's quotes, left out).

    Whole or byte by byte, the answer is the same.
    """
    search = TableSearch()
    said = any(search.feed(text[at : at + 1]) for at in range(len(text))) or search.end()
    assert said == mentions_runctx_table(text)


# -- the user's own configuration file ---------------------------------------------------

USER_RUNNER = '[[runners]]\nkind = "e2e"\nprogram = "run-e2e"\n'


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({CONFIG_ENV: "/etc/x.toml", "XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/etc/x.toml"),
        ({"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/x/runctx/config.toml"),
        ({"XDG_CONFIG_HOME": "relative", "HOME": "/h"}, "/h/.config/runctx/config.toml"),
        ({"HOME": "/h"}, "/h/.config/runctx/config.toml"),
        ({}, None),
    ],
)
def test_the_user_file_is_found_where_xdg_says(environ, expected):
    """$RUNCTX_CONFIG, else an absolute $XDG_CONFIG_HOME, else ~/.config; no home, no file."""
    assert user_config_path(environ) == expected


def _user_file(tmp_path, text):
    config = tmp_path / "xdg" / "runctx" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(text)
    return {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}


def test_user_runners_come_after_the_checkouts(tmp_path):
    """The checkout's rows, then the user's, then the builtin table; both files are named."""
    environ = _user_file(tmp_path, USER_RUNNER)
    checkout = tmp_path / "proj"
    checkout.mkdir()
    (checkout / "pyproject.toml").write_text(
        '[tool.runctx]\nrunners = [{ kind = "own", program = "run-e2e" }]\n'
    )
    settings = settings_for(str(checkout), environ)
    assert [row.kind for row in settings.runners] == ["own", "e2e"]
    assert settings.user_path == str(tmp_path / "xdg" / "runctx" / "config.toml")
    assert detect_runner(["run-e2e"], settings.patterns) == RunnerMatch("own")
    assert "run-e2e" in settings.names
    elsewhere = settings_for(str(tmp_path), environ)
    assert detect_runner(["run-e2e"], elsewhere.patterns) == RunnerMatch("e2e")
    assert detect_runner(["run-e2e"], settings_for(str(tmp_path), {}).patterns) is None


def test_the_checkout_mode_wins_over_the_users_and_the_environment_over_both(tmp_path):
    """on-same-checkout: environment, then checkout, then user, then the default."""
    environ = _user_file(tmp_path, 'on-same-checkout = "warn"\n')
    assert settings_for(str(tmp_path), environ).mode is Mode.WARN
    (tmp_path / "pyproject.toml").write_text('[tool.runctx]\non-same-checkout = "ask"\n')
    assert settings_for(str(tmp_path), environ).mode is Mode.ASK
    assert settings_for(str(tmp_path), {**environ, MODE_ENV: "wait"}).mode is Mode.WAIT


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("runners = [", "invalid TOML"),
        ("runners = 3", "runners must be an array"),
        ('runners = [{ kind = "x" }]', "runners[0]"),
        ('on-same-checkout = "never"', "on-same-checkout must be one of"),
    ],
)
def test_a_malformed_user_file_names_itself(tmp_path, text, what):
    """A bad user file is a clear error naming the file and the key."""
    environ = _user_file(tmp_path, text)
    with pytest.raises(ConfigError, match=r"config\.toml") as raised:
        settings_for(str(tmp_path), environ)
    assert what in str(raised.value)


def test_the_hook_recognises_a_user_runner_in_any_checkout(tmp_path, shared_tmp, runs):
    """The hook reads the user's file: ``run-e2e`` is a test run in a checkout that sets nothing."""
    environ = _user_file(tmp_path, USER_RUNNER)
    checkout = make_checkout(shared_tmp)
    script = checkout / "run-e2e"
    script.write_text(
        f"#!{sys.executable}\nimport sys, time, pathlib\n"
        "pathlib.Path(sys.argv[1]).touch()\ntime.sleep(300)\n"
    )
    script.chmod(0o755)
    ready = checkout / "ready"
    run = runs.orphan([str(script), str(ready)], checkout, env=clean_env(), ready=ready)
    env = hook_env(**environ)
    answer = reply(run_hook("claude", claude_pre_tool_use("./run-e2e --all", checkout), env=env))
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert f"pid {run.pid} (e2e" in answer["hookSpecificOutput"]["permissionDecisionReason"]
    done = run_hook("claude", claude_pre_tool_use("./run-e2e --all", checkout))
    assert (done.returncode, done.stdout) == (0, "")  # without the user's file: no run


def test_status_sees_a_user_runner_of_another_checkout_as_foreign(tmp_path, shared_tmp, runs):
    """``runctx status`` from another checkout lists the custom runner's load as foreign."""
    environ = _user_file(tmp_path, USER_RUNNER)
    theirs = make_checkout(shared_tmp / "b")
    mine = make_checkout(shared_tmp / "a")
    script = theirs / "run-e2e"
    script.write_text(
        f"#!{sys.executable}\nimport sys, time, pathlib\n"
        "pathlib.Path(sys.argv[1]).touch()\ntime.sleep(300)\n"
    )
    script.chmod(0o755)
    ready = theirs / "ready"
    run = runs.orphan([str(script), str(ready)], theirs, env=clean_env(), ready=ready)
    command = [sys.executable, "-m", "runctx", "status", "--json"]
    seen = {}
    for name, env in (("with", hook_env(**environ)), ("without", hook_env())):
        done = subprocess.run(command, capture_output=True, cwd=mine, env=env, check=True)
        report = json.loads(done.stdout)
        seen[name] = [r for r in report["runs"] if r["pid"] == run.pid]
    assert [(r["kind"], r["verdict"]) for r in seen["with"]] == [("e2e", "foreign")]
    assert seen["without"] == []


def test_every_other_key_is_merged_key_by_key(tmp_path):
    """Thresholds, on-busy-box, on-shared-tree: the checkout's key wins, the user's fills in."""
    environ = _user_file(
        tmp_path,
        'busy-run-cpu = 1.5\non-busy-box = "warn"\non-shared-tree = "ask"\n'
        "busy-box-load-per-cpu = false\n",
    )
    (tmp_path / "pyproject.toml").write_text('[tool.runctx]\non-busy-box = "wait"\n')
    settings = settings_for(str(tmp_path), environ)
    assert settings.busy == BusyRules(run_cpu=1.5, load_per_cpu=None, on_busy_box=BoxMode.WAIT)
    assert settings.shared_tree_mode is Mode.ASK
    overridden = settings_for(str(tmp_path), {**environ, BUSY_BOX_ENV: "off"})
    assert overridden.busy.on_busy_box is BoxMode.OFF
    assert overridden.busy.run_cpu == 1.5
    assert settings_for(str(tmp_path / "none"), {}).busy == DEFAULT_BUSY


def test_a_user_file_is_read_without_blocking_and_within_its_bound(tmp_path):
    """A FIFO in the user file's place, or a file past 1 MiB, is an error naming it: no hang."""
    config = tmp_path / "config.toml"
    os.mkfifo(config)
    with pytest.raises(ConfigError, match="a FIFO, not a regular file"):
        settings_for(str(tmp_path / "none"), {CONFIG_ENV: str(config)})
    config.unlink()
    config.write_bytes(b"# " + b"x" * MAX_USER_CONFIG_BYTES + b"\n")
    with pytest.raises(ConfigError, match=r"config\.toml is larger than 1 MiB"):
        settings_for(str(tmp_path / "none"), {CONFIG_ENV: str(config)})
    config.write_text(USER_RUNNER)
    runners = settings_for(str(tmp_path / "none"), {CONFIG_ENV: str(config)}).runners
    assert [row.kind for row in runners] == ["e2e"]


# -- who may set a checkout's modes: the owner rule of the checkout markers ---------------


@pytest.fixture
def shared_directory(tmp_path):
    """A sticky, world-writable directory with no checkout marker: its own root (as /tmp is)."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    return shared


@pytest.mark.needs_root
def test_another_users_pyproject_sets_nothing(shared_directory):
    """A pyproject.toml another user put in a shared root is not read; the same file of ours is."""
    from runctx.roots import checkout_root

    planted = shared_directory / "pyproject.toml"
    planted.write_text('[tool.runctx]\non-same-checkout = "warn"\n')
    os.chown(planted, OTHER_UID, OTHER_UID)
    root = checkout_root(str(shared_directory))
    assert root == str(shared_directory)
    assert settings_for(root, environ={}).mode is Mode.STOP
    os.chown(planted, os.getuid(), os.getgid())
    assert settings_for(root, environ={}).mode is Mode.WARN


@pytest.mark.needs_root
def test_another_users_link_or_fifo_as_pyproject_is_never_opened(shared_directory, tmp_path):
    """A link another user planted is not followed, and their FIFO makes no hook an error."""
    from runctx.roots import checkout_root

    ours = tmp_path / "ours.toml"
    ours.write_text('[tool.runctx]\non-same-checkout = "warn"\n')
    link = shared_directory / "pyproject.toml"
    link.symlink_to(ours)
    os.lchown(link, OTHER_UID, OTHER_UID)
    root = checkout_root(str(shared_directory))
    assert settings_for(root, environ={}).mode is Mode.STOP
    link.unlink()
    os.mkfifo(link)
    os.chown(link, OTHER_UID, OTHER_UID)
    assert settings_for(root, environ={}).mode is Mode.STOP  # read nothing, raised nothing
    done = run_hook("claude", claude_pre_tool_use("ls -la", shared_directory), env=hook_env())
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


# -- one value per call: built from its layers, each key's source recorded -------------------


def test_each_key_records_the_layer_that_set_it(tmp_path):
    """The user's file, the checkout and the environment each set a key; the value says which."""
    config = tmp_path / "user.toml"
    config.write_text('on-shared-tree = "ask"\nbusy-run-cpu = 2\non-same-checkout = "ask"\n')
    (tmp_path / "proj").mkdir()
    root = write(tmp_path / "proj", '[tool.runctx]\non-same-checkout = "warn"\n')
    environ = {CONFIG_ENV: str(config), BUSY_BOX_ENV: "wait"}
    settings = settings_for(root, environ)
    assert settings.mode is Mode.WARN
    assert settings.source_of("on-same-checkout") == "checkout"
    assert settings.shared_tree_mode is Mode.ASK
    assert settings.source_of("on-shared-tree") == "user"
    assert settings.busy.run_cpu == 2.0
    assert settings.source_of("busy-run-cpu") == "user"
    assert settings.source_of("on-busy-box") == "environment"
    assert settings.source_of("busy-box-load-per-cpu") == "default"
    assert settings.path == os.path.join(root, "pyproject.toml")
    assert settings.user_path == str(config)


def test_the_merge_is_one_rule_over_the_layers(tmp_path):
    """merged(layers(...)) is what settings_for gives, and a stronger layer wins field by field."""
    from runctx.settings import layers, merged

    config = tmp_path / "user.toml"
    config.write_text(
        'on-same-checkout = "ask"\n[[runners]]\nkind = "mine"\nprogram = "run-mine"\n'
    )
    (tmp_path / "proj").mkdir()
    root = write(
        tmp_path / "proj",
        '[tool.runctx]\n[[tool.runctx.runners]]\nkind = "theirs"\nprogram = "run-theirs"\n',
    )
    environ = {CONFIG_ENV: str(config), MODE_ENV: "wait"}
    found = layers(root, environ)
    assert [layer.sources for layer in found] == [
        (("on-same-checkout", "user"), ("runners", "user")),
        (("runners", "checkout"),),
        (("on-same-checkout", "environment"),),
    ]
    settings = merged(found)
    assert settings == settings_for(root, environ)
    assert [row.kind for row in settings.runners] == ["theirs", "mine"]
    assert settings.mode is Mode.WAIT
    assert settings.source_of("on-same-checkout") == "environment"
    assert merged(()) == DEFAULTS


def test_no_module_below_a_face_looks_settings_up():
    """settings_for is called only at a face's entry: the CLI commands, the hook, the plugin."""
    package = Path(__file__).resolve().parents[1] / "runctx"
    faces = {
        "cli/check.py",
        "cli/run.py",
        "cli/status.py",
        "cli/stop.py",
        "cli/wait.py",
        "fastpath/hook.py",
        "hooks/answer.py",
        "pytest_plugin.py",
        "settings.py",
    }
    calling = sorted(
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if "settings_for(" in path.read_text(encoding="utf-8")
    )
    assert set(calling) <= faces, calling
    assert "scanning.py" not in calling
