"""The coach's review as the web table's ``review`` frame (docs/WEB.md): the summary lines,
the chart (SVG, :mod:`present.review_chart`), and one page of lines per marked decision, in
the reader's language; and the ``review_progress`` frame sent while it is made."""

from __future__ import annotations

from typing import Any

from bot.views import ReviewView
from present.catalog import Catalog
from present.review import decision_lines, marked, summary_lines
from present.review_chart import chart_svg

__all__ = ["progress_json", "review_json"]


def review_json(view: ReviewView, seq: int, cat: Catalog) -> dict[str, Any]:
    """``{"t": "review", "seq", "game", "accuracy", "summary": [lines], "chart": svg,
    "pages": [{"move", "label", "lines"}]}``: the player's own review (send it to them
    only: its pages show their hand)."""
    review = view.review
    team = view.rules.teams != "none"
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
            }
            for d in marked(review)
        ],
    }


def progress_json(seq: int, done: int, total: int) -> dict[str, Any]:
    """How far the review asked by ``seq`` got: ``done`` decisions of ``total``."""
    return {"t": "review_progress", "seq": seq, "done": done, "total": total}
