"""Action labels: what a button (or a list of choices) says for a legal action, in the
reader's language: ``Attack 8♥ 8♠``, ``Cover 9♠ with 10♠``, ``Transfer 9♦``, ``Show 9♦``, ``Take``,
``Pass``.  Discord cuts them to a button's length; the web sends them with each choice."""

from __future__ import annotations

from bot.views import ActionChoice
from present.catalog import Catalog
from present.style import PLAIN, Style
from rules_engine.actions import ActionKind

__all__ = ["action_label"]


def action_label(action: ActionChoice, t: Catalog, style: Style = PLAIN) -> str:
    """The label of ``action``, its cards written by ``style.card`` (its canonical text for a
    defence that does not name two cards, which the service never offers)."""
    if action.kind is ActionKind.ATTACK:
        return t.fill("Attack {cards}", cards=style.cards(action.cards))
    if action.kind is ActionKind.DEFEND and len(action.cards) == 2:
        attack, card = action.cards
        return t.fill(
            "Cover {attack} with {card}", attack=style.card(attack), card=style.card(card)
        )
    if action.kind is ActionKind.TRANSFER:
        return t.fill("Transfer {cards}", cards=style.cards(action.cards))
    if action.kind is ActionKind.SHOW:
        return t.fill("Show {cards}", cards=style.cards(action.cards))
    if action.kind is ActionKind.TAKE:
        return t.gettext("Take")
    if action.kind is ActionKind.PASS:
        return t.gettext("Pass")
    return action.text
