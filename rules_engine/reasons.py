"""Reasons for illegal actions, written for players and translatable.

A :class:`Reason` *is* its English text (a ``str``), and also carries the message ``template``
with ``{placeholders}`` and the ``params`` that fill it, so a presentation layer can translate
the template and substitute its own words (player names for seat numbers, for instance).
"""

from __future__ import annotations

from typing import Any

__all__ = ["Reason"]


class Reason(str):
    """English reason text with its translation template and parameters."""

    template: str
    params: dict[str, str]

    def __new__(cls, template: str, **params: Any) -> Reason:
        texts = {key: str(value) for key, value in params.items()}
        obj = super().__new__(cls, template.format(**texts))
        obj.template = template
        obj.params = texts
        return obj

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.template, self.params))


def _rebuild(template: str, params: dict[str, str]) -> Reason:
    return Reason(template, **params)
