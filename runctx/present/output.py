"""Writing a face's text to a stream, so that writing never fails in a way nobody reads.

Every text a face writes goes through :mod:`runctx.present.escape` here:

- :func:`write_text` escapes text for a terminal (:func:`~runctx.present.escape.visible`
  line by line) and encodes it for the stream's encoding, with escapes for
  what the encoding cannot hold: it never fails on any locale (``C``,
  ``C.UTF-8``, ``en_US.UTF-8``, ASCII, ``PYTHONIOENCODING=utf-8:strict``).
- :func:`write_json` writes JSON as UTF-8 bytes, whatever the locale
  (RFC 8259: JSON is UTF-8); its strings were made exact by the JSON face.
- A stream that is closed or whose reader went away (``EPIPE``) raises
  :class:`OutputClosedError`; any other failure to write (``ENOSPC``, ``EIO``)
  raises :class:`OutputError` with one line saying so. The command line turns
  the first into a quiet exit and the second into that line on stderr.
- :func:`say` writes a line to stderr, where a failure cannot be reported
  anywhere else, so it is ignored.
- :func:`write_lines` writes lines of styled spans (:mod:`runctx.present.style`):
  each span escaped like any text, then, on a terminal that wants it,
  coloured with runctx's own sequences around the escaped text.
- :func:`write_file_atomically` replaces a file as a whole (a temporary file
  beside it, flushed, renamed over it), so a reader (node_exporter's textfile
  collector) sees the old text or the new, never half of one.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sys

from runctx.exceptions import RunctxError
from runctx.planted import NotRegularFileError, write_atomically
from runctx.present.escape import json_controls_escaped, json_text, terminal_bytes, visible
from runctx.present.style import RESET, Line, sgr

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TextIO


class OutputError(RunctxError):
    """The output cannot be written (a full disk, an I/O error)."""


class OutputClosedError(OutputError):
    """The output's reader is gone (a closed pipe, a closed descriptor)."""


def _put(stream: TextIO | None, data: bytes, what: str) -> None:
    if stream is None:
        msg = f"{what} is closed"
        raise OutputClosedError(msg)
    try:
        stream.flush()
        fd = _fileno(stream)
        if fd is not None:  # straight to the descriptor: nothing left buffered to fail at exit
            while data:
                data = data[os.write(fd, data) :]
            return
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            buffer.write(data)
            buffer.flush()
        else:  # a stream without bytes underneath (a test's StringIO)
            stream.write(data.decode(getattr(stream, "encoding", None) or "utf-8", "replace"))
            stream.flush()
    except BrokenPipeError as error:
        msg = f"{what} was closed by its reader"
        raise OutputClosedError(msg) from error
    except (OSError, ValueError) as error:
        if isinstance(error, OSError) and error.errno == errno.EBADF:
            msg = f"{what} is closed"
            raise OutputClosedError(msg) from error
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        msg = f"cannot write to {what}: {reason}"
        raise OutputError(msg) from error


def _fileno(stream: TextIO) -> int | None:
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
        return None


def _name(stream: TextIO | None) -> str:
    if stream is sys.stderr:
        return "stderr"
    return "stdout"


def write_text(text: str, stream: TextIO | None = None, *, utf8: bool = False) -> None:
    """Write ``text`` for a person: escaped, encoded for the stream, flushed.

    ``utf8``: a format that is UTF-8 by definition (OpenMetrics), written as
    UTF-8 whatever the stream's encoding.
    """
    stream = sys.stdout if stream is None else stream
    encoding = "utf-8" if utf8 else getattr(stream, "encoding", None)
    _put(stream, terminal_bytes(text, encoding), _name(stream))


def json_dumps(value: object) -> str:
    r"""The JSON text of a report (UTF-8 kept; NaN refused; no raw control character).

    An object goes out one key to a line, and a list of objects under a key
    (the runs) one object to a line, each written compact: a person can read
    and grep it, and thousands of runs are encoded by the json module's C
    encoder (an indented dump is the pure-Python one, several times slower).
    Every character that is not printable goes out as its ``\u`` escape
    (:func:`~runctx.present.escape.json_controls_escaped`): C1 and bidirectional
    controls included; the decoded strings are exact.
    """
    if not isinstance(value, dict) or not value:
        return json_controls_escaped(_compact(value))
    lines = []
    for key, item in value.items():
        name = _compact(key if isinstance(key, str) else _compact(key))
        if isinstance(item, list) and item and all(isinstance(each, dict) for each in item):
            rows = ",\n  ".join(_compact(each) for each in item)
            lines.append(f"{name}: [\n  {rows}\n ]")
        else:
            lines.append(f"{name}: {_compact(item)}")
    return json_controls_escaped("{" + ",\n ".join(lines) + "}")


