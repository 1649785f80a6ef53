"""The coach's review as the web table's ``review`` frame (docs/WEB.md): the summary lines,
the chart (SVG, :mod:`present.review_chart`), and one page per marked decision: its lines and
its ``felt``, the table as the player saw it before that decision (their own hand, the other
seats' card counts, the pairs, the stock and the trump) with the move made and the better
move to mark on it; in the reader's language; and the ``review_progress`` frame sent while
it is made."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.views import ReviewPosition, ReviewView
from present.catalog import Catalog
from present.names import seat_names
from present.review import choice_label, decision_lines, marked, summary_lines
from present.review_chart import chart_svg
from rules_engine.actions import parse_action
from rules_engine.ai.review import DecisionReview
from web.serialize import pairs_json, role_json

__all__ = ["felt_json", "progress_json", "review_json"]


def review_json(view: ReviewView, seq: int, cat: Catalog) -> dict[str, Any]:
    """``{"t": "review", "seq", "game", "accuracy", "summary": [lines], "chart": svg,
    "pages": [{"move", "label", "lines", "felt"}]}``: the player's own review (send it to
    them only: its pages show their hand)."""
    review = view.review
    team = view.rules.teams != "none"
    names = seat_names(view.players, cat)
    return {
        "t": "review",
        "seq": seq,
        "game": view.game_id,
        "accuracy": review.accuracy,
        "summary": summary_lines(review, cat, team=team),
        "chart": chart_svg(review) if review.decisions else None,
        "pages": [
            {
                "move": d.index + 1,
                "label": d.label.value,
                "lines": decision_lines(d, cat, team=team),
                "felt": felt_json(view.position(d.index), d, view.review.seat, names, cat),
            }
            for d in marked(review)
        ],
    }


def felt_json(
    position: ReviewPosition | None,
    decision: DecisionReview,
    seat: int,
    names: Sequence[str],
    cat: Catalog,
) -> dict[str, Any] | None:
    """The table of one decision as player ``seat`` saw it (``None`` without a position):
    ``{"trump", "trump_card", "stock", "discard", "pairs": [{"attack", "defence"}], "seats":
    [{"seat", "name", "cards", "role", "role_text", "to_act", "you"}], "hand": [cards],
    "chosen": MOVE, "better": MOVE | null}`` where a MOVE is ``{"kind", "cards", "text",
    "mark"}`` (the action's kind and cards, its label, and "You" or "Better"); ``better`` is
    null when the move made was the best."""
    if position is None:
        return None
    p = position
    return {
        "trump": str(p.trump),
        "trump_card": None if p.trump_card is None else str(p.trump_card),
        "stock": p.stock,
        "discard": p.discard,
        "pairs": pairs_json(p.table),
        "seats": [
            {
                "seat": s,
                "name": names[s] if s < len(names) else "?",
                "cards": n,
                **role_json(role, cat),
                "to_act": p.to_act == s,
                "you": s == seat,
            }
            for s, (n, role) in enumerate(zip(p.cards, p.roles, strict=True))
        ],
        "hand": [str(c) for c in p.hand],
        "chosen": _move(decision.action, cat.pgettext("review mark", "You"), cat),
        "better": None
        if decision.best == decision.action
        else _move(decision.best, cat.pgettext("review mark", "Better"), cat),
    }


def _move(text: str, mark: str, cat: Catalog) -> dict[str, Any]:
    """A reviewed choice (``"SEAT ACTION"``) to draw on the felt."""
    action = parse_action(text)
    return {
        "kind": action.kind.value,
        "cards": [str(c) for c in action.cards],
        "text": choice_label(text, cat),
        "mark": mark,
    }


def progress_json(seq: int, done: int, total: int) -> dict[str, Any]:
    """How far the review asked by ``seq`` got: ``done`` decisions of ``total``."""
    return {"t": "review_progress", "seq": seq, "done": done, "total": total}
