"""Who plays in the service tests, and how their services are made and closed."""

from __future__ import annotations

import itertools
from typing import Any

from bot.ai_pool import ThreadAI
from bot.clock import Clock
from bot.service import GameService
from bot.storage import Storage

#: The tests' table is a Discord server's channel (ids are snowflakes: the Discord realm, where
#: moderators exist), unless a test says otherwise.
GUILD = 10 << 22
CH = 100 << 22
ALICE, BOB, CAROL, DAVE = 1, 2, 3, 4
NAMES = {ALICE: "Alice", BOB: "Bob", CAROL: "Carol", DAVE: "Dave"}


class Services:
    """The services one test made; :meth:`close` closes every one still open, and the
    :class:`ThreadAI` runners made for them."""

    def __init__(self) -> None:
        self.made: list[GameService] = []
        self._runners: list[ThreadAI] = []

    async def make(
        self, storage: Storage, *, clock: Clock, seed: int = 1, **kw: Any
    ) -> GameService:
        """A restored service on ``storage``.  Seeds count up from ``seed`` (unless
        ``seed_source`` is given), no AI delay, AI seats think in a :class:`ThreadAI`
        unless ``ai=`` says otherwise."""
        seeds = itertools.count(seed)
        kw.setdefault("seed_source", lambda: next(seeds))
        kw.setdefault("ai_delay", 0.0)
        if "ai" not in kw:
            kw["ai"] = ThreadAI()
            self._runners.append(kw["ai"])
        svc = GameService(storage, clock=clock, **kw)
        await svc.restore()
        self.made.append(svc)
        return svc

    async def close(self) -> None:
        for svc in self.made:
            if not svc.closed:
                await svc.close()
        for runner in self._runners:
            await runner.close()


async def lobby_of(svc: GameService, host: int, *seats: int | str) -> None:
    """Open a lobby in :data:`CH` hosted (and seated) by ``host``, then seat each of
    ``seats`` in order: a user id joins by name (:data:`NAMES`), a string is an AI level."""
    await svc.open_lobby(CH, GUILD, host, NAMES[host])
    for seat in seats:
        if isinstance(seat, str):
            await svc.add_ai(CH, host, seat)
        else:
            await svc.join(CH, seat, NAMES[seat])
