"""Fixtures shared by the tests: world-enterable temporary dirs and real checkouts."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

# Git identity for the checkouts tests create, independent of the machine's config.
for _name, _value in {
    "GIT_AUTHOR_NAME": "runctx tests",
    "GIT_AUTHOR_EMAIL": "tests@runctx.invalid",
    "GIT_COMMITTER_NAME": "runctx tests",
    "GIT_COMMITTER_EMAIL": "tests@runctx.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}.items():
    os.environ.setdefault(_name, _value)


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A fresh directory under the system temp dir that every uid may enter."""
    path = Path(tempfile.mkdtemp(prefix="runctx-test-"))
    path.chmod(0o755)
    try:
        yield path.resolve()
    finally:
        shutil.rmtree(path, ignore_errors=True)
