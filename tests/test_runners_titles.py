"""Process titles: a cmdline that is one string padded with NULs is read as words."""

from __future__ import annotations

import pytest

from runctx.runners import RunnerMatch, detect_runner
from runctx.runners.walk import title_words
from runctx.sources.proctext import parse_cmdline


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        # npm writes its title over argv and pads the rest with NULs
        (b"npm test" + b"\0" * 15, ["npm", "test"]),
        (b"npm exec jest --ci" + b"\0" * 9, ["npm", "exec", "jest", "--ci"]),
        # a title with no NUL at all
        (b"npm run unit", ["npm", "run", "unit"]),
        # a real argv stays as it is, even when a word holds a space
        (b"python\0-m\0pytest\0-k\0a or b\0", ["python", "-m", "pytest", "-k", "a or b"]),
        (b"/opt/my tools/pytest\0-x\0", ["/opt/my tools/pytest", "-x"]),
        # a title without a space names one program
        (b"npm" + b"\0" * 8, ["npm", *[""] * 7]),
    ],
)
def test_a_title_is_split_into_words(raw, words):
    """A NUL-padded single string becomes its words; a real argv is kept."""
    assert list(title_words(parse_cmdline(raw))) == words


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        (b"npm test" + b"\0" * 15, "npm-test"),
        (b"npm run test:unit" + b"\0" * 15, "npm-test"),
        (b"npm exec jest" + b"\0" * 15, "jest"),
    ],
)
def test_a_title_names_its_runner(raw, kind):
    """A title such as npm's is detected as the runner its words name."""
    assert detect_runner(parse_cmdline(raw)) == RunnerMatch(kind)
