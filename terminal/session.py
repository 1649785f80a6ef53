"""Terminal mode: ``durak-bot play`` plays a game against AI seats in the shell, through the
same :class:`GameService` the Discord bot uses (a throwaway SQLite file unless ``--db``).

Input is read all the time by a daemon thread, and every line is stamped with the position
that was on screen when it arrived (the last prompt's game, version and numbered actions).  A
move is applied against that position: a line typed ahead, before the position it would act on
was shown, is refused as stale, exactly as an old Discord button is.  Ctrl-C and the end of
input stop the game at once, without waiting for another line.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import math
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TextIO

from bot.ai_pool import ThreadAI
from bot.errors import ServiceError, StaleAction
from bot.limits import MAX_TIMEOUT
from bot.presenter import Notice, NullPresenter
from bot.realm import Realm
from bot.seating import LobbyOptions
from bot.service import GameService
from bot.storage import SqliteStorage
from bot.views import ActionChoice, ActionRecord, HandView, TableView
from present.review import decision_lines, marked, summary_lines
from rules_engine import Action, ActionKind, Card, parse_card
from rules_engine.ai import DEFAULT_AI_LEVEL
from rules_engine.ai.review import DEFAULT_DEALS
from rules_engine.errors import DurakError
from terminal.text import (
    EN,
    names,
    render_hand,
    render_move,
    render_opening,
    render_round_end,
    render_series,
    render_table,
    rules_text,
)

__all__ = ["HELP", "LEGEND", "OutputClosed", "play", "turn_time"]

CHANNEL, GUILD, USER = 1, 1, 1
HELP = (
    "Type the number of an action, a card of your hand ('8♥') to play it, or an action's text\n"
    "('attack 8♥', 'defend 8♥ 9♥', 'take', 'pass'); 't' shows the table, 'h' your hand, 'q' quits."
)
#: Printed under a hand that has cards in parentheses.
LEGEND = "  (cards in parentheses cannot be played now)"
QUIT_WORDS = ("q", "quit", "exit")
REVIEW_WORDS = ("r", "review")
#: Printed at each game's end, above the rematch question.
REVIEW_OFFER = "Type r for the coach's review of your decisions."


@dataclass(frozen=True, slots=True)
class _Screen:
    """What the last prompt showed: the position that a typed line refers to."""

    game_id: int
    version: int
    legal: tuple[ActionChoice, ...] = ()
    rematch: bool = False


@dataclass(frozen=True, slots=True)
class _Line:
    """A line of input (``None`` at the end of input) and the screen it was typed on."""

    text: str | None
    shown: _Screen | None


class _LineReader:
    """Reads stdin in a daemon thread, stamping each line with the screen shown at that moment.

    A daemon thread, not the event loop's executor: a pending ``readline`` must not keep the
    process alive (or swallow the next line) after Ctrl-C or ``q``."""

    def __init__(self, stdin: TextIO, loop: asyncio.AbstractEventLoop) -> None:
        self.shown: _Screen | None = None
        self.lines: asyncio.Queue[_Line] = asyncio.Queue()
        self._stdin = stdin
        self._loop = loop
        self._thread = threading.Thread(target=self._run, name="durak-terminal-input", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        for raw in self._raw_lines():
            line = _Line(None if raw is None else raw.strip(), self.shown)
            try:
                self._loop.call_soon_threadsafe(self.lines.put_nowait, line)
            except RuntimeError:  # the loop is closed: the game is over
                return
            if line.text is None:
                return

    def _raw_lines(self) -> Iterator[str | None]:
        """The input's lines, then ``None``.  A real file descriptor is read with ``os.read``:
        a daemon thread blocked inside ``sys.stdin.readline`` holds the buffer's lock, and the
        interpreter aborts if it still holds it at exit."""
        try:
            fd = self._stdin.fileno()
        except (AttributeError, OSError, ValueError):
            fd = -1
        if fd < 0:
            while True:
                try:
                    text = self._stdin.readline()
                except (OSError, ValueError):  # stdin closed under us
                    text = ""
                if text == "":
                    yield None
                    return
                yield text
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        pending = ""
        while True:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                chunk = b""
            pending += decoder.decode(chunk, final=not chunk)
            *complete, pending = pending.split("\n")
            yield from complete
            if not chunk:
                if pending:
                    yield pending
                yield None
                return


class OutputClosed(Exception):
    """The terminal's output is closed (``durak-bot play | head`` after ``head`` exits)."""


