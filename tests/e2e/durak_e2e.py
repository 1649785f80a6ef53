"""Harness of the durak-bot end-to-end tests: the real bot (``apps.discord_bot.create_bot``)
against the fake Discord server, with simulated users who only press what the bot shows them.

The game's clock is a :class:`bot.clock.ManualClock` (turn timeouts fire only when a test moves
it), AI seats play without delay, and deals come from fixed seeds, so every game is
reproducible.  The harness peeks at the service only to know *when* to look (whose turn it is,
whether the bot is idle); every move is a press on a button of a message the user can see.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from apps.config import Settings
from apps.discord_bot import create_bot
from bot.clock import ManualClock
from cogs.components import COG_NAME
from cogs.custom_ids import GameButton, parse_game_id
from cogs.i18n import SUPPORTED, catalog
from rules_engine import Deal, Game, Rules, parse_action
from rules_engine.cards import CARD_TEXT, iter_bits
from tests import storage_helpers as stored

from .fakediscord import FakeDiscord, InteractionRecord, MessageVersion, SimUser, StoredMessage

EPHEMERAL = 64
CARD_RE = re.compile(r"(?:10|[2-9JQKA])[♠♥♦♣]")
GAME_ACTIONS = ("attack", "defend", "transfer", "show", "take", "pass")


async def poll(
    cond: Callable[[], Any], timeout: float = 10.0, what: str = "condition", interval: float = 0.005
) -> Any:
    """Await ``cond()`` (sync or async) until it is truthy; return its value."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = cond()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout:.1f}s waiting for {what}")
        await asyncio.sleep(interval)


#: How a hand's title begins, in every language.
HAND_TITLES = tuple(
    {
        catalog(lang)
        .ngettext("Your hand: {count} card", "Your hand: {count} cards", n)
        .split("{count}")[0]
        for lang in SUPPORTED
        for n in (1, 2)
    }
)


def is_hand(version: MessageVersion) -> bool:
    return any(str(e.get("title", "")).startswith(HAND_TITLES) for e in version.embeds)


def buttons(message: StoredMessage) -> list[GameButton]:
    """The enabled game components of a message, parsed."""
    out = []
    for c in message.find_components():
        if c.custom_id and not c.disabled:
            try:
                out.append(parse_game_id(c.custom_id))
            except ValueError:
                continue
    return out


@dataclass
class Player:
    user: SimUser
    moves: int = 0


