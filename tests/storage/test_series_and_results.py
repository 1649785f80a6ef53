"""The storage's reads of one series (active or ended) and of one game's player results, on
SQLite and on PostgreSQL (what service and end-to-end tests read instead of SQL)."""

from __future__ import annotations

import dataclasses

from bot.seating import LobbySeat
from bot.storage import FIRST_REVISION, FinishedGame, PlayerResult, Storage

from .conftest import GUILD, new_game, series_record


async def test_a_series_reads_back_active_then_ended(storage: Storage) -> None:
    series = series_record(seats=3)
    series.seats[2] = LobbySeat(None, "Casual AI", "casual")
    series_id, game_id = await storage.start_game(series, new_game(series))
    assert await storage.load_series(series_id + 1) is None
    stored = await storage.load_series(series_id)
    assert stored == dataclasses.replace(series, id=series_id, last_game_id=game_id)

    players = [
        PlayerResult(1, 1001, "user1", True, False),
        PlayerResult(0, 1000, "user0", False, False),
    ]
    counted = dataclasses.replace(
        stored, games=1, last_dealer=0, last_loser=1, losses=[0, 1, 0], active=True
    )
    await storage.finish_game(
        FinishedGame(game_id, series_id, GUILD, "podkidnoy", "loss", 1, ["0 a"], 3.0, players),
        counted,
        end_series_at=4.0,
        revision=FIRST_REVISION,
    )
    ended = await storage.load_series(series_id)
    assert ended == dataclasses.replace(counted, active=False)
    assert await storage.game_results(game_id) == sorted(players, key=lambda p: p.seat)


async def test_a_game_without_human_results_has_none(storage: Storage) -> None:
    series = series_record()
    series_id, game_id = await storage.start_game(series, new_game(series))
    assert await storage.game_results(game_id) == []  # still live
    await storage.finish_game(
        FinishedGame(game_id, series_id, GUILD, "podkidnoy", "aborted", None, [], 3.0),
        None,
        revision=FIRST_REVISION,
    )
    assert await storage.game_results(game_id) == []
    assert (await storage.load_game(game_id)).result == "aborted"  # type: ignore[union-attr]
