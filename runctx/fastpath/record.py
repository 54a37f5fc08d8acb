"""The fast path's records, where attrs cannot be imported: the agents' specs.

The hook runs before every shell command an agent issues. Its path for a
command that is not a test run imports only what ``json`` has loaded already:
importing attrs (or ``dataclasses``, or ``typing``) would cost it 25 to 35 ms,
more than the rest of that path. The records it reads before the pre-filter,
each agent's faces, replies and install spec
(:mod:`runctx.hooks.agents.base`), derive from :class:`LightRecord` instead:
slotted, immutable after ``__init__``, compared, hashed and shown by their
fields. Everything behind the pre-filter uses ``@attrs.frozen``.
"""

from __future__ import annotations


class LightRecord:
    """Slotted, immutable after ``__init__``; equal, hashed and shown by its slots.

    A subclass lists its fields in ``__slots__`` and sets each one in
    ``__init__`` with :meth:`_hold`. Slots whose name starts with ``_`` are
    caches, left out of equality, hashing and ``repr``.
    """

    __slots__ = ()

    def _hold(self, **values: object) -> None:
        """Set fields during ``__init__`` (plain assignment is refused)."""
        setter = object.__setattr__
        for name, value in values.items():
            setter(self, name, value)

    def _fields(self) -> tuple[str, ...]:
        return tuple(
            name
            for cls in reversed(type(self).__mro__)
            for name in getattr(cls, "__slots__", ())
            if not name.startswith("_")
        )

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._fields())

    def __setattr__(self, name: str, value: object) -> None:
        """Refuse assignment: records are immutable."""
        msg = f"{type(self).__name__} is immutable (cannot set {name!r})"
        raise AttributeError(msg)

    def __delattr__(self, name: str) -> None:
        """Refuse deletion: records are immutable."""
        msg = f"{type(self).__name__} is immutable (cannot delete {name!r})"
        raise AttributeError(msg)

    def __eq__(self, other: object) -> bool:
        """Equal to a record of the same type whose fields are equal."""
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        """Hash of the type and the fields."""
        return hash((type(self).__name__, self._values()))

    def __repr__(self) -> str:
        """``Name(field=value, ...)``."""
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields())
        return f"{type(self).__name__}({shown})"