@dataclass
class Harness:
    fake: FakeDiscord
    db: Path
    seeds: list[int] = field(default_factory=lambda: [1])
    turn_timeout: int = 60
    clock: ManualClock = field(default_factory=lambda: ManualClock(float(int(time.time()))))
    bot: Any = None
    players: dict[int, Player] = field(default_factory=dict)
    #: ``DATABASE_URL`` (e.g. PostgreSQL) instead of the SQLite file ``db``.
    database_url: str | None = None
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    #: More settings (e.g. the web table's ``public_url``).
    settings_extra: dict[str, Any] = field(default_factory=dict)
    #: The presenter's pause between two writes of a table (``cogs.presenter.TABLE_INTERVAL``
    #: in production): none by default, so that tests move as fast as the bot answers.
    table_interval: float = 0.0

    def __post_init__(self) -> None:
        self._seed_iter: Iterator[int] = iter(self.seeds)

    # -- lifecycle ---------------------------------------------------------------
    @property
    def channel(self) -> int:
        return self.fake.channel_id

    @property
    def settings(self) -> Settings:
        return Settings(
            database_path=str(self.db),
            database_url=self.database_url,
            shard_count=self.shard_count,
            shard_ids=self.shard_ids,
            dev_guild_id=self.fake.guild_id,
            turn_timeout=self.turn_timeout,
            ai_delay=0.0,
            **self.settings_extra,
        )

    def _next_seed(self) -> int:
        try:
            return next(self._seed_iter)
        except StopIteration:
            return 12345

    async def start(self) -> Any:
        self.bot = create_bot(
            self.settings, clock=self.clock, seed_source=self._next_seed, guild_ready_timeout=0.05
        )
        await self.fake.start_bot(self.bot)
        self.presenter.table_interval = self.table_interval
        return self.bot

    @property
    def presenter(self) -> Any:
        """The running bot's Discord presenter."""
        return self.bot.get_cog(COG_NAME).presenter

    async def restart(self) -> Any:
        await self.fake.stop_bot(self.bot)
        return await self.start()

    @property
    def service(self) -> Any:
        return self.bot.service

    def user(self, name: str, **kwargs: Any) -> SimUser:
        user = self.fake.add_user(name, **kwargs)
        self.players[user.id] = Player(user)
        return user

    async def start_with_members(self, *names: str) -> list[SimUser]:
        """Members named ``names`` (in that order) join, then the bot starts: the members."""
        users = [self.user(name) for name in names]
        await self.start()
        return users

    @staticmethod
    def _handlers() -> list[asyncio.Task[Any]]:
        """discord.py's tasks running slash commands and dynamic-item callbacks."""
        return [
            t
            for t in asyncio.all_tasks()
            if not t.done()
            and (
                t.get_name() == "CommandTree-invoker"
                or t.get_name().startswith("discord-ui-dynamic-item-")
            )
        ]

    async def idle(self) -> None:
        """No handler, service task or request in flight (call after the acknowledgement)."""
        for _ in range(50):
            busy = self._handlers()
            if busy:
                await asyncio.wait(busy, timeout=10)
                continue
            await self.service.wait_idle()
            await self.fake.settle()
            if not self._handlers():
                await self.service.wait_idle()
                if not self._handlers():
                    return
        raise AssertionError("the bot never became idle")

    # -- commands and lobby --------------------------------------------------------
    async def slash(self, member: SimUser, sub: str, /, **options: Any) -> InteractionRecord:
        rec = await member.slash(self.channel, "durak", subcommand=sub, options=options)
        cb = await rec.wait_response()
        assert cb.accepted and cb.latency < 3.0, rec.describe()
        return rec

    async def answered(self, rec: InteractionRecord) -> None:
        """Wait until the handler of ``rec`` is done: the slash 'thinking' was replaced
        or deleted, and the bot is idle."""
        await rec.wait_response()

        def done() -> bool:
            orig = rec.original_message
            return orig is None or orig.deleted or not orig.loading or bool(rec.followups)

        await poll(done, what=f"answer to {rec.describe()}")
        await self.idle()

    def lobby_message(self) -> StoredMessage | None:
        for m in reversed(self.fake.messages(self.channel)):
            if m.visible_to is None and any(c.startswith("durak:lobby:") for c in m.custom_ids):
                return m
        return None

    async def open_lobby(self, host: SimUser, **options: Any) -> StoredMessage:
        rec = await self.slash(host, "new", **options)
        await self.answered(rec)
        assert rec.ephemeral and rec.original_message is not None
        return await poll(self.lobby_message, what="the lobby message")

    async def lobby_press(
        self, user: SimUser, action: str, values: list[str] | None = None
    ) -> InteractionRecord:
        lobby = await poll(self.lobby_message, what="the lobby message")
        custom_id = f"durak:lobby:{self.channel}:{action}"
        if values is None:
            rec = await user.press(lobby, custom_id)
        else:
            rec = await user.select(lobby, custom_id, values)
        cb = await rec.wait_response()
        assert cb.accepted and cb.latency < 3.0
        await self.idle()
        return rec

    async def start_game(
        self, host: SimUser, *, join: Iterable[SimUser] = (), ai: Iterable[str] = (), **options: Any
    ) -> StoredMessage:
        await self.open_lobby(host, **options)
        for u in join:
            await self.lobby_press(u, "join")
        for level in ai:
            await self.lobby_press(host, "addai", [level])
        await self.lobby_press(host, "start")
        assert self.service.state(self.channel) == "playing"
        return await poll(self.table_message, what="the table message")

    async def start_with_game(
        self, host: SimUser, *, join: Iterable[SimUser] = (), ai: Iterable[str] = (), **options: Any
    ) -> StoredMessage:
        """Start the bot, deal a game (:meth:`start_game`) and open every human's private hand;
        return the table message."""
        join = tuple(join)
        await self.start()
        table = await self.start_game(host, join=join, ai=ai, **options)
        for user in (host, *join):
            await self.show_hand(user)
        return table

    # -- table and hands -----------------------------------------------------------
    def table_message(self) -> StoredMessage | None:
        """The newest public message with a game button (the live table, or a game over)."""
        for m in reversed(self.fake.messages(self.channel)):
            if m.visible_to is None and any(b.verb in ("hand", "rematch") for b in buttons(m)):
                return m
        return None

    async def wait_table(self) -> StoredMessage:
        return await poll(self.table_message, what="the table message")

    def last_table(self) -> StoredMessage:
        """The newest public table message (live, finished or stopped)."""
        for m in reversed(self.fake.messages(self.channel)):
            if m.visible_to is None and any(
                str(e.get("footer", {}).get("text", "")).startswith("Game ") for e in m.embeds
            ):
                return m
        raise AssertionError("no table message")

    def hand_message(self, user: SimUser) -> StoredMessage | None:
        """The user's newest private hand message."""
        for m in reversed(self.fake.messages(self.channel)):
            if m.visible_to == user.id and is_hand(m.current):
                return m
        return None

    async def show_hand(self, user: SimUser) -> StoredMessage:
        table = await poll(self.table_message, what="the table message")
        hand_button = next(b for b in buttons(table) if b.verb == "hand")
        rec = await user.press(table, f"durak:{hand_button.game_id}:{hand_button.version}:hand")
        cb = await rec.wait_response()
        assert cb.type == 5 and cb.data.get("flags", 0) & EPHEMERAL
        msg = await rec.wait_original(predicate=lambda m: bool(m.embeds))
        assert msg.ephemeral and msg.visible_to == user.id
        await self.idle()
        return msg

    async def table_view(self) -> Any:
        return await self.service.table(self.channel)

    async def turn(self, timeout: float = 10.0) -> tuple[Player, StoredMessage] | None:
        """Wait until the game is over (None) or a human's hand shows action buttons for the
        current state: (that player, their hand message)."""

        async def ready() -> Any:
            await self.idle()
            view = await self.table_view()
            if view.outcome is not None:
                return "over"
            seat = view.seats[view.to_act]
            if seat.played_by is not None:  # a team game: a partner may play the seat
                seat = view.seats[seat.played_by]
            if seat.user_id is None or seat.forfeited:  # the AI plays it
                return None
            player = self.players[seat.user_id]
            msg = self.hand_message(player.user)
            if msg is None:
                return None
            offered = buttons(msg)
            if (
                offered
                and all(b.version == view.version for b in offered if b.verb != "hand")
                and any(b.is_game_action or b.verb == "pick" for b in offered)
            ):
                return player, msg
            return None

        found = await poll(ready, timeout, "a human's turn with current buttons")
        return None if found == "over" else found

    async def press(
        self, user: SimUser, message: StoredMessage, button: GameButton
    ) -> InteractionRecord:
        custom_id = f"durak:{button.game_id}:{button.version}:{button.action}"
        rec = await user.press(message, custom_id)
        cb = await rec.wait_response()
        assert cb.accepted and cb.latency < 3.0, rec.describe()
        return rec

    async def play(
        self, choose: Callable[[Player, list[GameButton], Any], GameButton], max_moves: int = 2000
    ) -> int:
        """Play until the game is over, every human move by pressing a button of the hand.
        Returns the number of presses."""
        presses = 0
        for _ in range(max_moves):
            found = await self.turn()
            if found is None:
                return presses
            player, msg, view, choice = await self._choose(found, choose)
            edits = len(msg.history)
            rec = await self.press(player.user, msg, choice)
            assert rec.response_type == 6, rec.describe()  # an update of the private hand
            presses += 1
            if choice.verb == "pick":
                await poll(
                    lambda m=msg, n=edits: len(m.history) > n, what="the actions of the picked card"
                )
                continue
            player.moves += 1
            await poll(lambda v=view.version: self._moved(v), what="the move to apply")
        raise AssertionError("the game did not end")

    async def turn_now(self, timeout: float = 10.0) -> tuple[Player, StoredMessage] | None:
        """Like :meth:`turn`, but as a player acts: as soon as a hand shows buttons of the
        current state, without waiting for the bot to be idle (a table write may be under
        way)."""

        async def ready() -> Any:
            view = await self.table_view()
            if view.outcome is not None:
                return "over"
            seat = view.seats[view.to_act]
            if seat.user_id is None or seat.forfeited:  # the AI plays it
                return None
            player = self.players[seat.user_id]
            msg = self.hand_message(player.user)
            offered = buttons(msg) if msg is not None else []
            if any(
                b.version == view.version and (b.is_game_action or b.verb == "pick")
                for b in offered
            ):
                return player, msg
            return None

        found = await poll(ready, timeout, "a human's turn (not waiting for idle)", 0.01)
        return None if found == "over" else found

    async def move_now(
        self, choose: Callable[[Player, list[GameButton], Any], GameButton], timeout: float = 10.0
    ) -> tuple[float, int] | None:
        """One human move found and pressed with :meth:`turn_now` (a card's ``pick`` first
        when ``choose`` asks for it), waiting only for the service to apply it: (the fake
        clock's time of the press, the game version the move made), or None once the game
        is over."""
        while True:
            found = await self.turn_now(timeout)
            if found is None:
                return None
            player, msg, view, choice = await self._choose(found, choose)
            edits = len(msg.history)
            pressed = self.fake.now()
            await self.press(player.user, msg, choice)
            if choice.verb == "pick":
                await poll(lambda m=msg, n=edits: len(m.history) > n, timeout, "the picked card")
                continue
            player.moves += 1
            await poll(lambda v=view.version: self._moved(v), timeout, "the move to apply")
            return pressed, view.version + 1

    async def _choose(
        self,
        found: tuple[Player, StoredMessage],
        choose: Callable[[Player, list[GameButton], Any], GameButton],
    ) -> tuple[Player, StoredMessage, Any, GameButton]:
        """A turn ``found`` (the player and their hand message), the table now, and the button
        ``choose`` picks among the hand's game actions and card picks."""
        player, msg = found
        view = await self.table_view()
        offered = [b for b in buttons(msg) if b.is_game_action or b.verb == "pick"]
        return player, msg, view, choose(player, offered, view)

    async def _moved(self, version: int) -> bool:
        view = await self.table_view()
        return view.version > version or view.finished

    # -- database (through the running bot's storage) ---------------------------------
    @property
    def storage(self) -> Any:
        """The running bot's :class:`bot.storage.Storage`."""
        return self.service.storage

    async def db_state(self) -> tuple[Any, ...]:
        """Everything a refused request must leave unchanged: lobbies, active series (seats,
        counts), live games (version, snapshot, meta) and the ended games of the server."""
        state = await self.storage.load_state()
        live = [(g.game_id, g.version, g.snapshot, g.meta) for g in state.live]
        ended = await stored.ended_games(self.storage, self.fake.guild_id)
        return state.lobbies, state.series, live, ended

    async def finished_game(self, game_id: int) -> dict[str, Any]:
        record = await stored.game(self.storage, game_id)
        return {
            "rules": record.rules,
            "deal": record.deal,
            "actions": record.actions,
            "result": record.result,
            "loser": record.loser_seat,
            "seats": record.seats,
        }