class _Printer(NullPresenter):
    """Prints each new action as it happens, and wakes the input loop.

    Besides the actions, it writes who leads a new game and why (the cards shown at the
    deal), cards added to a take as thrown in to the taker, and the end of each round, as
    the engine recorded each action (:class:`~rules_engine.played.Played`).  It reads the
    actions of each new table version in order: one version per action, as the service
    publishes them, so a round's end follows the action that closed it.

    Once the output is closed, :meth:`say` raises :class:`OutputClosed` and ``on_closed``
    runs (the session then ends as if the input had).  It serves the local realm: the
    terminal's game is the only one of its service."""

    realms = frozenset({Realm.LOCAL})

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.key: tuple[int, int] | None = None  # (game_id, version) last printed
        self.changed = asyncio.Event()
        self.names: list[str] = []  # the seats' names, as the last table showed them
        self.closed = False
        self.on_closed: Callable[[], None] | None = None

    def say(self, text: str) -> None:
        if self.closed:
            raise OutputClosed
        try:
            self.out.write(text + "\n")
            self.out.flush()
        except (OSError, ValueError):  # a broken pipe, or a closed file
            self.closed = True
            self.changed.set()
            if self.on_closed is not None:
                self.on_closed()
            raise OutputClosed from None

    async def table_changed(self, view: TableView) -> None:
        key = (view.game_id, view.version)
        if self.key is not None and key <= self.key:
            return
        same_game = self.key is not None and self.key[0] == view.game_id
        new = view.version - self.key[1] if same_game and self.key else view.version
        self.names = names(view.seats)
        self.key = key
        self.changed.set()
        with contextlib.suppress(OutputClosed):
            if not same_game:
                opening = render_opening(view)
                if opening is not None:
                    self.say(opening)
            if new > 0:
                for rec in view.recent[-new:]:
                    self._say_action(rec)

    def _say_action(self, rec: ActionRecord) -> None:
        self.say(f"  {render_move(rec, self.names)}")
        end = rec.played.round_end
        if end is not None:
            taker = None if end.taker is None else self.names[end.taker]
            self.say(f"  {render_round_end(end.round, taker)}")

    async def notice(self, notice: Notice) -> None:
        if notice.kind in ("timeout", "autopilot_on", "autopilot_off"):
            with contextlib.suppress(OutputClosed):
                self.say(f"* {EN.render(notice.message, names(notice.players))}")


def turn_time(deadline: float | None, turn_timeout: int, now: float) -> str | None:
    """The turn's time as the terminal shows it: ``"600 s per turn"`` while none of it has
    been used up (to the second), ``"42 s left"`` after that, ``None`` without a timer."""
    if deadline is None:
        return None
    left = max(0, math.ceil(deadline - now))
    return f"{turn_timeout} s per turn" if left >= turn_timeout else f"{left} s left"


def _table_text(view: TableView) -> str:
    """The table, with the turn's time as :func:`turn_time` gives it."""
    return render_table(view, timing=turn_time(view.deadline, view.turn_timeout, time.time()))


def _hand_text(hand: HandView) -> str:
    """The hand and its numbered actions, with the legend when some cards are unplayable."""
    text = render_hand(hand)
    if any(not card.playable for card in hand.cards):
        text += "\n" + LEGEND
    return text


def _action_from(text: str, seat: int) -> Action:
    """The user's action text (no seat: ``defend 8♥ 9♥``) as an action of ``seat``.

    Raises :class:`ValueError` with a message that quotes only what the user typed."""
    kind_text, *card_texts = text.split()
    try:
        kind = ActionKind(kind_text.lower())
    except ValueError:
        if kind_text.isdigit():
            raise ValueError(
                f"{text!r} is not an action: type the number of an action "
                "alone, or its text, like 'attack 8♥'"
            ) from None
        raise ValueError(
            f"unknown action {kind_text!r}: use attack, defend, transfer, take "
            "or pass, or the number of an action"
        ) from None
    try:
        return Action(seat, kind, tuple(parse_card(c) for c in card_texts))
    except DurakError as exc:
        raise ValueError(str(exc)) from None


