"""Frozen records without `dataclasses`: the modules every hook and `wikimem show` import.

`import dataclasses` loads `inspect` and `ast` (about 10 ms), and each `@dataclass` compiles its
methods with `exec` when its module is imported (about 1 ms a class). `@frozen` gives a class
what those modules used: keyword or positional construction in field order with defaults,
`==`, `hash`, a `repr` naming the fields, and attributes that cannot be set or deleted. Type
checkers see a frozen dataclass. `functools.cached_property` still works (it writes the
instance's `__dict__` directly). No `field()`: a default is a plain, immutable value.
`cls._fields` names the fields in order, as a named tuple's do; `replace(record, **changes)`
is `dataclasses.replace` for these records.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from typing_extensions import dataclass_transform

    T = TypeVar("T")
else:

    def dataclass_transform(**_: object):  # for type checkers only
        return lambda function: function


class FrozenError(AttributeError):
    """Setting or deleting a field of a frozen record (like dataclasses.FrozenInstanceError)."""


def _init(names: tuple[str, ...], defaults: dict[str, Any], qualname: str) -> Any:
    count = len(names)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > count:
            raise TypeError(f"{qualname}() takes {count} arguments, got {len(args)}")
        values = dict(defaults)
        values.update(zip(names, args, strict=False))
        for name, value in kwargs.items():
            if name not in names:
                raise TypeError(f"{qualname}() got an unexpected keyword argument {name!r}")
            if names.index(name) < len(args):
                raise TypeError(f"{qualname}() got multiple values for argument {name!r}")
            values[name] = value
        if len(values) < count:
            missing = ", ".join(repr(n) for n in names if n not in values)
            raise TypeError(f"{qualname}() missing required arguments: {missing}")
        self.__dict__.update(values)

    return __init__


def _values(self: Any) -> tuple[Any, ...]:
    state = self.__dict__
    return tuple(state[name] for name in type(self)._fields)


def __eq__(self: Any, other: object) -> bool:
    if other.__class__ is not self.__class__:
        return NotImplemented
    return _values(self) == _values(other)


def __hash__(self: Any) -> int:
    return hash(_values(self))


def __repr__(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in type(self)._fields)
    return f"{type(self).__qualname__}({shown})"


def __setattr__(self: Any, name: str, value: Any) -> None:
    raise FrozenError(f"cannot assign to field {name!r} of a frozen {type(self).__qualname__}")


def __delattr__(self: Any, name: str) -> None:
    raise FrozenError(f"cannot delete field {name!r} of a frozen {type(self).__qualname__}")


@dataclass_transform(frozen_default=True)
def frozen(cls: type[T]) -> type[T]:
    """The class, made a frozen record of its annotated fields (in order, defaults last)."""
    names = tuple(cls.__dict__.get("__annotations__", {}))
    defaults = {name: cls.__dict__[name] for name in names if name in cls.__dict__}
    seen_default = False
    for name in names:
        if name in defaults:
            seen_default = True
        elif seen_default:
            raise TypeError(f"{cls.__qualname__}: field {name!r} without a default follows one")
    methods = {
        "_fields": names,
        "__init__": _init(names, defaults, cls.__qualname__),
        "__eq__": __eq__,
        "__hash__": __hash__,
        "__repr__": __repr__,
        "__setattr__": __setattr__,
        "__delattr__": __delattr__,
    }
    for name, method in methods.items():
        type.__setattr__(cls, name, method)
    return cls


def replace(record: T, **changes: Any) -> T:
    """A copy of a frozen record with some fields changed, as `dataclasses.replace` makes one."""
    values = {name: record.__dict__[name] for name in type(record)._fields}  # type: ignore[attr-defined]
    unknown = set(changes) - set(values)
    if unknown:
        raise TypeError(f"{type(record).__qualname__} has no field {sorted(unknown)[0]!r}")
    return type(record)(**{**values, **changes})
