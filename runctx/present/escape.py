r"""Text read from ``/proc`` or the file system, made printable.

Arguments and paths are read with surrogate escapes (``os.fsdecode``), so that
no byte is lost; shown to a person or a machine, bytes that are not UTF-8
appear as ``\\xNN``.
"""

from __future__ import annotations


def printable(arg: str) -> str:
    r"""Text for an argument read with surrogate escapes: bad bytes as ``\\xNN``."""
    return arg.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
