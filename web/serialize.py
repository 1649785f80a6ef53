"""The service's views as the JSON of the web protocol (docs/WEB.md), in a reader's language.

Pure functions: a :class:`~bot.views.TableView` or :class:`~bot.views.HandView` and a
:class:`~present.catalog.Catalog` in, plain dicts out.  Every text a player reads is made
here, from the views' typed values, as the Discord renderer makes it, without markdown: the
page shows it as text (never as HTML).  A table is the same for every reader of a language
except ``you`` and ``can_rematch``; :func:`table_json` takes the reader's seat for those.

Hidden information: :func:`table_json` reads only a public :class:`TableView` (card counts);
:func:`hand_json` is one seat's hand, for that seat's sockets only (:mod:`web.presenter`).
"""

from __future__ import annotations

import functools
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from bot.views import ActionChoice, ActionRecord, HandView, Role, SeatView, TableView
from cogs.render.text import Seated, rules_lines, rules_title
from present.catalog import Catalog
from present.names import LEVEL_TEXTS, ROLE_NAMES
from rules_engine.actions import ActionKind
from rules_engine.messages import Message
from rules_engine.rules import Rules
from web.strings import ui_strings

__all__ = [
    "NAME_MAX",
    "action_label",
    "hand_json",
    "plain_names",
    "table_json",
    "welcome_json",
]

#: Display names are cut to this many characters (the service allows 64).
NAME_MAX = 40


def _clip(name: str) -> str:
    name = " ".join(str(name).split()) or "?"
    return name if len(name) <= NAME_MAX else name[: NAME_MAX - 1].rstrip() + "…"


def plain_names(seats: Sequence[Seated], t: Catalog) -> list[str]:
    """The seats' names as the reader sees them: a human's display name; an AI seat named
    after its level in the reader's language (``IA Casual``), numbered from the second AI of
    a level on (as on Discord, without markdown)."""
    return list(_names(tuple((s.name, s.ai_level) for s in seats), t))


@functools.lru_cache(maxsize=4096)
def _names(seats: tuple[tuple[str, str | None], ...], t: Catalog) -> tuple[str, ...]:
    # cached: a table is serialized after every action, and its seats rarely change
    names: list[str] = []
    count: Counter[str] = Counter()
    for name, ai_level in seats:
        if ai_level is None:
            names.append(_clip(name))
            continue
        count[ai_level] += 1
        texts = LEVEL_TEXTS.get(ai_level)
        level = t.gettext(texts.label) if texts else ai_level
        ai_name = t.fill("{level} AI", level=level)
        names.append(_clip(ai_name if count[ai_level] == 1 else f"{ai_name} {count[ai_level]}"))
    return tuple(names)


def _name(names: Sequence[str], seat: int | None, t: Catalog) -> str:
    if seat is not None and 0 <= seat < len(names):
        return names[seat]
    return t.render(Message("player {number}", number=(seat or 0) + 1))


@functools.lru_cache(maxsize=16384)
def _recent(rec: ActionRecord, names: tuple[str, ...], t: Catalog) -> str:
    # cached: each action stays in the table's last moves for several tables
    text = t.render(rec.message, names)
    if rec.auto == "timeout":
        text += " " + t.gettext("(time ran out)")
    elif rec.auto == "autopilot":
        text += " " + t.gettext("(autopilot)")
    return text


def _status(view: TableView, names: Sequence[str], t: Catalog) -> str | None:
    """Whose turn it is and what they must do (``None`` once the game is over)."""
    if view.finished or view.aborted:
        return None
    parts: list[str] = []
    defender = next((s.seat for s in view.seats if s.role is Role.DEFENDER), None)
    if view.taking and defender is not None:
        parts.append(
            t.fill("{name} takes: the attackers may still add cards", name=names[defender])
        )
    if view.to_act is not None:
        name = _name(names, view.to_act, t)
        if view.waiting_for == "defend":
            parts.append(t.fill("{name} to defend", name=name))
        elif view.waiting_for == "lead":
            parts.append(t.fill("{name} to lead the round", name=name))
        elif view.waiting_for == "add":
            parts.append(t.fill("{name} may add cards or pass", name=name))
        else:
            parts.append(t.fill("{name} to play", name=name))
    if view.stop_vote is not None:
        yes, total = view.stop_vote
        parts.append(t.fill("Stop? {yes}/{total}", yes=yes, total=total))
    return " · ".join(parts) or None


def _over(view: TableView, names: Sequence[str], t: Catalog) -> str | None:
    if view.aborted:
        if any(s.forfeited for s in view.seats):
            return t.gettext("The game was stopped: no result is recorded, except forfeits.")
        return t.gettext("The game was stopped: no loss is recorded.")
    if not view.finished:
        return None
    if view.draw or view.loser is None:
        return t.gettext("A draw: nobody is the durak.")
    return t.fill("{name} is the durak!", name=_name(names, view.loser, t))