_ONE_LINE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(", ", ": "))
"""The encoder of :func:`_compact`, made once (``json.dumps`` with options makes one a call)."""


def _compact(value: object) -> str:
    """``value`` as one line of JSON (UTF-8 kept, NaN refused), by the C encoder."""
    return _ONE_LINE.encode(value)


def write_json(value: object, stream: TextIO | None = None) -> None:
    """Write ``value`` as indented JSON in UTF-8, flushed."""
    stream = sys.stdout if stream is None else stream
    text = json_dumps(value) + "\n"
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a string that skipped the JSON face: made exact here
        data = (json_dumps(_exact_strings(value)) + "\n").encode("utf-8")
    _put(stream, data, _name(stream))


def _exact_strings(value: object) -> object:
    if isinstance(value, str):
        return json_text(value)
    if isinstance(value, dict):
        return {json_text(str(key)): _exact_strings(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_exact_strings(item) for item in value]
    return value


def say(text: str, stream: TextIO | None = None) -> None:
    """Write a line (or lines) to stderr for a person; a failure is ignored."""
    stream = sys.stderr if stream is None else stream
    with contextlib.suppress(OutputError):
        write_text(text + "\n", stream)


def write_file_atomically(path: str, text: str) -> None:
    """Replace the regular file ``path`` with ``text`` (UTF-8) in one rename, or create it.

    Only a regular file is replaced (:func:`runctx.planted.write_atomically`):
    a device (``/dev/null``), a link (``/dev/stdout``), a FIFO, a socket or a
    directory at ``path`` is refused with :class:`OutputError` saying what it
    is, and left as it was. The temporary file is ``.NAME.tmp-XXXXXXXX`` in
    the same directory (a textfile collector reads ``*.prom`` only, so it never
    reads it); a new file is made readable as any would be (``0666`` less the
    umask), a replaced one keeps its mode. On failure ``path`` is left as it was.
    """
    try:
        write_atomically(path, text.encode("utf-8"))
    except NotRegularFileError as error:
        msg = (
            f"cannot write {path}: it is {error.strerror}; --output replaces only a regular "
            "file or creates a new one (write to stdout and redirect it instead)"
        )
        raise OutputError(msg) from None
    except OSError as error:
        msg = f"cannot write {path}: {error.strerror or error}; it is left as it was"
        raise OutputError(msg) from None


def styled_bytes(lines: Sequence[Line], encoding: str | None, *, color: bool) -> bytes:
    """The lines as bytes for a stream: each span escaped, then coloured by its role if asked.

    Each span's text goes through :func:`~runctx.present.escape.terminal_bytes`
    (the one escaping step, then the stream's encoding); the colour sequences
    are runctx's own, added around the escaped text, so no text of a
    process's can carry one.
    """
    out = bytearray()
    for number, spans in enumerate(lines):
        if number:
            out += b"\n"
        for span in spans:
            data = terminal_bytes(visible(span.text), encoding)  # a span is one line
            start = sgr(span.role) if color else ""
            if start:
                out += start.encode("ascii") + data + RESET.encode("ascii")
            else:
                out += data
    return bytes(out)


def write_lines(lines: Sequence[Line], stream: TextIO | None = None, *, color: bool) -> None:
    """Write styled lines (and a final newline) for a person: escaped, coloured if asked."""
    stream = sys.stdout if stream is None else stream
    encoding = getattr(stream, "encoding", None)
    _put(stream, styled_bytes(lines, encoding, color=color) + b"\n", _name(stream))


def write_raw(data: bytes, stream: TextIO | None = None) -> None:
    """Write bytes a face built from escaped text and its own control sequences (a screen)."""
    _put(sys.stdout if stream is None else stream, data, "stdout")
