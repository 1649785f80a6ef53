"""Player actions (RULES.md §6.1): frozen values, canonical text, and the compact int codes
the state machine uses internally.

An action code packs the kind in the low 3 bits and a payload above it: the card bitmask for
``attack``/``transfer``/``show``, ``attack_index | defence_index << 6`` for ``defend``.  The
acting seat is not part of the code: it is always the seat to act.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules_engine.cards import (
    ALL_CARDS,
    CARD_TEXT,
    Card,
    card_index,
    iter_bits,
    iter_cards,
    require_text,
)
from rules_engine.errors import InvalidNotationError

__all__ = [
    "ATTACK",
    "DEFEND",
    "PASS",
    "PASS_CODE",
    "SHOW",
    "TAKE",
    "TAKE_CODE",
    "TRANSFER",
    "Action",
    "ActionKind",
    "parse_action",
]

ATTACK, DEFEND, TRANSFER, TAKE, PASS, SHOW = 0, 1, 2, 3, 4, 5
TAKE_CODE = TAKE
PASS_CODE = PASS


class ActionKind(StrEnum):
    """The kinds of action, valued as their canonical text (``show``: RULES.md §10.2)."""

    ATTACK = "attack"
    DEFEND = "defend"
    TRANSFER = "transfer"
    TAKE = "take"
    PASS = "pass"
    SHOW = "show"

    @property
    def code(self) -> int:
        return _KIND_CODE[self]

    def __str__(self) -> str:
        return self.value


_KIND_CODE = {
    ActionKind.ATTACK: ATTACK,
    ActionKind.DEFEND: DEFEND,
    ActionKind.TRANSFER: TRANSFER,
    ActionKind.TAKE: TAKE,
    ActionKind.PASS: PASS,
    ActionKind.SHOW: SHOW,
}
_KIND_BY_CODE = {v: k for k, v in _KIND_CODE.items()}


@dataclass(frozen=True, slots=True)
class Action:
    """One seat's action.

    ``cards`` holds the played cards in canonical order for ``attack`` and ``transfer``,
    ``(attack, defence)`` for ``defend``, the one card shown for ``show``, and nothing for
    ``take`` and ``pass``.
    """

    seat: int
    kind: ActionKind
    cards: tuple[Card, ...] = ()

    def __post_init__(self) -> None:
        kind = self.kind
        n = len(self.cards)
        if kind in (ActionKind.ATTACK, ActionKind.TRANSFER):
            if n == 0:
                raise InvalidNotationError(f"{kind.value} needs at least one card")
            if len(set(self.cards)) != n:
                raise InvalidNotationError(f"{kind.value} names a card twice: {self.text!r}")
            object.__setattr__(self, "cards", tuple(sorted(self.cards)))
        elif kind is ActionKind.DEFEND:
            if n != 2:
                raise InvalidNotationError(
                    f"defend needs two cards, the attack then the defence, got {n}"
                )
        elif kind is ActionKind.SHOW:
            if n != 1:
                raise InvalidNotationError(f"show takes exactly one card, the trump shown, got {n}")
        elif n:
            raise InvalidNotationError(f"{kind.value} takes no cards")

    @classmethod
    def attack(cls, seat: int, *cards: Card) -> Action:
        return cls(seat, ActionKind.ATTACK, cards)

    @classmethod
    def transfer(cls, seat: int, *cards: Card) -> Action:
        return cls(seat, ActionKind.TRANSFER, cards)

    @classmethod
    def defend(cls, seat: int, attack: Card, defence: Card) -> Action:
        return cls(seat, ActionKind.DEFEND, (attack, defence))

    @classmethod
    def show(cls, seat: int, card: Card) -> Action:
        return cls(seat, ActionKind.SHOW, (card,))

    @classmethod
    def take(cls, seat: int) -> Action:
        return cls(seat, ActionKind.TAKE)

    @classmethod
    def pass_(cls, seat: int) -> Action:
        return cls(seat, ActionKind.PASS)

    @classmethod
    def parse(cls, text: str) -> Action:
        return parse_action(text)

    @property
    def code(self) -> int:
        """The internal code of this action (without the seat)."""
        kind = self.kind
        if kind is ActionKind.DEFEND:
            return DEFEND | (self.cards[0].index | self.cards[1].index << 6) << 3
        if kind in (ActionKind.ATTACK, ActionKind.TRANSFER, ActionKind.SHOW):
            mask = 0
            for c in self.cards:
                mask |= 1 << c.index
            return _KIND_CODE[kind] | mask << 3
        return _KIND_CODE[kind]

    @classmethod
    def from_code(cls, seat: int, code: int) -> Action:
        kind = code & 7
        payload = code >> 3
        if kind == DEFEND:
            return cls(seat, ActionKind.DEFEND, (ALL_CARDS[payload & 63], ALL_CARDS[payload >> 6]))
        if kind in (ATTACK, TRANSFER, SHOW):
            return cls(seat, _KIND_BY_CODE[kind], tuple(ALL_CARDS[i] for i in iter_cards(payload)))
        return cls(seat, _KIND_BY_CODE[kind])

    @property
    def uses(self) -> tuple[Card, ...]:
        """The cards of the acting seat's hand that this action uses: every card of an attack
        or a transfer, the beating card of a defence (not the attack it covers), the trump
        shown by a show (it stays in the hand), none for take and pass."""
        return self.cards[1:] if self.kind is ActionKind.DEFEND else self.cards

    @property
    def text(self) -> str:
        """Canonical text without the seat, e.g. ``attack 8♥ 8♠``."""
        return " ".join([self.kind.value, *(CARD_TEXT[c.index] for c in self.cards)])

    def __str__(self) -> str:
        return f"{self.seat} {self.text}"


def code_text(seat: int, code: int) -> str:
    """Canonical ``"SEAT ACTION"`` text of an internal code (fast path for logs)."""
    kind = code & 7
    payload = code >> 3
    if kind == ATTACK:
        return f"{seat} attack " + " ".join(CARD_TEXT[i] for i in iter_bits(payload))
    if kind == DEFEND:
        return f"{seat} defend {CARD_TEXT[payload & 63]} {CARD_TEXT[payload >> 6]}"
    if kind == TRANSFER:
        return f"{seat} transfer " + " ".join(CARD_TEXT[i] for i in iter_bits(payload))
    if kind == SHOW:
        return f"{seat} show {CARD_TEXT[payload.bit_length() - 1]}"
    return f"{seat} take" if kind == TAKE else f"{seat} pass"


def parse_action(text: str, *, seat: int | None = None) -> Action:
    """Parse ``"SEAT ACTION"`` text such as ``"1 defend 8♥ 9♥"`` or ``"0 attack TD TS"``;
    with ``seat``, the text is the action alone (``"defend 8♥ 9♥"``, an action's
    :attr:`Action.text`) and ``seat`` plays it."""
    if seat is not None:
        kind_text, *card_texts = require_text(text, "an action", "attack 8♥").split() or [""]
        return _action(seat, kind_text, card_texts, text)
    parts = require_text(text, "an action", "0 attack 8♥").split()
    if len(parts) < 2:
        raise InvalidNotationError(f"action {text!r} must be 'SEAT ACTION', like '0 attack 8♥'")
    seat_text, kind_text, *card_texts = parts
    if not seat_text.isdecimal():
        raise InvalidNotationError(f"action {text!r} must start with a seat number")
    return _action(int(seat_text), kind_text, card_texts, text)


def _action(seat: int, kind_text: str, card_texts: list[str], text: str) -> Action:
    try:
        kind = ActionKind(kind_text.lower())
    except ValueError:
        raise InvalidNotationError(
            f"unknown action {kind_text!r} in {text!r}: "
            "use attack, defend, transfer, show, take or pass"
        ) from None
    cards = tuple(ALL_CARDS[card_index(c)] for c in card_texts)
    return Action(seat, kind, cards)