async def play(
    players: int = 2,
    rules: str = "podkidnoy",
    level: str = DEFAULT_AI_LEVEL,
    *,
    stdin: TextIO,
    stdout: TextIO,
    db_path: str | None = None,
    ai_delay: float = 0.4,
    turn_timeout: int = MAX_TIMEOUT,
    seed: int | None = None,
    review_deals: int = DEFAULT_DEALS,
    deck: int | None = None,
    show_trump: bool | None = None,
    teams: str | None = None,
) -> int:
    """Play until the user quits (or stdin ends).  Returns a process exit code.  At each game's
    end the user may ask for the coach's review of their decisions (``review_deals``: its
    budget in sampled deals per choice).

    ``deck``, ``show_trump`` and ``teams`` are the table options (RULES.md §10); in a team
    game the user plays with the AI seats of their team against the others.

    Cancelling (Ctrl-C under ``asyncio.run``) stops the game before the cancellation goes on;
    so does a closed ``stdout``, which raises :class:`OutputClosed`."""
    tmp: tempfile.TemporaryDirectory[str] | None = None
    if db_path is None:
        tmp = tempfile.TemporaryDirectory(prefix="durak-play-")
        db_path = os.path.join(tmp.name, "play.sqlite3")
    printer = _Printer(stdout)
    seeds = iter(range(seed, seed + 1_000_000)) if seed is not None else None
    ai = ThreadAI()  # one human's table: no worker processes to start
    service = GameService(
        SqliteStorage(db_path),
        ai=ai,
        presenters=[printer],
        ai_delay=ai_delay,
        turn_timeout=turn_timeout,
        seed_source=(lambda: next(seeds)) if seeds else None,
        review_deals=review_deals,
    )
    reader = _LineReader(stdin, asyncio.get_running_loop())
    # a closed output ends the session as the end of input does
    printer.on_closed = lambda: reader.lines.put_nowait(_Line(None, None))
    try:
        await service.restore()
        try:
            await service.open_lobby(
                CHANNEL,
                GUILD,
                USER,
                "Player",
                LobbyOptions(
                    rules=rules,
                    seats=players,
                    turn_timeout=turn_timeout,
                    deck=deck,
                    show_trump=show_trump,
                    teams=teams,
                ),
            )
            for _ in range(players - 1):
                await service.add_ai(CHANNEL, USER, level)
        except ServiceError as exc:
            printer.say(f"error: {EN.render(exc.message, printer.names)}")
            return 2
        view = await service.start(CHANNEL, USER)
        against = (
            f"with {players // 2 - 1} {level} AI against {players // 2}"
            if view.rules.team_game
            else f"against {players - 1}"
        )
        printer.say(
            f"Durak ({rules_text(view.rules, pack=False)}) {against} {level} AI, "
            f"{turn_timeout} s per turn. {HELP}"
        )
        reader.start()
        return await _session(service, printer, reader)
    except (asyncio.CancelledError, OutputClosed):
        with contextlib.suppress(ServiceError):
            await service.stop(CHANNEL, USER)
        raise
    finally:
        await service.close()
        await ai.close()
        if tmp is not None:
            tmp.cleanup()


async def _session(service: GameService, printer: _Printer, reader: _LineReader) -> int:
    """Show each position the user must act on and apply their lines; returns the exit code."""
    while True:
        view = await _wait_for_turn(service, printer)
        if view.finished:
            printer.say(_table_text(view))
            if view.series is not None:
                printer.say(render_series(view.series))
            screen = _Screen(view.game_id, view.version, rematch=True)
            reader.shown = screen
            printer.say(REVIEW_OFFER)
            printer.say("Rematch? [y/N]")
            answer = await _answer(service, printer, reader, screen, "Rematch? [y/N]")
            while answer is not None and answer.lower() in REVIEW_WORDS:
                await _review(service, printer, view.game_id)
                printer.say("Rematch? [y/N]")
                answer = await _answer(service, printer, reader, screen, "Rematch? [y/N]")
            if answer is None or answer.lower() not in ("y", "yes"):
                await service.end_series(CHANNEL, USER)
                printer.say("Bye!")
                return 0
            await service.rematch(CHANNEL, USER)
            continue
        printer.say(_table_text(view))
        hand = await service.hand(CHANNEL, USER)
        printer.say(_hand_text(hand))
        screen = _Screen(hand.game_id, hand.version, hand.legal)
        reader.shown = screen
        printer.say("> ")
        while True:
            text = await _answer(service, printer, reader, screen, "> ")
            if text is None:
                await service.stop(CHANNEL, USER)
                printer.say("Game stopped.")
                return 0
            outcome = await _apply(service, printer, text, screen)
            if outcome == "played":
                break
            if outcome == "stale":  # the game moved on under this prompt (a timeout)
                break
            printer.say("> ")


async def _answer(
    service: GameService, printer: _Printer, reader: _LineReader, screen: _Screen, prompt: str
) -> str | None:
    """The next line typed at ``prompt`` while ``screen`` is shown (``None``: quit or end of
    input).  Blank lines are skipped; a request to show something is answered, and a line
    typed before ``screen`` was shown is refused, each followed by ``prompt`` again."""
    while True:
        line = await reader.lines.get()
        if line.text is None or line.text.lower() in QUIT_WORDS:
            return None
        if not line.text:
            continue
        if await _show_on_request(service, printer, line.text):
            printer.say(prompt)
            continue
        if line.shown != screen:
            printer.say(_stale(line.text))
            printer.say(prompt)
            continue
        return line.text