def _seat(s: SeatView, name: str, t: Catalog, viewer: int | None, over: bool) -> dict[str, Any]:
    role = Role.OUT if s.role is None and s.out else s.role
    return {
        "seat": s.seat,
        "name": name,
        "ai_level": s.ai_level,
        "cards": s.cards,
        "role": None if role is None else role.value,
        "role_text": None if role is None else t.gettext(ROLE_NAMES[role]),
        "to_act": s.to_act and not over,
        "autopilot": s.autopilot,
        "forfeited": s.forfeited,
        "losses": s.losses,
        "you": viewer == s.seat,
    }


@functools.lru_cache(maxsize=256)
def _rules_text(rules: Rules, t: Catalog) -> str:
    return " · ".join([rules_title(rules, t), *rules_lines(rules, t)])


def table_json(
    view: TableView, t: Catalog, viewer: int | None = None, *, now: float | None = None
) -> dict[str, Any]:
    """The protocol's TABLE for a reader of ``t``'s language sitting at ``viewer`` (``None``:
    a watcher)."""
    names = plain_names(view.seats, t)
    over = view.finished or view.aborted
    series = view.series
    shown_text = None
    if view.shown and view.round <= 1 and not over:
        shown_text = t.fill("Shown at the deal: {cards}", cards=" ".join(map(str, view.shown)))
    return {
        "game": view.game_id,
        "version": view.version,
        "profile": view.rules.profile,
        "rules_text": _rules_text(view.rules, t),
        "trump": view.trump,
        "trump_card": None if view.trump_card is None else str(view.trump_card),
        "shown": [str(c) for c in view.shown],
        "shown_text": shown_text,
        "stock": view.stock,
        "discard": view.discard,
        "round": view.round,
        "limit": view.limit,
        "taking": view.taking,
        "pairs": [
            {"attack": str(p.attack), "defence": None if p.defence is None else str(p.defence)}
            for p in view.pairs
        ],
        "seats": [_seat(s, names[s.seat], t, viewer, over) for s in view.seats],
        "to_act": None if over else view.to_act,
        "deadline": view.deadline,
        "now": time.time() if now is None else now,
        "turn_timeout": view.turn_timeout,
        "status_text": _status(view, names, t),
        "recent": [_recent(r, tuple(names), t) for r in view.recent],
        "finished": view.finished,
        "aborted": view.aborted,
        "draw": view.draw,
        "loser": view.loser,
        "over_text": _over(view, names, t),
        "series": None
        if series is None
        else {
            "games": series.games,
            "draws": series.draws,
            "standings": [
                {
                    "name": names[e.seat] if e.seat < len(names) else _clip(e.name),
                    "losses": e.losses,
                }
                for e in series.standings
            ],
        },
        "stop_vote": None if view.stop_vote is None else list(view.stop_vote),
        "can_rematch": viewer is not None
        and view.finished
        and not view.aborted
        and (series is None or series.active),
    }


def action_label(action: ActionChoice, t: Catalog) -> str:
    """A button label for an action: ``Attack 8♥ 8♠``, ``Cover 9♠ with 10♠``, ``Take``…"""
    cards = " ".join(map(str, action.cards))
    if action.kind is ActionKind.ATTACK:
        return t.fill("Attack {cards}", cards=cards)
    if action.kind is ActionKind.DEFEND and len(action.cards) == 2:
        return t.fill("Cover {attack} with {card}", attack=action.cards[0], card=action.cards[1])
    if action.kind is ActionKind.TRANSFER:
        return t.fill("Transfer {cards}", cards=cards)
    if action.kind is ActionKind.TAKE:
        return t.gettext("Take")
    if action.kind is ActionKind.PASS:
        return t.gettext("Pass")
    return action.text


def hand_json(
    view: HandView, t: Catalog, names: Sequence[str] = (), *, forfeited: bool = False
) -> dict[str, Any]:
    """The protocol's HAND: ``view``'s cards (with the engine's reason for each card that
    cannot be played now, in ``t``'s language; ``names`` name its seats) and legal actions."""
    return {
        "game": view.game_id,
        "version": view.version,
        "seat": view.seat,
        "your_turn": view.your_turn,
        "autopilot": view.autopilot,
        "finished": view.finished,
        "deadline": view.deadline,
        "cards": [
            {
                "card": c.text,
                "trump": c.trump,
                "playable": c.playable,
                "reason": None if c.reason is None else t.render(c.reason, names),
            }
            for c in view.cards
        ],
        "legal": [
            {
                "kind": a.kind.value,
                "cards": [str(c) for c in a.cards],
                "uses": [str(c) for c in a.uses],
                "text": a.text,
                "label": action_label(a, t),
            }
            for a in view.legal
        ],
        "forfeited": forfeited,
    }


def welcome_json(
    role: str, seat: int | None, user_id: int | None, channel_id: int, t: Catalog
) -> dict[str, Any]:
    """The ``welcome`` frame: who the page is, its language and its UI strings.  Ids are
    strings (JavaScript numbers lose Discord ids' precision)."""
    return {
        "t": "welcome",
        "role": role,
        "seat": seat,
        "user_id": None if user_id is None else str(user_id),
        "lang": t.locale,
        "strings": ui_strings(t),
        "channel": str(channel_id),
    }
