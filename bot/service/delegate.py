"""Commands that :class:`bot.service.GameService` takes from its parts, typed.

``open_lobby = Delegate(Lobbies.open_lobby, "_lobbies")`` in the service's class body makes
``service.open_lobby`` the bound method of the part held in ``service._lobbies``: one
definition (with its docstring, its checks and its retry), the part's exact signature for
mypy and an IDE (through :class:`typing.ParamSpec`), and no forwarding body to keep in step.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

_Part = TypeVar("_Part")
_P = ParamSpec("_P")
_R = TypeVar("_R")


class Delegate(Generic[_Part, _P, _R]):
    """A method of the owner that is ``method`` bound to the part in attribute ``part``."""

    def __init__(self, method: Callable[Concatenate[_Part, _P], _R], part: str) -> None:
        self.method = method
        self.part = part
        self.__doc__ = method.__doc__
        self.__wrapped__ = method

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Delegate[_Part, _P, _R]: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> Callable[_P, _R]: ...

    def __get__(self, obj: object | None, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return types.MethodType(self.method, getattr(obj, self.part))

    def __repr__(self) -> str:
        return f"<command {self.name} of {self.part.lstrip('_')}>"
