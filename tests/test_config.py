"""Reading [tool.runctx]: the cheap test for the table, and the table itself."""

from __future__ import annotations

import pytest

from runctx.config import mentions_runctx_table, runctx_table
from runctx.exceptions import ConfigError


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
