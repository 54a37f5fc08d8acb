"""Regular expressions compiled when first used, not when their module is imported.

The hook imports every reader of task files and scripts on each command that
may start a test run, and most commands use none of their expressions: compiled
at import, they cost every such call about two and a half milliseconds.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import AnyStr

__all__ = ["on_first_use"]


def on_first_use(source: AnyStr, flags: int = 0) -> Callable[[], re.Pattern[AnyStr]]:
    """A call that gives ``re.compile(source, flags)``, compiled on the first call and kept."""
    return functools.cache(functools.partial(re.compile, source, flags))
