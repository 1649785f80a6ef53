"""Messages as text: the one place a :class:`~rules_engine.messages.Message` becomes words.

:func:`render_message` translates a message's key with a catalogue and renders each typed
parameter (seats as the reader's names for them, cards, actions, the service's terms in the
adapter's :class:`~present.wording.Wording`, nested messages); every adapter (Discord, the web,
the terminal) reaches it with its own wording, most through :class:`present.catalog.Catalog`.
:func:`fill` fills a translated template and never raises on a malformed translation.
"""

from __future__ import annotations

import gettext
from collections.abc import Callable, Sequence

from present.wording import Translations, Wording
from rules_engine.actions import ActionKind
from rules_engine.cards import Card
from rules_engine.messages import N_, Message, Param, Seat, Term

__all__ = [
    "ENGLISH",
    "CardText",
    "fill",
    "render_message",
]

#: How a card is written in a rendered message (Discord embeds add an emoji selector).
CardText = Callable[[Card], str]


#: The source language: every key is its own translation.
ENGLISH: Translations = gettext.NullTranslations()

#: The name of each action kind, for an ``ActionKind`` parameter.
_VERBS: dict[ActionKind, str] = {
    ActionKind.ATTACK: N_("attack"),
    ActionKind.DEFEND: N_("defend"),
    ActionKind.TRANSFER: N_("transfer"),
    ActionKind.TAKE: N_("take"),
    ActionKind.PASS: N_("pass"),
    ActionKind.SHOW: N_("show"),
}


class _KeepUnknown(dict[str, str]):
    """Format parameters where an unknown ``{placeholder}`` stays as it is."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def fill(template: str, params: dict[str, str]) -> str:
    """``template`` with its ``{placeholders}`` replaced by ``params``; an unknown placeholder
    stays as it is and a malformed translation never raises."""
    if "{" not in template:
        return template
    try:
        return template.format_map(_KeepUnknown(params))
    except (ValueError, IndexError, AttributeError):
        out = template
        for key, value in params.items():
            out = out.replace("{" + key + "}", value)
        return out


def render_message(
    message: Message,
    names: Sequence[str] = (),
    *,
    wording: Wording,
    translations: Translations = ENGLISH,
    card_text: CardText = str,
) -> str:
    """``message`` as text: its key translated by ``translations``, each parameter rendered by
    its type: a ``Seat`` as ``names[seat]`` (the caller's display name for that seat), a card
    or cards with ``card_text``, an ``ActionKind`` as its translated name, a
    :class:`~rules_engine.messages.Term` (a command, a permission, a place) in the adapter's
    ``wording``, a nested ``Message`` recursively, numbers and literal strings as they are.  A
    message with a parameter ``n`` is looked up as a plural entry first."""

    def param(value: Param) -> str:
        if isinstance(value, Message):
            return render_message(
                value, names, wording=wording, translations=translations, card_text=card_text
            )
        if isinstance(value, Term):
            return wording.word(value, translations)
        if isinstance(value, Seat):
            if 0 <= value.index < len(names):
                return names[value.index]
            return render_message(
                Message("player {number}", number=value.index + 1),
                wording=wording,
                translations=translations,
            )
        if isinstance(value, ActionKind):
            return translations.gettext(_VERBS[value])
        if isinstance(value, Card):
            return card_text(value)
        if isinstance(value, tuple):
            return " ".join(card_text(card) for card in value)
        return str(value)

    params = {key: param(value) for key, value in message.items()}
    template = translations.gettext(message.key)
    count = message.get("n")
    if isinstance(count, int) and not isinstance(count, bool):
        plural = translations.ngettext(message.key, message.key, count)
        if plural != message.key:
            template = plural
    return fill(template, params)
