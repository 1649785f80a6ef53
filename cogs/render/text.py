"""Shared text of the renderers: cards and suits in embed text, names safe in markdown (seat
names, AI seats named after their level), times, rule summaries."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Protocol

from cogs.render.message import clip
from present.catalog import Catalog
from present.names import LEVEL_TEXTS, ROLE_NAMES
from rules_engine.cards import Card
from rules_engine.messages import Message
from rules_engine.rules import Rules

__all__ = [
    "NAME_MAX",
    "RED_SUITS",
    "ROLE_NAMES",
    "Seated",
    "ai_label",
    "bold_names",
    "card_md",
    "cards_md",
    "deck_lines",
    "esc",
    "is_red",
    "rules_lines",
    "rules_title",
    "seat_name",
    "seat_names",
    "suit_md",
    "when",
]


RED_SUITS = frozenset("♥♦")


NAME_MAX = 40  # names shown in embeds (the service allows 64)


_MD_SPECIAL = "\\*_`~|>[]<@"


def esc(name: str, limit: int = NAME_MAX) -> str:
    """A display name safe inside markdown (no formatting, links, mentions or emoji codes)."""
    name = " ".join(str(name).split()) or "?"
    name = clip(name, limit)
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in name)


def suit_md(symbol: str) -> str:
    """A suit symbol for embed text: red suits as (red) emoji, black suits as text."""
    return symbol + "\ufe0f" if symbol in RED_SUITS else symbol


def card_md(card: Card) -> str:
    """A card for embed text: red suits as (red) emoji, black suits as text: ``10♦️``, ``J♠``."""
    text = str(card)
    return text[:-1] + suit_md(text[-1])


def cards_md(cards: Iterable[Card]) -> str:
    """Cards for embed text, separated by spaces (see :func:`card_md`)."""
    return " ".join(card_md(c) for c in cards)


def is_red(card: Card) -> bool:
    """Whether ``card`` is a heart or a diamond."""
    return str(card)[-1:] in RED_SUITS


class Seated(Protocol):
    """A seat as the views describe it (``SeatView``, ``LobbySeat``, ``SeriesEntry``,
    ``Player``): a display name, the AI level of an AI seat, and whether it was a player's
    who asked to be forgotten."""

    @property
    def name(self) -> str:
        """The display name (the service's English name for an AI seat)."""
        ...

    @property
    def ai_level(self) -> str | None:
        """The AI level of an AI seat; ``None`` for a human."""
        ...

    @property
    def former(self) -> bool:
        """A forgotten player's seat (``/durak forget-me``): it has no name any more."""
        ...


def seat_names(seats: Sequence[Seated], t: Catalog) -> list[str]:
    """The seats' names as the reader sees them, safe in markdown (also the names of ``Seat``
    parameters of messages): a human's display name; an AI seat named after its level in the
    reader's language (``IA Casual``), numbered from the second AI of a level on; a forgotten
    player's seat, "a former player"."""
    names: list[str] = []
    count: Counter[str] = Counter()
    for s in seats:
        if s.former:
            names.append(esc(t.gettext("a former player")))
            continue
        if s.ai_level is None:
            names.append(esc(s.name))
            continue
        count[s.ai_level] += 1
        name = t.fill("{level} AI", level=ai_label(s.ai_level, t))
        names.append(esc(name if count[s.ai_level] == 1 else f"{name} {count[s.ai_level]}"))
    return names


def bold_names(names: Sequence[str]) -> list[str]:
    """``names`` in bold (the names of ``Seat`` parameters in a list of events)."""
    return [f"**{name}**" for name in names]


def when(deadline: float) -> str:
    """A Unix time as a Discord relative timestamp ("in 30 seconds")."""
    return f"<t:{int(deadline)}:R>"


def seat_name(names: Sequence[str], seat: int | None, t: Catalog) -> str:
    """The name of ``seat``, or "player N" when ``names`` has none for it."""
    if seat is not None and 0 <= seat < len(names):
        return names[seat]
    return t.render(Message("player {number}", number=(seat or 0) + 1))


def ai_label(level: str, t: Catalog) -> str:
    """An AI level's name in the reader's language (an unknown level as it is written)."""
    texts = LEVEL_TEXTS.get(level)
    return t.gettext(texts.label) if texts else esc(level)


def rules_title(rules: Rules, t: Catalog) -> str:
    """A rule set's name: its profile (a proper name, not translated), else "custom rules"
    (the options themselves are listed by :func:`rules_lines`)."""
    return rules.profile or t.gettext("custom rules")


def rules_lines(rules: Rules, t: Catalog) -> list[str]:
    """The options of a rule set, one line each (who adds cards, first round, transfers)."""
    return [
        t.gettext("Everyone may add cards to an attack")
        if rules.throw_in == "all"
        else t.gettext("Only the defender's neighbours may add cards"),
        t.fill("First round: at most {limit} attacks", limit=rules.first_round_limit),
        t.gettext("The defender may transfer the attack")
        if rules.transfer
        else t.gettext("No transfers"),
    ]


def deck_lines(
    trump: str, trump_card: Card | None, stock: int, discard: int, round: int, t: Catalog
) -> list[str]:
    """The trump (and the card under the stock while it lies there), then the stock, discard
    and round: the head of a table or of a replay frame."""
    if trump_card is not None:
        head = t.fill(
            "Trump: **{suit}** — {card} lies under the stock",
            suit=suit_md(trump),
            card=card_md(trump_card),
        )
    else:
        head = t.fill("Trump: **{suit}**", suit=suit_md(trump))
    counts = t.fill(
        "Stock: {stock} · Discard: {discard} · Round {round}",
        stock=stock,
        discard=discard,
        round=round,
    )
    return [head, counts]
