"""Discord requests per game action: ``python -m tests.e2e.discord_bench [--games N]``.

Runs the real bot (``apps.discord_bot.create_bot``, real discord.py) against the fake Discord
of the end-to-end tests, and plays ``--games`` games, each in a fresh server: two people and a
``beginner`` AI, the lobby included (``/durak new``, a join, the AI added by the host, start),
both hands opened, every human move a press on a button of the player's hand, and ``/durak
stats`` after the game.  The fake counts every REST request the bot sent from the lobby on by
the budget Discord charges it to (:mod:`tests.e2e.fakediscord.budget`): ``bot`` requests go
through the bot token (50 a second for the whole bot), ``interaction``/``webhook`` requests
answer interactions (not counted by that limit).  A game action is one stored action (attack,
defend, transfer, take, pass: the AI's and the humans').

The AI plays after ``--ai-delay`` seconds (the bot's default ``AI_DELAY`` is 1 s) and each
human presses ``--think`` seconds after their buttons appear, on the real clock.  Printed, one
``key=value`` line per game and one for the whole run::

    games=… actions=… human_moves=… bot_requests=… bot_per_action=… interaction_requests=…
    webhook_requests=… not_bot_per_action=… shown_p50_ms=… shown_max_ms=… ai_delay=… think=…

``shown_*``: from a human's press to the first public table showing that move.

It lives with the tests (like the fault campaign) because it runs the tests' fake Discord,
which the installed packages do not ship.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from apps.config import Settings
from bot.clock import SystemClock
from cogs.presenter import TABLE_INTERVAL
from tests.e2e.durak_e2e import Harness, prefer, rendered_at
from tests.e2e.fakediscord import FakeDiscord, RequestCounts

POLICY = prefer("defend", "attack", "pass", "take")
#: The ids and tokens of a path, left out when requests are counted by route.
_ROUTE_IDS = re.compile(r"/[0-9]+|/fake\.[^/]+")


@dataclass
class _Harness(Harness):
    """The tests' harness on the real clock, with an AI delay."""

    ai_delay: float = 0.0

    @property
    def settings(self) -> Settings:
        return dataclasses.replace(super().settings, ai_delay=self.ai_delay)


@dataclass
class GameFigures:
    """What one game cost."""

    actions: int
    human_moves: int
    counts: RequestCounts
    routes: Counter[str]
    shown_ms: list[float] = field(default_factory=list)


async def _play(h: Harness, think: float) -> list[tuple[float, int]]:
    """Play the game to its end, each human pressing ``think`` seconds after their buttons
    show; (press time, version the move makes) of each human move."""
    moves: list[tuple[float, int]] = []
    for _ in range(2000):
        if think and await h.turn_now(60) is not None:
            await asyncio.sleep(think)
        move = await h.move_now(POLICY, 60)
        if move is None:
            return moves
        moves.append(move)
    raise AssertionError("the game did not end")


def _shown_ms(h: Harness, game_id: int, moves: list[tuple[float, int]]) -> list[float]:
    """For each human move, ms from its press to the first public table version showing it."""
    versions = [
        (v.at, at[1])
        for m in h.fake.messages(h.channel, include_deleted=True)
        if m.visible_to is None
        for v in m.versions
        if (at := rendered_at(v)) is not None and at[0] == game_id
    ]
    out = []
    for pressed, version in moves:
        times = [t for t, v in versions if v >= version and t >= pressed]
        if times:
            out.append((min(times) - pressed) * 1000)
    return out


async def one_game(seed: int, ai_delay: float, think: float) -> GameFigures:
    with tempfile.TemporaryDirectory() as tmp:
        fake = FakeDiscord()
        await fake.start()
        try:
            h = _Harness(
                fake,
                Path(tmp) / "durak.sqlite3",
                [seed],
                clock=SystemClock(),
                table_interval=TABLE_INTERVAL,
                ai_delay=ai_delay,
            )
            alice, bob = h.user("alice"), h.user("bob")
            await h.start()
            await fake.settle()
            since = len(fake.requests)
            await h.start_game(alice, join=[bob], ai=["beginner"], rules="podkidnoy", seats=3)
            for user in (alice, bob):
                await h.show_hand(user)
            moves = await _play(h, think)
            await h.idle()
            view = await h.table_view()
            await h.answered(await h.slash(alice, "stats"))
            await h.idle()
            counts = fake.request_counts(since)
            record = await h.finished_game(view.game_id)
            routes = Counter(
                f"{r.kind} {r.method} {_ROUTE_IDS.sub('/…', r.path)}" for r in fake.requests[since:]
            )
            figures = GameFigures(
                len(record["actions"]),
                len(moves),
                counts,
                routes,
                _shown_ms(h, view.game_id, moves),
            )
            await fake.stop_bot(h.bot)
            return figures
        finally:
            await fake.stop()


def _line(figures: list[GameFigures], ai_delay: float, think: float) -> str:
    actions = sum(f.actions for f in figures)
    counts = RequestCounts(
        bot=sum(f.counts.bot for f in figures),
        interaction=sum(f.counts.interaction for f in figures),
        webhook=sum(f.counts.webhook for f in figures),
        rate_limited=sum(f.counts.rate_limited for f in figures),
    )
    shown = [ms for f in figures for ms in f.shown_ms]
    return (
        f"games={len(figures)} actions={actions} human_moves={sum(f.human_moves for f in figures)}"
        f" bot_requests={counts.bot} bot_per_action={counts.bot / actions:.2f}"
        f" interaction_requests={counts.interaction} webhook_requests={counts.webhook}"
        f" not_bot_per_action={counts.not_bot / actions:.2f}"
        f" shown_p50_ms={statistics.median(shown) if shown else 0:.0f}"
        f" shown_max_ms={max(shown, default=0):.0f} ai_delay={ai_delay} think={think}"
    )


async def run(games: int, seed: int, ai_delay: float, think: float, routes: bool) -> None:
    figures = []
    for n in range(games):
        f = await one_game(seed + n, ai_delay, think)
        figures.append(f)
        print(_line([f], ai_delay, think), flush=True)
    print(_line(figures, ai_delay, think), flush=True)
    if routes:
        total = sum((f.routes for f in figures), Counter[str]())
        for route, n in total.most_common():
            print(f"# {n:5d} {route}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1, help="the first game's deal seed")
    parser.add_argument("--ai-delay", type=float, default=1.0, help="AI_DELAY (s)")
    parser.add_argument("--think", type=float, default=0.5, help="a human's time per move (s)")
    parser.add_argument("--routes", action="store_true", help="also count requests by route")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR, stream=sys.stderr)
    started = time.monotonic()
    asyncio.run(run(args.games, args.seed, args.ai_delay, args.think, args.routes))
    print(f"# {time.monotonic() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
