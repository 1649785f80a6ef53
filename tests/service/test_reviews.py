"""The coach's review through the service (issue 32): computed in the AI runner, stored so a
second request is instant, one per player at a time, a cap per process, erased by forget-me."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.authority import MODERATOR
from bot.errors import ReviewBusy, ReviewUnavailable, UnknownGame
from bot.service import GameService
from rules_engine import Deal
from rules_engine.ai.review import GameRecord, GameReview, review_game

from .conftest import ALICE, BOB, CAROL, CH, GUILD, db_dump, open_table, play_out, settle

DEALS = 4  # a small budget: the tests check the plumbing, not the precision


async def ended_game(svc: GameService) -> tuple[int, GameRecord]:
    await open_table(svc, ALICE, BOB)
    table = await play_out(svc)
    await settle(svc)
    game = svc.game_of(CH)
    assert game is not None and game.finished and table.game_id is not None
    record = GameRecord(game.rules, Deal.from_dict(game.deal.to_dict()), tuple(game.history_text()))
    return table.game_id, record


async def test_a_review_is_computed_once_then_read_from_the_store(make_service: Any) -> None:
    svc = await make_service(review_deals=DEALS)
    game_id, record = await ended_game(svc)
    seen: list[tuple[int, int]] = []
    view = await svc.review(GUILD, BOB, game_id, progress=lambda *p: seen.append(p))
    assert not view.stored and view.user_id == BOB and view.game_id == game_id
    assert view.review == review_game(record, 1, deals=DEALS, seed=0)  # Bob sat at seat 1
    total = len(view.review.decisions)
    assert total > 0 and seen == [(k, total) for k in range(1, total + 1)]
    assert [p.name for p in view.players] == [f"user{ALICE}", f"user{BOB}"]
    seen.clear()
    again = await svc.review(GUILD, BOB)  # their last game, by default
    assert again.stored and again.review == view.review and not seen  # nothing computed
    accuracy, count = await svc.review_accuracy(BOB)
    assert count == 1 and accuracy == view.review.accuracy
    stats = await svc.stats(GUILD, BOB)  # /durak stats shows it
    assert (stats.review_accuracy, stats.reviewed) == (view.review.accuracy, 1)
    assert (await svc.stats(GUILD, ALICE)).reviewed == 0
    await svc.close()  # after a restart, it is read from the store
    restarted = await make_service(review_deals=DEALS)
    assert (await restarted.review(GUILD, BOB, game_id)).stored


async def test_refusals_name_the_reason_and_change_nothing(make_service: Any, db_path: Any) -> None:
    svc = await make_service(review_deals=DEALS)
    with pytest.raises(UnknownGame, match="no ended game"):
        await svc.review(GUILD, ALICE)
    game_id, _ = await ended_game(svc)
    await svc.rematch(CH, ALICE)
    live = (await svc.table(CH)).game_id
    before = db_dump(db_path)
    for guild, user, gid, words in (
        (GUILD, CAROL, game_id, "did not play"),
        (GUILD, ALICE, 999, "no game #999"),
        (GUILD + 1, ALICE, game_id, "no game"),
        (GUILD, ALICE, live, "still being played"),
        (GUILD, ALICE, 0, "no game"),
    ):
        with pytest.raises(UnknownGame, match=words):
            await svc.review(guild, user, gid)
    assert db_dump(db_path) == before
    await svc.stop(CH, ALICE, MODERATOR)


class Blocking:
    """An AI runner whose reviews wait until released (or fail when told to)."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.started = asyncio.Event()
        self.fail = False

    async def review(self, record: Any, seat: int, **kw: Any) -> GameReview:
        self.started.set()
        await self.release.wait()
        if self.fail:
            from bot.ai_pool import ReviewFailed

            raise ReviewFailed("its worker failed: test")
        return review_game(GameRecord.from_dict(record), seat, deals=kw["deals"], seed=kw["seed"])


async def test_one_review_per_player_and_a_cap_per_process(make_service: Any) -> None:
    svc = await make_service(review_deals=DEALS, max_reviews=1)
    game_id, _ = await ended_game(svc)
    runner = Blocking()
    svc._reviews.ai = runner  # type: ignore[assignment]
    first = asyncio.ensure_future(svc.review(GUILD, ALICE, game_id))
    await runner.started.wait()
    with pytest.raises(ReviewBusy, match=f"your review of game #{game_id}"):
        await svc.review(GUILD, ALICE, game_id)
    with pytest.raises(ReviewBusy, match="try again in a minute"):
        await svc.review(GUILD, BOB, game_id)
    runner.release.set()
    assert not (await first).stored
    assert (await svc.review(GUILD, BOB, game_id)).review.seat == 1  # free again


async def test_a_failed_review_stores_nothing_and_may_be_asked_again(make_service: Any) -> None:
    svc = await make_service(review_deals=DEALS)
    game_id, _ = await ended_game(svc)
    runner = Blocking()
    runner.fail = True
    runner.release.set()
    real = svc._reviews.ai
    svc._reviews.ai = runner  # type: ignore[assignment]
    with pytest.raises(ReviewUnavailable):
        await svc.review(GUILD, ALICE, game_id)
    assert await svc.storage.load_review(game_id, ALICE, DEALS, 0) is None
    svc._reviews.ai = real
    assert not (await svc.review(GUILD, ALICE, game_id)).stored


async def test_forget_me_erases_the_players_reviews(make_service: Any) -> None:
    svc = await make_service(review_deals=DEALS)
    game_id, _ = await ended_game(svc)
    await svc.review(GUILD, ALICE, game_id)
    await svc.review(GUILD, BOB, game_id)
    await svc.end_series(CH, ALICE)
    request = await svc.ask_forget(ALICE)
    await svc.forget_me(ALICE, ALICE, expires_at=request.expires_at)
    assert await svc.storage.load_review(game_id, ALICE, DEALS, 0) is None
    assert await svc.storage.load_review(game_id, BOB, DEALS, 0) is not None
    assert await svc.review_accuracy(ALICE) == (None, 0)
