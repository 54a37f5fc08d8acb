"""What every runctx record shares: ``__repr__``, ``__eq__`` and ``__hash__``, written once.

runctx's records are attrs classes, ``@attrs.frozen(repr=False, eq=False)``,
that inherit :class:`Record`. attrs makes a class's methods by compiling
their source when the class is made: about 0.7 ms a class, of which the
repr took 0.3 ms and equality with its hash about a quarter of the rest. A
hook that refuses a test run makes 41 classes before it answers, and
compares few of them. :class:`Record` reads each class's fields the first
time one of its records is shown, compared or hashed, and says and decides
what attrs' compiled methods would: ``Name(field=value, ...)`` with each
field's ``repr`` setting honoured; equal when of the same class and equal in
every field compared (``eq``); a hash over the fields hashed (``hash``, else
``eq``).

A class whose records a scan compares or hashes once or more per process
(an identity, an unknown, what a process inherited: tens of thousands of
times beside a storm) keeps attrs' compiled ``__eq__`` and ``__hash__``
(``@attrs.frozen(repr=False)``): a call of theirs takes a quarter to a half
of the time of these, which look the class's keys up first.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, cast

import attrs

_Key = Callable[[Any], object]


_COMPARED: dict[type, tuple[_Key, _Key]] = {}
"""Each record class's two keys, the fields it is compared by and those it is hashed by:
made the first time one of its records is compared or hashed."""


def _key(names: list[str]) -> _Key:
    """The value of the field ``names`` holds one of, else their values as a tuple."""
    return operator.attrgetter(*names) if names else lambda _record: ()


def _compared(cls: type) -> tuple[_Key, _Key]:
    try:
        return _COMPARED[cls]
    except KeyError:
        fields = attrs.fields(cast("type[attrs.AttrsInstance]", cls))
        if any(field.eq_key is not None for field in fields):
            msg = f"{cls.__qualname__}: a record compares its fields as they are (no eq_key)"
            raise TypeError(msg) from None
        compared = (
            _key([field.name for field in fields if field.eq]),
            _key(
                [field.name for field in fields if (field.eq if field.hash is None else field.hash)]
            ),
        )
        _COMPARED[cls] = compared
        return compared


class Record:
    """The base of runctx's attrs records: their repr, equality and hash, and nothing else."""

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

    def __eq__(self, other: object) -> bool:
        """Equal to a record of the very same class whose compared fields are equal."""
        cls = self.__class__
        if other.__class__ is not cls:
            return NotImplemented
        key = _compared(cls)[0]
        return key(self) == key(other)

    def __hash__(self) -> int:
        """A hash of the class and the fields hashed: equal records hash alike."""
        cls = self.__class__
        return hash((cls, _compared(cls)[1](self)))
