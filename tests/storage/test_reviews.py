"""The coach's stored reviews (migration 9), on SQLite and PostgreSQL: one per game and
player, found by budget and seed, averaged for ``/durak stats``, erased by forget-me."""

from __future__ import annotations

from bot.storage import ReviewRecord, Storage

from .conftest import Backend, upgraded_across

ALICE, BOB = 1_000_000_000_000_000_001, 1_000_000_000_000_000_002


async def test_a_review_is_kept_per_game_and_player(storage: Storage) -> None:
    assert await storage.load_review(7, ALICE, 300, 0) is None
    assert await storage.review_accuracy(ALICE) == (None, 0)
    await storage.save_review(ReviewRecord(7, ALICE, 0, 300, 0, 80.0, '{"a": 1}', 1.0))
    await storage.save_review(ReviewRecord(8, ALICE, 1, 300, 0, 60.0, '{"a": 2}', 2.0))
    # Bob never had a choice: no accuracy
    await storage.save_review(ReviewRecord(7, BOB, 1, 300, 0, None, '{"b": 1}', 3.0))
    assert await storage.load_review(7, ALICE, 300, 0) == '{"a": 1}'
    assert await storage.load_review(7, BOB, 300, 0) == '{"b": 1}'
    assert await storage.load_review(7, ALICE, 100, 0) is None  # another budget
    assert await storage.load_review(7, ALICE, 300, 1) is None  # another seed
    assert await storage.review_accuracy(ALICE) == (70.0, 2)
    assert await storage.review_accuracy(BOB) == (None, 0)
    # a newer review of the same game replaces the old one
    await storage.save_review(ReviewRecord(7, ALICE, 0, 100, 0, 90.0, '{"a": 3}', 4.0))
    assert await storage.load_review(7, ALICE, 300, 0) is None
    assert await storage.load_review(7, ALICE, 100, 0) == '{"a": 3}'
    assert await storage.review_accuracy(ALICE) == (75.0, 2)


async def test_forget_me_erases_the_players_reviews_only(storage: Storage) -> None:
    await storage.save_review(ReviewRecord(7, ALICE, 0, 300, 0, 80.0, "{}", 1.0))
    await storage.save_review(ReviewRecord(7, BOB, 1, 300, 0, 50.0, "{}", 1.0))
    await storage.forget_player(ALICE)
    assert await storage.load_review(7, ALICE, 300, 0) is None
    assert await storage.review_accuracy(ALICE) == (None, 0)
    assert await storage.load_review(7, BOB, 300, 0) == "{}"


async def test_the_reviews_table_comes_with_migration_9(backend: Backend) -> None:
    st = await upgraded_across(backend, 9, "game_reviews")  # a version 8 database, moved on
    assert await st.load_review(1, ALICE, 300, 0) is None
    await st.save_review(ReviewRecord(1, ALICE, 0, 300, 0, 99.5, "{}", 1.0))
    assert await st.review_accuracy(ALICE) == (99.5, 1)
    await st.close()