#: What the ``harness`` fixture (conftest.py) gives a test: ``harness(seeds=[3], ...)`` makes the
#: :class:`Harness` of its fake Discord and a fresh SQLite file, with those fields set.
MakeHarness = Callable[..., Harness]


def replay_steps(record: dict[str, Any]) -> Iterator[tuple[Game, str]]:
    """(game before the action, action text) for every action of a stored game."""
    game = Game(Rules.from_spec(record["rules"]), Deal.from_dict(record["deal"]))
    for text in record["actions"]:
        yield game, text
        game.apply(parse_action(text))


def final_game(record: dict[str, Any]) -> Game:
    game = Game(Rules.from_spec(record["rules"]), Deal.from_dict(record["deal"]))
    for text in record["actions"]:
        game.apply(parse_action(text))
    return game


def card_sets(record: dict[str, Any]) -> tuple[set[str], list[set[str]]]:
    """(cards ever public, cards each seat ever held) over a stored game."""
    deal = Deal.from_dict(record["deal"])
    public = {CARD_TEXT[c] for c in deal.shown}
    if deal.trump_card is not None:
        public.add(CARD_TEXT[deal.trump_card])
    held = [set() for _ in deal.hands]
    game = Game(Rules.from_spec(record["rules"]), deal)

    def note() -> None:
        for seat, mask in enumerate(game.hands):
            held[seat].update(CARD_TEXT[c] for c in iter_bits(mask))

    note()
    for text in record["actions"]:
        public.update(CARD_RE.findall(text))
        game.apply(parse_action(text))
        note()
    return public, held


