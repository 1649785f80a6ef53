"""The chart of a reviewed game, as SVG: the player's chance of *not* being the durak after
each of their decisions (:meth:`GameReview.curve <rules_engine.ai.review.GameReview.curve>`),
from the first decision on the left to the last on the right, 0% at the bottom and 100% at the
top, with dotted lines at 25%, 50% and 75% and a dot on every marked decision (yellow: an
inaccuracy, orange: a mistake, red: a blunder).

The image holds no text, so it needs no fonts and no translation: a surface says what it
shows in words beside it.  The web page shows the SVG as it is; Discord attaches it as a PNG
(:mod:`cogs.render.chart`).
"""

from __future__ import annotations

from rules_engine.ai.review import GameReview, Label

__all__ = ["CHART_HEIGHT", "CHART_WIDTH", "MARK_COLORS", "chart_svg"]

CHART_WIDTH, CHART_HEIGHT = 600, 200
#: The dot of each marked label.
MARK_COLORS = {Label.INACCURACY: "#f1c40f", Label.MISTAKE: "#e67e22", Label.BLUNDER: "#dd2e44"}
_PAD = 10
_LINE = "#5865f2"
_GRID = "#9aa0a6"
_BACKGROUND = "#ffffff"


def _point(i: int, n: int, chance: float) -> tuple[float, float]:
    """The place of decision ``i`` of ``n`` with the chance ``chance`` (0–1)."""
    inner_w, inner_h = CHART_WIDTH - 2 * _PAD, CHART_HEIGHT - 2 * _PAD
    x = _PAD + (inner_w * i / (n - 1) if n > 1 else inner_w / 2)
    y = _PAD + inner_h * (1.0 - min(max(chance, 0.0), 1.0))
    return round(x, 1), round(y, 1)


def chart_svg(review: GameReview) -> str:
    """The chart of ``review`` (see the module docstring); a review without decisions gives
    the empty frame."""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{CHART_WIDTH}" height="{CHART_HEIGHT}"'
        f' viewBox="0 0 {CHART_WIDTH} {CHART_HEIGHT}">',
        f'<rect width="{CHART_WIDTH}" height="{CHART_HEIGHT}" fill="{_BACKGROUND}"/>',
    ]
    for level in (0.25, 0.5, 0.75):
        _, y = _point(0, 2, level)
        parts.append(
            f'<line x1="{_PAD}" y1="{y}" x2="{CHART_WIDTH - _PAD}" y2="{y}" stroke="{_GRID}"'
            ' stroke-width="1" stroke-dasharray="4 4"/>'
        )
    curve = review.curve()
    n = len(curve)
    points = [_point(i, n, chance) for i, (_, chance) in enumerate(curve)]
    if len(points) > 1:
        path = " ".join(f"{x},{y}" for x, y in points)
        parts.append(
            f'<polyline points="{path}" fill="none" stroke="{_LINE}" stroke-width="3"'
            ' stroke-linejoin="round"/>'
        )
    for (x, y), decision in zip(points, review.decisions, strict=True):
        color = MARK_COLORS.get(decision.label)
        if color is not None:
            parts.append(f'<circle cx="{x}" cy="{y}" r="6" fill="{color}"/>')
        elif n == 1:
            parts.append(f'<circle cx="{x}" cy="{y}" r="4" fill="{_LINE}"/>')
    parts.append("</svg>")
    return "".join(parts)
