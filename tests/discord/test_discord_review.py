"""The coach's review on Discord (cogs/render/review.py): every page within Discord's limits
in every language, ◀ ▶ at the ends, the review custom ids, and the game-over message's
"Review my game" button."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from bot.views import Player, ReviewView
from cogs.custom_ids import REVIEW_NAVS, ReviewButton, parse_review_id, review_id
from cogs.i18n import SUPPORTED, catalog
from cogs.render.review import render_review, render_review_progress
from cogs.render.table import render_table
from present.review import marked
from rules_engine import PROFILES, Game
from rules_engine.ai.review import review_game
from tests.ai.review_support import seeded_record

from .dsc_factories import LONG, table_view
from .dsc_limits import check_message, message_text, to_discord

CATS = [catalog(lang) for lang in SUPPORTED]


@pytest.fixture(scope="module")
def view() -> ReviewView:
    record = seeded_record(3, 3)  # three beginners: many marked decisions
    review = review_game(record, 0, deals=4)
    assert marked(review)
    return ReviewView(
        game_id=42,
        guild_id=1,
        user_id=7,
        rules=record.rules,
        profile="podkidnoy",
        players=(Player(LONG), Player("Bob"), Player("Casual AI", "casual")),
        review=review,
        stored=False,
    )


def _nav(reply) -> dict[str, tuple[int, bool]]:
    return {
        parse_review_id(b.custom_id).nav: (parse_review_id(b.custom_id).page, b.disabled)
        for b in reply.components
    }


def test_every_page_fits_discord_in_every_language(view: ReviewView) -> None:
    pages = len(marked(view.review)) + 1
    for t in CATS:
        for page in range(pages):
            reply = render_review(view, page, t)
            check_message(reply)
            to_discord(reply)
        check_message(render_review_progress(3, 20, t))


def test_the_pages_step_and_stop_at_the_ends(view: ReviewView) -> None:
    t = catalog("en")
    last = len(marked(view.review))
    first = render_review(view, 0, t)
    assert _nav(first) == {"prev": (0, True), "next": (1, False)}
    assert "Accuracy" in message_text(first)
    end = render_review(view, last, t)
    assert _nav(end) == {"prev": (last - 1, False), "next": (last, True)}
    assert "Your hand:" in message_text(end) and "(your move" in message_text(end)
    assert _nav(render_review(view, 999, t)) == _nav(end)  # clamped


def test_review_ids_round_trip_and_refuse_bad_ones() -> None:
    for nav in REVIEW_NAVS:
        assert parse_review_id(review_id(9, 3, nav)) == ReviewButton(9, 3, nav)
    for bad in ("durak:review:0:0:open", "durak:review:1:-1:next", "durak:review:1:0:jump"):
        with pytest.raises(ValueError):
            parse_review_id(bad)
    with pytest.raises(ValueError):
        review_id(1, 0, "jump")


def test_the_game_over_message_offers_a_review_to_the_humans() -> None:
    game = Game(PROFILES["podkidnoy"], seeded_record(5).deal)
    while not game.finished:
        game.apply(next(iter(game.legal_actions())))
    over = render_table(table_view(game), catalog("en"))
    ids = [b.custom_id for b in over.components if b.custom_id.startswith("durak:review:")]
    assert ids == [review_id(42, 0, "open")]
    assert "Review my game" in [b.label for b in over.components]


def test_the_summary_carries_the_chart_and_the_pages_drop_it(view: ReviewView) -> None:
    from cogs.render.chart import CHART_FILE, chart_png

    png = chart_png(view.review)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    t = catalog("fr")
    summary = render_review(view, 0, t, chart=png)
    check_message(summary)
    assert summary.files == ((CHART_FILE, png),)
    assert summary.embeds[0]["image"] == {"url": f"attachment://{CHART_FILE}"}
    assert "graphique" in message_text(summary)
    page = render_review(view, 1, t, chart=png)
    assert page.files == () and "image" not in page.embeds[0]
    assert render_review(view, 0, t).files == ()  # no chart given: none shown


def test_stats_show_the_coachs_accuracy_once_a_game_was_reviewed() -> None:
    import dataclasses

    from cogs.render.records import render_stats

    from .dsc_factories import stats_view

    view = stats_view()
    assert "coach" not in message_text(render_stats(view, catalog("en")))
    reviewed = dataclasses.replace(view, review_accuracy=83.46, reviewed=2)
    text = message_text(render_stats(reviewed, catalog("en")))
    assert "The coach's accuracy: **83.5%** over 2 reviewed games" in text
    assert "**83.5%** sur 2 parties analysées" in message_text(
        render_stats(reviewed, catalog("fr"))
    )


class _Clock:
    """``time.monotonic`` for the cog's progress pacing, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_the_progress_is_shown_at_most_every_two_seconds_and_never_after_the_answer(
    view: ReviewView, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review with ten decisions, one every 0.7 s (the clock is the test's): the private
    message says how far it got at most once per PROGRESS_EVERY_S, never for the last
    decision, and every progress edit lands before the review itself, even an edit that
    Discord answers late."""
    from types import SimpleNamespace

    from cogs import records_commands
    from cogs.durak_commands import DurakCog

    clock = _Clock()
    monkeypatch.setattr(records_commands, "monotonic", clock)
    total, step = 10, 0.7
    edits: list[tuple[float, dict[str, object]]] = []
    slow = asyncio.Event()  # Discord answers the progress edits only once the review is made

    async def edit_original_response(**kwargs: object) -> None:
        at = clock.now
        if not kwargs.get("embeds"):
            await slow.wait()
            for _ in range(20):  # and slowly: the answer would overtake an edit not awaited
                await asyncio.sleep(0)
        edits.append((at, kwargs))

    class Service:
        async def review(self, guild: int, user: int, game: int | None, *, progress):  # type: ignore[no-untyped-def]
            assert (guild, user, game) == (1, 7, 42)
            for done in range(1, total + 1):
                clock.now += step
                progress(done, total)
                await asyncio.sleep(0)  # the edits start while the review goes on
            slow.set()
            return view

    cog = DurakCog(SimpleNamespace(), service=Service())  # type: ignore[arg-type]
    interaction = SimpleNamespace(
        guild_id=1,
        user=SimpleNamespace(id=7),
        locale=SimpleNamespace(value="en-US"),
        guild_locale=None,
        edit_original_response=edit_original_response,
    )
    await cog._review(interaction, 42, 1)  # type: ignore[arg-type]  # its first marked page

    progress = [(at, kw["content"]) for at, kw in edits if not kw.get("embeds")]
    assert [text for _, text in progress] == [
        f"The coach is reviewing your game: {done} of {total} decisions done…"
        for done in (1, 4, 7)  # 0.7 s, 2.8 s and 4.9 s in: 2.1 s apart, the 10th not shown
    ]
    times = [at for at, _ in progress]
    assert all(b - a >= records_commands.PROGRESS_EVERY_S for a, b in itertools.pairwise(times))
    last = edits[-1][1]
    assert last["embeds"] and "Your hand:" in str(last["embeds"][0].to_dict())  # type: ignore[index]
    assert len(edits) == len(progress) + 1  # the answer once, last
