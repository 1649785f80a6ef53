"""The coach's review on Discord (private): a summary page, then one page per marked decision,
with ◀ ▶ buttons, and the progress message while the review is made.  The words are
:mod:`present.review`'s; this module adds the embed and the buttons."""

from __future__ import annotations

from bot.views import ReviewView
from cogs.custom_ids import review_id
from cogs.i18n import Catalog
from cogs.render.chart import CHART_FILE
from cogs.render.message import BLURPLE, GOLD, GREEN, RED, Button, Reply, make_embed
from cogs.render.text import MARKDOWN
from present.review import decision_lines, marked, summary_lines
from present.rules import rules_title
from rules_engine.ai.review import Label

__all__ = ["render_review", "render_review_progress"]

_COLORS = {Label.INACCURACY: GOLD, Label.MISTAKE: RED, Label.BLUNDER: RED}


def render_review(view: ReviewView, page: int, t: Catalog, *, chart: bytes | None = None) -> Reply:
    """Page ``page`` (clamped) of ``view``: 0 is the summary (with ``chart``, the PNG of
    :func:`cogs.render.chart.chart_png`, as its image), then the marked decisions in game
    order; ◀ ▶ between them (disabled at the ends).  A decision's page drops the chart."""
    review = view.review
    pages = marked(review)
    page = min(max(int(page), 0), len(pages))
    team = view.rules.teams != "none"
    title = t.fill(
        "Review — game {game} · {rules}", game=view.game_id, rules=rules_title(view.rules, t)
    )
    if page == 0:
        lines = summary_lines(review, t, MARKDOWN, team=team)
        lines[0] = "**" + lines[0] + "**"
        color = GREEN
    else:
        decision = pages[page - 1]
        lines = decision_lines(decision, t, MARKDOWN, team=team)
        lines[0] = "**" + lines[0] + "**"
        color = _COLORS.get(decision.label, BLURPLE)
    footer = t.fill(
        "Page {page}/{pages} · only you see this review: it shows your hand",
        page=page + 1,
        pages=len(pages) + 1,
    )
    files: tuple[tuple[str, bytes], ...] = ()
    if page == 0 and chart is not None and review.decisions:
        lines += [
            "",
            t.gettext(
                "The chart: your chance of not being the durak after each of your decisions,"
                " a dot on each marked move."
            ),
        ]
        files = ((CHART_FILE, chart),)
    embed = make_embed(title, "\n".join(lines), color=color, footer=footer)
    if files:
        embed["image"] = {"url": f"attachment://{CHART_FILE}"}
    gid = view.game_id
    components = (
        Button(
            review_id(gid, max(page - 1, 0), "prev"),
            t.gettext("Previous"),
            "primary",
            disabled=page == 0,
            emoji="◀️",
        ),
        Button(
            review_id(gid, min(page + 1, len(pages)), "next"),
            t.gettext("Next"),
            "primary",
            disabled=page >= len(pages),
            emoji="▶️",
        ),
    )
    return Reply(embeds=(embed,), components=components, files=files)


def render_review_progress(done: int, total: int, t: Catalog) -> Reply:
    """The private message while a review is made: how many decisions are done."""
    return Reply(
        content=t.fill(
            "The coach is reviewing your game: {done} of {total} decisions done…",
            done=done,
            total=total,
        )
    )
