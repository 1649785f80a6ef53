"""A bot process for the fault campaign: a :class:`bot.service.GameService` on a database, kept
busy through its public commands until it is killed.  Every command the service acknowledged
(it returned) is appended to an ack log (:mod:`tests.faults.acklog`) before the next is pressed.

``--mode play`` (the kill -9 campaign): each of ``--channels`` channels holds a lobby of two
humans and ``--ai-seats`` beginner AI seats, started, played by the humans pressing their first
legal action, rematched when it ends.  A restarted process picks up whatever it restores.

``--mode join`` (two processes on the same channels): in each channel, lobbies are opened and
joined by users never seen before (their ids start at ``--instance``'s own range), started at
2 to 4 seats (sometimes with an AI seat), played by pressing every human's first legal action,
then rematched or replaced by a new lobby (which ends the finished series).  Two such processes
on one PostgreSQL database race on every press.

Run ``python -m tests.faults.player --help``.  On start it restores the service, writes a
``ready`` line to the ack log and prints ``ready`` on stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import logging
import random
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field

from bot.ai_pool import ThreadAI
from bot.errors import NoGame, NoLobby, ServiceError
from bot.presenter import NullPresenter
from bot.realm import EVERY_REALM
from bot.service import ChannelPhase, GameService
from bot.storage import create_storage
from bot.views import LobbyView, TableView

from .acklog import AckLog

__all__ = ["GUILD", "main", "users_of_instance"]

#: The server every campaign channel belongs to.
GUILD = 10
#: The AI level of AI seats (the cheapest to think).
AI_LEVEL = "beginner"
#: User ids of one instance of a join-mode process: a range of its own.
USERS_PER_INSTANCE = 10_000_000


def users_of_instance(instance: int) -> Iterator[int]:
    """The fresh user ids of process ``instance`` (join mode): never used by another."""
    return itertools.count(USERS_PER_INSTANCE * (instance + 1))


def humans_of_channel(channel_id: int) -> tuple[int, int]:
    """The two humans of a play-mode channel (the first hosts)."""
    return channel_id * 10 + 1, channel_id * 10 + 2


class Wakeups(NullPresenter):
    """Wakes a channel's loop when its table changed (an AI seat moved, a game was dealt), in
    every realm."""

    realms = EVERY_REALM

    def __init__(self) -> None:
        self.events: dict[int, asyncio.Event] = {}

    def of(self, channel_id: int) -> asyncio.Event:
        return self.events.setdefault(channel_id, asyncio.Event())

    async def table_changed(self, view: TableView) -> None:
        self.of(view.channel_id).set()

    async def lobby_changed(self, view: LobbyView) -> None:
        self.of(view.channel_id).set()


@dataclass
class Player:
    """One process's presses (see the module)."""

    svc: GameService
    log: AckLog
    wake: Wakeups
    ai_seats: int = 1
    rng: random.Random = field(default_factory=random.Random)
    users: Iterator[int] = field(default_factory=lambda: users_of_instance(0))

    # ------------------------------------------------------------------ shared steps
    async def wait_change(self, channel_id: int, timeout: float = 0.2) -> None:
        """Wait until the channel's table or lobby changed (or ``timeout``)."""
        event = self.wake.of(channel_id)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), timeout)
        event.clear()

    def refused(self, what: str, channel_id: int, exc: ServiceError, **more: int) -> None:
        self.log.write(k="refused", what=what, error=type(exc).__name__, ch=channel_id, **more)

    async def press_for_human(self, channel_id: int, table: TableView) -> bool:
        """If a human is to act, press their first legal action (acked on success).  Returns
        whether a press was made."""
        if table.finished or table.to_act is None:
            return False
        user = table.seats[table.to_act].user_id
        if user is None:  # an AI seat is to act: its driver plays
            return False
        try:
            hand = await self.svc.hand(channel_id, user)
            if not hand.legal:
                return False
            choice = hand.legal[0]
            after = await self.svc.act(
                channel_id, user, choice.text, hand.version, game_id=hand.game_id
            )
        except ServiceError as exc:
            self.refused("act", channel_id, exc)
            return True
        # the action is the (version + 1)-th of the game's log, as the game stores it
        self.log.write(
            k="act",
            ch=channel_id,
            game=hand.game_id,
            v=hand.version + 1,
            a=f"{hand.seat} {choice.text}",
            after=after.version,
        )
        return True

    # ------------------------------------------------------------------ play mode
    async def play(self, channel_id: int) -> None:
        """Keep ``channel_id`` busy (play mode) forever."""
        host, guest = humans_of_channel(channel_id)
        while True:
            try:
                await self._play_step(channel_id, host, guest)
            except ServiceError as exc:
                self.refused("play", channel_id, exc)
                await asyncio.sleep(0.05)  # pacing of the load, not a wait for anything

    async def _play_step(self, channel_id: int, host: int, guest: int) -> None:
        phase = self.svc.state(channel_id)
        if phase is ChannelPhase.NONE:
            await self.svc.open_lobby(channel_id, GUILD, host, f"Host {channel_id}")
            self.log.write(k="join", ch=channel_id, user=host)
            phase = ChannelPhase.LOBBY
        if phase is ChannelPhase.LOBBY:
            lobby = await self.svc.lobby(channel_id)
            if not any(s.user_id == guest for s in lobby.seats):
                lobby = await self.svc.join(channel_id, guest, f"Guest {channel_id}")
                self.log.write(k="join", ch=channel_id, user=guest)
            for _ in range(2 + self.ai_seats - len(lobby.seats)):
                lobby = await self.svc.add_ai(channel_id, host, AI_LEVEL)
            await self.svc.start(channel_id, host)
            return
        table = await self.svc.table(channel_id)
        if table.finished:
            await self.svc.rematch(channel_id, host)
            return
        if not await self.press_for_human(channel_id, table):
            await self.wait_change(channel_id)

    # ------------------------------------------------------------------ join mode
    async def joins(self, channel_id: int) -> None:
        """Open, join, start and play lobbies in ``channel_id`` (join mode) forever."""
        while True:
            try:
                await self._join_step(channel_id)
            except ServiceError as exc:
                self.refused("step", channel_id, exc)
            await asyncio.sleep(self.rng.uniform(0, 0.02))  # random pacing of the load

    async def _join_step(self, channel_id: int) -> None:
        try:
            lobby: LobbyView | None = await self.svc.lobby(channel_id)
        except NoLobby:
            lobby = None
        if lobby is not None:
            humans = sum(s.ai_level is None for s in lobby.seats)
            if humans >= self.rng.randint(2, 4):
                if len(lobby.seats) < lobby.max_seats and self.rng.random() < 0.25:
                    await self.svc.add_ai(channel_id, lobby.host_id, AI_LEVEL)
                await self.svc.start(channel_id, lobby.host_id)
                return
            user = next(self.users)
            try:
                await self.svc.join(channel_id, user, f"Player {user}")
            except ServiceError as exc:
                self.refused("join", channel_id, exc, user=user)
                return
            self.log.write(k="join", ch=channel_id, user=user)
            return
        try:
            table: TableView | None = await self.svc.table(channel_id)
        except NoGame:
            table = None
        if table is not None and not table.finished:
            if not await self.press_for_human(channel_id, table):
                await self.wait_change(channel_id, 0.05)
            return
        if table is not None and self.rng.random() < 0.5:
            seated = [s.user_id for s in table.seats if s.user_id is not None]
            await self.svc.rematch(channel_id, self.rng.choice(seated))
            return
        user = next(self.users)  # a new lobby (ending the finished series, if any)
        try:
            await self.svc.open_lobby(channel_id, GUILD, user, f"Player {user}")
        except ServiceError as exc:
            self.refused("join", channel_id, exc, user=user)
            return
        self.log.write(k="join", ch=channel_id, user=user)


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m tests.faults.player",
        description="A bot process for the fault campaign (see tests/faults/player.py).",
    )
    p.add_argument("--database-url", required=True, help="sqlite:///FILE or postgresql://...")
    p.add_argument("--ack-log", required=True, help="the file acknowledged commands go to")
    p.add_argument("--mode", choices=("play", "join"), default="play")
    p.add_argument("--channels", type=int, default=8, help="channels kept busy (default 8)")
    p.add_argument("--first-channel", type=int, default=1000, help="first channel id")
    p.add_argument("--ai-seats", type=int, default=1, help="AI seats per play-mode lobby")
    p.add_argument("--instance", type=int, default=0, help="this process's number")
    p.add_argument("--resync", type=float, default=2.0, help="resync interval (PostgreSQL)")
    p.add_argument("--seed", type=int, default=None, help="seed of the choices made")
    return p.parse_args(argv)


async def _serve(args: argparse.Namespace) -> None:
    ai = ThreadAI()
    wake = Wakeups()
    svc = GameService(
        create_storage(args.database_url),
        ai=ai,
        ai_delay=0.0,
        presenters=[wake],
        resync_interval=args.resync,
    )
    await svc.restore()
    log = AckLog(args.ack_log)
    log.write(k="ready", p=args.instance)
    print("ready", flush=True)
    player = Player(
        svc,
        log,
        wake,
        ai_seats=args.ai_seats,
        rng=random.Random(args.seed),
        users=users_of_instance(args.instance),
    )
    channels = range(args.first_channel, args.first_channel + args.channels)
    loop = player.play if args.mode == "play" else player.joins
    async with asyncio.TaskGroup() as group:
        for channel_id in channels:
            group.create_task(loop(channel_id))


def main(argv: list[str] | None = None) -> None:
    """Run until killed."""
    args = _arguments(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    asyncio.run(_serve(args))


if __name__ == "__main__":
    main()