def card_timeline(record: dict[str, Any]) -> tuple[list[set[str]], list[list[set[str]]]]:
    """Per game version v (actions applied): the cards public by then, and each seat's hand."""
    deal = Deal.from_dict(record["deal"])
    public = {CARD_TEXT[c] for c in deal.shown}
    if deal.trump_card is not None:
        public.add(CARD_TEXT[deal.trump_card])
    game = Game(Rules.from_spec(record["rules"]), deal)
    publics = [set(public)]
    hands = [[{CARD_TEXT[c] for c in iter_bits(m)} for m in game.hands]]
    for text in record["actions"]:
        public.update(CARD_RE.findall(text))
        game.apply(parse_action(text))
        publics.append(set(public))
        hands.append([{CARD_TEXT[c] for c in iter_bits(m)} for m in game.hands])
    return publics, hands


FOOTER_RE = re.compile(r"Game (\d+) · move (\d+)")


def rendered_at(version: Any) -> tuple[int, int] | None:
    """(game id, game version) a message version was rendered from, when it says so: its
    game buttons, or the table's footer."""
    for c in version.find_components():
        try:
            b = parse_game_id(c.custom_id or "")
        except ValueError:
            continue
        if b.verb != "hand":
            return b.game_id, b.version
    for e in version.embeds:
        m = FOOTER_RE.search(str(e.get("footer", {}).get("text", "")))
        if m:
            return int(m[1]), int(m[2])
    return None


def cards_in(texts: Iterable[str]) -> set[str]:
    return {m for t in texts for m in CARD_RE.findall(t)}


def prefer(*verbs: str) -> Callable[[Player, list[GameButton], Any], GameButton]:
    """A choice policy: the first offered action whose verb comes first in ``verbs``; a
    ``pick`` when the wanted verb hides behind one; else the first button."""

    def choose(player: Player, offered: list[GameButton], view: Any) -> GameButton:
        for verb in verbs:
            for b in offered:
                if b.verb == verb:
                    return b
        return offered[0]

    return choose
