"""The review's chart as a PNG for Discord: :func:`present.review_chart.chart_svg` rendered by
resvg (the ``resvg-py`` wheel: resvg compiled in, no system library; the SVG holds no text,
so no font is needed either).  CPU work: callers run it off the event loop."""

from __future__ import annotations

import resvg_py

from present.review_chart import chart_svg
from rules_engine.ai.review import GameReview

__all__ = ["CHART_FILE", "chart_png"]

#: The attachment's file name (the summary's embed shows ``attachment://`` it).
CHART_FILE = "review.png"


def chart_png(review: GameReview) -> bytes:
    """The chart of ``review`` as PNG bytes."""
    return bytes(resvg_py.svg_to_bytes(svg_string=chart_svg(review), skip_system_fonts=True))
