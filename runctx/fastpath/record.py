"""The fast path's records, where attrs cannot be imported: the agents' specs.

The hook runs before every shell command an agent issues. Its path for a
command that is not a test run imports only what ``json`` has loaded already:
importing attrs (or ``dataclasses``, or ``typing``) would cost it 25 to 35 ms,
more than the rest of that path. The records it reads before the pre-filter,
each agent's faces, replies and install spec
(:mod:`runctx.hooks.agents.base`), derive from :class:`LightRecord` instead:
immutable after ``__init__``, compared, hashed and shown by their fields.
Everything behind the pre-filter uses ``@attrs.frozen``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import dataclass_transform
else:

    def dataclass_transform(**_options: object) -> object:
        """Only the type checker reads it: it types each record's ``__init__`` from its fields."""
        return lambda cls: cls


@dataclass_transform(frozen_default=True)
class LightRecord:
    """Immutable after ``__init__``; equal, hashed and shown by its fields.

    A subclass declares its fields as annotations, the ones without a default
    first; a default is the class attribute of the same name. ``__init__``
    takes them in that order, by position or by name.
    """

    __slots__ = ()
    _names: tuple[str, ...] = ()

    def __init_subclass__(cls) -> None:
        """Note the fields: the annotations of the class and its bases, in order."""
        cls._names = tuple(
            name
            for klass in reversed(cls.__mro__)
            for name in getattr(klass, "__annotations__", {})
            if not name.startswith("_")
        )

    def __init__(self, *args: object, **kwargs: object) -> None:
        """Set each field from ``args`` and ``kwargs``, else from its default."""
        names, cls = self._names, type(self)
        values = dict(zip(names, args, strict=False))
        unknown = [name for name in kwargs if name not in names or name in values]
        missing = [n for n in names if n not in values and n not in kwargs and not hasattr(cls, n)]
        if len(args) > len(names) or unknown or missing:
            msg = f"{cls.__name__}(): unknown or given twice: {unknown}, missing: {missing}"
            raise TypeError(msg)
        for name, value in {**values, **kwargs}.items():
            object.__setattr__(self, name, value)

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._names)

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
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._names)
        return f"{type(self).__name__}({shown})"
