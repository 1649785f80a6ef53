"""Engine reasons as :class:`~rules_engine.messages.Message` values, for the service's views
and errors.

TEMPORARY: the engine is moving its reasons (``Game.explain``, ``rules_engine.hints``) from
``rules_engine.reasons.Reason`` (an English ``str`` carrying ``.template`` and ``.params``) to
``Message``.  Until that branch is merged, :func:`reason_message` converts the old form.  After
the merge, delete this module and use the engine's ``Message`` directly where
:func:`reason_message` is called (``git grep reason_message``).
"""

from __future__ import annotations

import contextlib

from rules_engine.actions import ActionKind
from rules_engine.cards import parse_card
from rules_engine.errors import DurakError
from rules_engine.messages import Message, Param

__all__ = ["reason_message"]

#: Parameters of the old reasons that hold one card's text.
_CARD_PARAMS = frozenset({"card", "attack", "defence"})


def reason_message(reason: object) -> Message:
    """TEMPORARY SHIM (delete after the engine's reasons are ``Message`` values): the engine's
    reason as a ``Message``.  A ``Message`` is returned as it is; an old ``Reason`` (duck-typed
    on ``.template`` and ``.params``) becomes its template with typed parameters: card texts
    become ``Card``, an action verb becomes ``ActionKind``; other values stay literals."""
    if isinstance(reason, Message):
        return reason
    template = getattr(reason, "template", None)
    raw = getattr(reason, "params", None)
    if not isinstance(template, str) or not isinstance(raw, dict):
        raise TypeError(f"not an engine reason: {reason!r}")
    params: dict[str, Param] = {}
    for name, value in raw.items():
        text = str(value)
        params[name] = text
        if name in _CARD_PARAMS:
            with contextlib.suppress(DurakError):
                params[name] = parse_card(text)
        elif name == "action" and text in {kind.value for kind in ActionKind}:
            params[name] = ActionKind(text)
    return Message(template, **params)
