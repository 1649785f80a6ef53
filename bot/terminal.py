"""Terminal mode: ``durak-bot play`` plays a game against AI seats in the shell, through the
same :class:`GameService` the Discord bot uses (a throwaway SQLite file unless ``--db``)."""

from __future__ import annotations

import asyncio
import os
import tempfile
from typing import TextIO

from bot.errors import ServiceError
from bot.presenter import NoticeKind, NullPresenter
from bot.service import GameService
from bot.storage import SqliteStorage
from bot.text import render_hand, render_message, render_series, render_table
from bot.views import LobbyOptions, Player, TableView
from rules_engine.messages import Message

__all__ = ["play"]

CHANNEL, GUILD, USER = 1, 1, 1
HELP = (
    "Type the number of an action, or its text ('attack 8♥', 'defend 8♥ 9♥', 'take', 'pass');\n"
    "'t' shows the table, 'h' your hand, 'q' quits."
)


class _Printer(NullPresenter):
    """Prints each new action as it happens, and wakes the input loop."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.key: tuple[int, int] | None = None  # (game_id, version) last printed
        self.changed = asyncio.Event()
        self.names: list[str] = []  # the seats' names, as the last table showed them

    def say(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    async def table_changed(self, view: TableView) -> None:
        key = (view.game_id, view.version)
        if self.key is not None and key <= self.key:
            return
        same_game = self.key is not None and self.key[0] == view.game_id
        new = view.version - self.key[1] if same_game and self.key else view.version
        self.names = [s.name for s in view.seats]
        if new > 0:
            for rec in view.recent[-new:]:
                suffix = f" ({rec.auto})" if rec.auto else ""
                self.say(f"  {render_message(rec.message, self.names)}{suffix}")
        self.key = key
        self.changed.set()

    async def notice(self, channel_id: int, kind: NoticeKind, message: Message, *,
                     user_id: int | None = None, players: tuple[Player, ...] = ()) -> None:
        if kind in ("timeout", "autopilot_on", "autopilot_off"):
            self.say(f"* {render_message(message, [p.name for p in players])}")


async def play(
    players: int = 2,
    rules: str = "podkidnoy",
    level: str = "beginner",
    *,
    stdin: TextIO,
    stdout: TextIO,
    db_path: str | None = None,
    ai_delay: float = 0.4,
    turn_timeout: int = 600,
    seed: int | None = None,
) -> int:
    """Play until the user quits (or stdin ends).  Returns a process exit code."""
    tmp: tempfile.TemporaryDirectory[str] | None = None
    if db_path is None:
        tmp = tempfile.TemporaryDirectory(prefix="durak-play-")
        db_path = os.path.join(tmp.name, "play.sqlite3")
    printer = _Printer(stdout)
    seeds = iter(range(seed, seed + 1_000_000)) if seed is not None else None
    service = GameService(
        SqliteStorage(db_path), presenters=[printer], ai_delay=ai_delay,
        turn_timeout=turn_timeout, seed_source=(lambda: next(seeds)) if seeds else None,
    )
    loop = asyncio.get_running_loop()

    async def read() -> str | None:
        line = await loop.run_in_executor(None, stdin.readline)
        return None if line == "" else line.strip()

    try:
        await service.restore()
        try:
            await service.open_lobby(CHANNEL, GUILD, USER, "You",
                                     LobbyOptions(rules=rules, seats=players,
                                                  turn_timeout=turn_timeout))
            for _ in range(players - 1):
                await service.add_ai(CHANNEL, USER, level)
        except ServiceError as exc:
            printer.say(f"error: {render_message(exc.message, printer.names)}")
            return 2
        view = await service.start(CHANNEL, USER)
        printer.say(f"Durak ({view.rules.name}) against {players - 1} {level} AI. {HELP}")
        while True:
            view = await _wait_for_turn(service, printer)
            if view.finished:
                printer.say(render_table(view))
                if view.series is not None:
                    printer.say(render_series(view.series))
                printer.say("Rematch? [y/N]")
                answer = await read()
                if answer is None or answer.lower() not in ("y", "yes"):
                    await service.end_series(CHANNEL, USER)
                    printer.say("Bye!")
                    return 0
                await service.rematch(CHANNEL, USER)
                continue
            printer.say(render_table(view))
            hand = await service.hand(CHANNEL, USER)
            printer.say(render_hand(hand))
            while True:
                printer.say("> ")
                line = await read()
                if line is None or line.lower() in ("q", "quit", "exit"):
                    await service.stop(CHANNEL, USER)
                    printer.say("Game stopped.")
                    return 0
                if not line:
                    continue
                if line.lower() in ("t", "table"):
                    printer.say(render_table(await service.table(CHANNEL)))
                    continue
                if line.lower() in ("h", "hand", "?", "help"):
                    printer.say(HELP)
                    printer.say(render_hand(await service.hand(CHANNEL, USER)))
                    continue
                hand = await service.hand(CHANNEL, USER)
                text = line
                if line.isdigit():
                    index = int(line) - 1
                    if not 0 <= index < len(hand.legal):
                        printer.say(f"! choose 1–{len(hand.legal)}")
                        continue
                    text = hand.legal[index].text
                try:
                    printer.changed.clear()
                    await service.act(CHANNEL, USER, text, hand.version, game_id=hand.game_id)
                    break
                except ServiceError as exc:
                    printer.say(f"! {render_message(exc.message, printer.names)}")
    finally:
        await service.close()
        if tmp is not None:
            tmp.cleanup()


async def _wait_for_turn(service: GameService, printer: _Printer) -> TableView:
    """Wait until it is the user's turn or the game is over."""
    while True:
        printer.changed.clear()
        view = await service.table(CHANNEL)
        if view.finished or (view.to_act is not None and view.seats[view.to_act].user_id == USER):
            await service.wait_idle()  # let the printer catch up with the last moves
            return view
        await printer.changed.wait()
