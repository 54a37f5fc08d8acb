"""What every runctx record shares: one ``__repr__``, written once instead of compiled per class.

runctx's records are attrs classes, ``@attrs.frozen(repr=False)``, that
inherit :class:`Record`. attrs makes a class's methods by compiling their
source when the class is made, and the repr's source is the dearest of
them: about 0.3 ms of the 0.7 ms a class costs. A hook that refuses a test
run makes 41 classes before it answers, so those reprs were 12 ms of its
answer, for text that is read only in a log line or a failing test.
:meth:`Record.__repr__` reads the fields when a repr is asked for, and says
what attrs' would (``Name(field=value, ...)``, each field's ``repr``
setting honoured).
"""

from __future__ import annotations

from typing import cast

import attrs


class Record:
    """The base of runctx's attrs records: their ``__repr__``, and nothing else."""

    __slots__ = ()

    def __repr__(self) -> str:
        """``Name(field=value, ...)``, as attrs writes it.

        A record is frozen and made from values that exist before it, so it
        never holds itself: no guard against a repr that recurses is needed.
        """
        cls = type(self)
        shown = []
        for field in attrs.fields(cast("type[attrs.AttrsInstance]", cls)):
            if field.repr is False:
                continue
            value = getattr(self, field.name, attrs.NOTHING)
            text = repr(value) if field.repr is True else field.repr(value)
            shown.append(f"{field.name}={text}")
        name = cls.__qualname__.rsplit(">.", 1)[-1]
        return f"{name}({', '.join(shown)})"