async def _review(service: GameService, printer: _Printer, game_id: int) -> None:
    """Print the coach's review of the user's decisions in ``game_id``: the summary, then each
    marked decision (its progress is printed while it is made, every 5 decisions)."""
    printer.say("The coach is reviewing your decisions…")

    def progress(done: int, total: int) -> None:
        if done % 5 == 0 and done < total:
            printer.say(f"  {done} of {total} decisions")

    try:
        view = await service.review(GUILD, USER, game_id, progress=progress)
    except ServiceError as exc:
        printer.say(f"! {EN.render(exc.message, printer.names)}")
        return
    lines = summary_lines(view.review, EN)
    for decision in marked(view.review):
        lines += ["", *decision_lines(decision, EN)]
    printer.say("\n".join(lines))


def _stale(text: str) -> str:
    return (
        f"! {text!r} was typed before the position above was shown: nothing was played. "
        "Choose again."
    )


async def _show_on_request(service: GameService, printer: _Printer, text: str) -> bool:
    """Handle 't' (table) and 'h' (help and hand); ``False`` for anything else."""
    word = text.lower()
    if word in ("t", "table"):
        printer.say(_table_text(await service.table(CHANNEL)))
        return True
    if word in ("h", "hand", "?", "help"):
        printer.say(HELP)
        printer.say(_hand_text(await service.hand(CHANNEL, USER)))
        return True
    return False


def _card(text: str) -> Card | None:
    """The card ``text`` names alone (``8♥``, ``td``), if it is one."""
    try:
        return parse_card(text)
    except DurakError:
        return None


def _choices_using(card: Card, legal: Sequence[ActionChoice]) -> list[tuple[int, ActionChoice]]:
    """The numbered choices that play ``card`` from the hand (as :attr:`ActionChoice.uses`
    says)."""
    return [(i, choice) for i, choice in enumerate(legal, 1) if card in choice.uses]


def _card_refusal(
    card: Card, using: Sequence[tuple[int, ActionChoice]], hand: HandView, names: Sequence[str]
) -> str:
    """Why typing ``card`` plays nothing: several choices play it (listed by number), or
    none does (the card is not held, or the engine's reason it cannot be played)."""
    if using:
        listed = ", ".join(f"{i}. {choice.text}" for i, choice in using)
        return f"{card} can be played in several ways: type the number of one ({listed})"
    held = next((c for c in hand.cards if c.card == card), None)
    if held is None:
        return f"{card} is not in your hand"
    if held.reason is None:
        return f"{card} cannot be played now"
    return f"{card} cannot be played now: {EN.render(held.reason, names)}"


async def _apply(service: GameService, printer: _Printer, text: str, screen: _Screen) -> str:
    """Play ``text`` against ``screen``: ``"played"``, ``"stale"`` or ``"refused"``."""
    hand = await service.hand(CHANNEL, USER)
    action: Action | str
    card = _card(text)
    if text.isdigit():
        index = int(text) - 1
        if not 0 <= index < len(screen.legal):
            printer.say(
                f"! choose 1–{len(screen.legal)}"
                if screen.legal
                else "! you have no action to choose now"
            )
            return "refused"
        action = screen.legal[index].text
    elif card is not None:
        using = _choices_using(card, screen.legal)
        if len(using) != 1:
            printer.say(f"! {_card_refusal(card, using, hand, printer.names)}")
            return "refused"
        action = using[0][1].text
    else:
        try:
            action = _action_from(text, hand.seat)
        except ValueError as exc:
            printer.say(f"! {exc}")
            return "refused"
    try:
        printer.changed.clear()
        await service.act(CHANNEL, USER, action, screen.version, game_id=screen.game_id)
    except StaleAction:
        printer.say(
            f"! the table changed before {text!r} was played: nothing was played. "
            "Here is the current position."
        )
        return "stale"
    except ServiceError as exc:
        printer.say(f"! {EN.render(exc.message, printer.names)}")
        return "refused"
    return "played"


async def _wait_for_turn(service: GameService, printer: _Printer) -> TableView:
    """Wait until it is the user's turn (of their seat, or in a team game of a partner's seat
    they took over) or the game is over."""
    while True:
        printer.changed.clear()
        view = await service.table(CHANNEL)
        if view.finished or (view.to_act is not None and _user_plays(view, view.to_act)):
            await service.wait_idle()  # let the printer catch up with the last moves
            return view
        await printer.changed.wait()


def _user_plays(view: TableView, seat: int) -> bool:
    """Whether the user plays ``seat`` now: theirs, or a partner's they took over."""
    player = view.seats[seat].played_by
    return view.seats[seat if player is None else player].user_id == USER
