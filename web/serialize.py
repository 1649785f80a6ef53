"""The service's views as the JSON of the web protocol (docs/WEB.md), in a reader's language.

Pure functions: a :class:`~bot.views.TableView` or :class:`~bot.views.HandView` and a
:class:`~present.catalog.Catalog` in, plain dicts out.  The words are the presentation
layer's (:mod:`present`: seat names, the status line, the outcome, the last moves, action
labels, the rules summary), in plain text: the page shows them as text (never as HTML).  A
table is the same for every reader of a language except ``you`` and ``can_rematch``;
:func:`table_json` takes the reader's seat for those.

Hidden information: :func:`table_json` reads only a public :class:`TableView` (card counts);
:func:`hand_json` is one seat's hand, for that seat's sockets only (:mod:`web.presenter`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

from bot.outcome import Ending
from bot.replay import TablePair
from bot.views import ActionRecord, HandView, Role, SeatView, TableView
from present.actions import action_label
from present.catalog import Catalog
from present.moves import move_text
from present.names import ROLE_NAMES, Seated, seat_name, seat_names
from present.outcome import outcome_text
from present.rules import rules_summary
from present.status import status
from present.teams import pack_text, shown_texts, team_label, team_name
from rules_engine.rules import Rules
from web.strings import ui_strings

__all__ = [
    "hand_json",
    "pairs_json",
    "plain_names",
    "role_json",
    "table_json",
    "welcome_json",
]


def plain_names(seats: Sequence[Seated], t: Catalog) -> list[str]:
    """The seats' names as the reader sees them, in plain text (see
    :func:`present.names.seat_names`)."""
    return seat_names(seats, t)


#: The texts of the last moves already written, by the identity of their record (each move
#: stays among the last moves of several tables, each sent to every page of the game).  By
#: identity, not by value: a record holds the engine's whole record of the move, which is
#: slow to hash and compare.  The record is kept beside its text, so that its id is not
#: reused while the entry lives; the whole memory is dropped when it is full.
_RECENT_TEXTS: dict[tuple[int, tuple[str, ...], Catalog], tuple[ActionRecord, str]] = {}
_RECENT_TEXTS_MAX = 16384


def _recent(rec: ActionRecord, names: tuple[str, ...], t: Catalog) -> str:
    key = (id(rec), names, t)
    hit = _RECENT_TEXTS.get(key)
    if hit is not None and hit[0] is rec:
        return hit[1]
    text = move_text(rec, names, t)
    if len(_RECENT_TEXTS) >= _RECENT_TEXTS_MAX:
        _RECENT_TEXTS.clear()
    _RECENT_TEXTS[key] = (rec, text)
    return text


def pairs_json(pairs: Iterable[TablePair]) -> list[dict[str, str | None]]:
    """The table's pairs: ``[{"attack", "defence"}]`` (``defence`` null while uncovered)."""
    return [
        {"attack": str(p.attack), "defence": None if p.defence is None else str(p.defence)}
        for p in pairs
    ]


def role_json(role: Role | None, t: Catalog) -> dict[str, str | None]:
    """A seat's role in the round and its words: ``{"role", "role_text"}``."""
    return {
        "role": None if role is None else role.value,
        "role_text": None if role is None else t.gettext(ROLE_NAMES[role]),
    }


def _seat(s: SeatView, name: str, t: Catalog, viewer: int | None, over: bool) -> dict[str, Any]:
    role = Role.OUT if s.role is None and s.out else s.role
    return {
        "seat": s.seat,
        "name": name,
        "ai_level": s.ai_level,
        "cards": s.cards,
        **role_json(role, t),
        "to_act": s.to_act and not over,
        "autopilot": s.autopilot,
        "forfeited": s.forfeited,
        "losses": s.losses,
        "you": viewer == s.seat,
        "team": s.team,
        "played_by": s.played_by,
    }


def _rules_text(rules: Rules, t: Catalog) -> str:
    """The rules summary on one line (:func:`present.rules.rules_summary`)."""
    return rules_summary(rules, t)


def table_json(
    view: TableView, t: Catalog, viewer: int | None = None, *, now: float | None = None
) -> dict[str, Any]:
    """The protocol's TABLE for a reader of ``t``'s language sitting at ``viewer`` (``None``:
    a watcher)."""
    names = seat_names(view.seats, t)
    outcome = view.outcome
    over = outcome is not None
    now_status = status(view, names, t)
    series = view.series
    deal_text = None
    if view.shown and view.round <= 1 and not over:
        deal_text = t.fill("Shown at the deal: {cards}", cards=" ".join(map(str, view.shown)))
    teams = None
    if view.rules.team_game:
        teams = [
            {
                "team": team,
                "label": team_label(team, t),
                "name": team_name((s.seat for s in view.seats if s.team == team), names, t),
            }
            for team in (0, 1)
        ]
    round_shown = [
        {"seat": shown.seat, "card": str(shown.card), "text": text}
        for shown, text in zip(view.round_shown, shown_texts(view, names, t), strict=True)
    ]
    return {
        "game": view.game_id,
        "version": view.version,
        "profile": view.rules.profile,
        "deck": view.deck,
        "deck_text": pack_text(view.deck, t),
        "teams": teams,
        "round_shown": [] if over else round_shown,
        "rules_text": _rules_text(view.rules, t),
        "trump": view.trump,
        "trump_card": None if view.trump_card is None else str(view.trump_card),
        "shown": [str(c) for c in view.shown],
        "shown_text": deal_text,
        "stock": view.stock,
        "discard": view.discard,
        "round": view.round,
        "limit": view.limit,
        "taking": view.taking,
        "pairs": pairs_json(view.pairs),
        "seats": [_seat(s, names[s.seat], t, viewer, over) for s in view.seats],
        "to_act": None if over else view.to_act,
        "deadline": view.deadline,
        "now": time.time() if now is None else now,
        "turn_timeout": view.turn_timeout,
        "status_text": None if now_status is None else " · ".join(now_status.parts) or None,
        "recent": [_recent(r, tuple(names), t) for r in view.recent],
        "finished": outcome is not None and outcome.finished,
        "aborted": outcome is not None and outcome.ending is Ending.STOPPED,
        "draw": outcome is not None and outcome.ending is Ending.DRAW,
        "loser": outcome.losers[0] if outcome is not None and outcome.losers else None,
        "losers": [] if outcome is None else list(outcome.losers),
        "over_text": None if outcome is None else outcome_text(outcome, names, t),
        "series": None
        if series is None
        else {
            "games": series.games,
            "draws": series.draws,
            "standings": [
                # the series' seats are the table's: named as the table names them
                {"name": seat_name(names, e.seat, t), "losses": e.losses}
                for e in series.standings
            ],
        },
        "stop_vote": None if view.stop_vote is None else list(view.stop_vote),
        "can_rematch": viewer is not None
        and outcome is not None
        and outcome.finished
        and (series is None or series.active),
    }


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
