"""Fixtures for the game service: a manual clock, real SQLite files, a recording presenter."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.clock import ManualClock
from bot.presenter import Notice, NullPresenter
from bot.realm import EVERY_REALM
from bot.service import GameService
from bot.storage import FinishedGame, SqliteStorage
from bot.views import HandView, LobbyView, Player, TableView
from rules_engine.messages import Message

from .support import ALICE, BOB, CAROL, CH, DAVE, GUILD, Services

# the people and places of the tests, for the test modules that import them from here
__all__ = ["ALICE", "BOB", "CAROL", "CH", "DAVE", "GUILD"]


class Recorder(NullPresenter):
    """Remembers every event of every realm, in order."""

    realms = EVERY_REALM

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    async def lobby_changed(self, view: LobbyView) -> None:
        self.events.append(("lobby", view))

    async def table_changed(self, view: TableView) -> None:
        self.events.append(("table", view))

    async def hand_changed(self, channel_id: int, user_id: int, view: HandView) -> None:
        self.events.append(("hand", (channel_id, user_id, view)))

    async def notice(self, notice: Notice) -> None:
        n = notice
        self.events.append(("notice", (n.channel_id, n.kind, n.message, n.user_id, n.players)))

    async def game_over(self, view: TableView) -> None:
        self.events.append(("over", view))

    def of(self, kind: str) -> list[Any]:
        return [e for k, e in self.events if k == kind]

    def notices(self, kind: str) -> list[tuple[int, str, Message, int | None, tuple[Player, ...]]]:
        return [n for n in self.of("notice") if n[1] == kind]


ServiceFactory = Callable[..., Awaitable[GameService]]


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "durak.sqlite3"


@pytest.fixture
async def make_service(clock: ManualClock, db_path: Path) -> AsyncIterator[ServiceFactory]:
    """``await make_service(**kw)``: a restored service on ``db_path`` (closed at teardown).
    Seeds count up from ``seed`` (default 1) so deals are reproducible.  AI seats think in a
    :class:`ThreadAI` (no worker processes to start) unless ``ai=`` says otherwise."""
    services = Services()

    async def factory(path: Path | None = None, *, seed: int = 1, **kw: Any) -> GameService:
        kw.setdefault("turn_timeout", 60)
        storage = SqliteStorage(path or db_path)
        return await services.make(storage, clock=kw.pop("clock", clock), seed=seed, **kw)

    yield factory
    await services.close()


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
async def svc(make_service: ServiceFactory, recorder: Recorder) -> GameService:
    """A restored service that reports to ``recorder``."""
    return await make_service(presenters=[recorder])


def spy_finished(svc: GameService) -> list[FinishedGame]:
    """Every :class:`FinishedGame` the service hands to its storage, in order."""
    seen: list[FinishedGame] = []
    original = svc.storage.finish_game

    async def spy(
        game: FinishedGame,
        series: Any,
        end_series_at: float | None = None,
        *,
        revision: int,
        fence: int | None = None,
    ) -> None:
        seen.append(game)
        await original(game, series, end_series_at, revision=revision, fence=fence)

    svc.storage.finish_game = spy  # type: ignore[method-assign]
    return seen


def db_dump(path: Path) -> list[str]:
    """Every committed row of the database, as SQL text (for "nothing changed" checks)."""
    con = sqlite3.connect(path)
    try:
        return list(con.iterdump())
    finally:
        con.close()


async def settle(svc: GameService) -> None:
    """Let AI moves and presenter calls run to quiescence."""
    await svc.wait_idle()


async def whose_turn(svc: GameService, channel: int = CH) -> tuple[int, HandView]:
    """The user to act in ``channel`` (a human: the player of the seat to act, a partner's
    in a team game) and their hand."""
    table = await svc.table(channel)
    assert table.to_act is not None
    player = table.seats[table.to_act].played_by
    user = table.seats[table.to_act if player is None else player].user_id
    assert user is not None, "an AI seat is to act"
    return user, await svc.hand(channel, user)


async def press(svc: GameService, channel: int = CH) -> TableView:
    """The player to act in ``channel`` plays their first legal action: the table after it."""
    user, hand = await whose_turn(svc, channel)
    return await svc.act(channel, user, hand.legal[0].text, hand.version, game_id=hand.game_id)


async def play_out(svc: GameService, channel: int = CH, limit: int = 2000) -> TableView:
    """Humans play their first legal action until the game ends (AIs play themselves)."""
    for _ in range(limit):
        await settle(svc)
        table = await svc.table(channel)
        if table.finished:
            return table
        seat = table.to_act
        assert seat is not None
        player = table.seats[seat].played_by  # a partner's seat in a team game
        seat = seat if player is None else player
        if table.seats[seat].user_id is None or table.seats[seat].forfeited:  # the AI plays it
            continue
        await press(svc, channel)
    raise AssertionError("the game did not end")


async def open_table(
    svc: GameService, *humans: int, ais: tuple[str, ...] = (), channel: int = CH, **options: Any
) -> TableView:
    """Open a lobby hosted by the first human, seat the others and the AIs, and start."""
    host, *others = humans
    await svc.open_lobby(channel, GUILD, host, f"user{host}", options or None)
    for uid in others:
        await svc.join(channel, uid, f"user{uid}")
    for level in ais:
        await svc.add_ai(channel, host, level)
    return await svc.start(channel, host)
