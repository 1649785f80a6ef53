"""What the browser tests share: finding and launching Debian's Chromium, a local table (the
real game service and web server on 127.0.0.1), and :class:`TablePage`, which plays the page
only through what a player sees and presses (buttons by their accessible names)."""

from __future__ import annotations

import asyncio
import importlib.util
import itertools
import os
import re
import secrets
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Self, TypeVar

from bot.ai_pool import ThreadAI
from bot.limits import MAX_TIMEOUT
from bot.seating import LobbyOptions
from bot.service import GameService
from bot.storage import SqliteStorage
from present.messages import render_message
from rules_engine.actions import ActionKind
from web import protocol
from web.activity import DiscordOAuth
from web.activity_gate import ActivityGate
from web.app import WebConfig, WebServer
from web.tokens import Signer
from web.wording import WEB_WORDING

#: Debian's Chromium (``apt-get install -y chromium``); Playwright downloads no browser.
CHROMIUM = os.environ.get("DURAK_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: The phone the touch tests and screenshots use (portrait, CSS pixels).
PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 800}
#: The most moves a whole game may take before a test gives up (a game takes far fewer).
MAX_MOVES = 400
#: Counts the sockets the page opens (``window.sockets``), as the page opens them.
COUNT_SOCKETS = """
window.sockets = 0;
window.WebSocket = class extends window.WebSocket {
  constructor(...args) {
    super(...args);
    window.sockets += 1;
  }
};
"""

#: Any attribute value (Playwright matches attributes against a regular expression).
_ANY = re.compile(r".+")


def chromium_problem() -> str | None:
    """Why the browser tests cannot run here, or ``None``."""
    if importlib.util.find_spec("playwright") is None:
        return "Playwright is not installed (pip install -e '.[dev]')"
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return f"no Chromium at {CHROMIUM} (apt-get install -y chromium)"
    return None


async def launch_chromium(pw: Any) -> Any:
    return await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


@asynccontextmanager
async def chromium() -> AsyncIterator[Any]:
    """A headless Chromium (``/usr/bin/chromium``), closed when the block ends."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await launch_chromium(pw)
        try:
            yield browser
        finally:
            await browser.close()


@asynccontextmanager
async def chromium_on(web: LocalWeb) -> AsyncIterator[Any]:
    """Start ``web`` and a headless Chromium (the screenshot scripts' set-up): the browser,
    both closed when the block ends."""
    async with web, chromium() as browser:
        yield browser


async def open_page(
    browser: Any, url: str, *, socket_route: Any = None, **context: Any
) -> TablePage:
    """A new page (its own context: own storage) at ``url``, its first table shown.  Motion
    is reduced (as the player's system may ask) so clicks need not wait for animations.
    ``socket_route``: a Playwright WebSocket route handler for the page's socket."""
    options = {"viewport": DESKTOP, "reduced_motion": "reduce", **context}
    ctx = await browser.new_context(**options)
    page = await ctx.new_page()
    if socket_route is not None:
        await page.route_web_socket("**/ws", socket_route)
    player = TablePage(page)
    await page.goto(url)
    await player.ready()
    return player


async def page_barrier(page: Any) -> None:
    """Wait until ``page`` has run every task queued on it before now: a task queued after
    them answers over the same connection that carries the page's events (a dialog it
    opened reaches us first, and an open alert holds the answer until it is dismissed)."""
    async with asyncio.timeout(10):
        await page.evaluate("() => new Promise((resolve) => setTimeout(resolve, 0))")


async def animations_done(page: Any) -> None:
    """Wait until every CSS animation and transition running on ``page`` has finished
    (``getAnimations()`` applies pending style changes first, so a change just made counts)."""
    async with asyncio.timeout(10):
        await page.evaluate("() => Promise.all(document.getAnimations().map((a) => a.finished))")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalWeb:
    """The real :class:`GameService` (AI moves without delay, deals from ``seed`` on) and
    :class:`WebServer` on a free port of 127.0.0.1; ``web_options`` go to its
    :class:`WebConfig`, ``gate`` is the Activity's (with ``oauth``)."""

    def __init__(
        self, db: Path, seed: int, gate: ActivityGate | None = None, **web_options: Any
    ) -> None:
        self.db = db
        self.ai = ThreadAI()
        seeds = itertools.count(seed)
        self.service = GameService(
            SqliteStorage(str(db)),
            ai=self.ai,
            ai_delay=0.0,
            turn_timeout=MAX_TIMEOUT,
            seed_source=lambda: next(seeds),
        )
        port = free_port()
        self.base = f"http://127.0.0.1:{port}"
        config = WebConfig(
            public_url=self.base, host="127.0.0.1", port=port, access_log=False, **web_options
        )
        self.server = WebServer(self.service, Signer(secrets.token_bytes(32)), config, gate)

    async def start(self) -> None:
        await self.service.restore()
        await self.server.start()

    async def close(self) -> None:
        await self.server.stop()
        await self.service.close()
        await self.ai.close()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


_Web = TypeVar("_Web", bound=LocalWeb)


@asynccontextmanager
async def local_webs(
    kind: Callable[..., _Web], folder: Path, name: str
) -> AsyncIterator[Callable[..., Awaitable[_Web]]]:
    """``await make(**options)`` makes a started ``kind(db, **options)``, each on a database
    of its own in ``folder`` (``name0.sqlite3``, ...); every one made is closed at the end."""
    made: list[_Web] = []

    async def make(**options: Any) -> _Web:
        web = kind(folder / f"{name}{len(made)}.sqlite3", **options)
        made.append(web)
        await web.start()
        return web

    try:
        yield make
    finally:
        for web in reversed(made):
            await web.close()


class LocalTable(LocalWeb):
    """One channel's game served on 127.0.0.1: ``name`` (user ``user``) against AI seats, on
    the real :class:`GameService` and :class:`WebServer`, AI moves without delay, deals from
    ``seed`` on; ``deck``, ``show_trump`` and ``teams`` are the lobby's table options."""

    channel = 1
    guild = 1

    def __init__(
        self,
        db: Path,
        *,
        players: int = 2,
        rules: str = "podkidnoy",
        level: str = "beginner",
        seed: int = 7,
        user: int = 1,
        name: str = "Alice",
        oauth: DiscordOAuth | None = None,
        gate: ActivityGate | None = None,
        deck: int | None = None,
        show_trump: bool | None = None,
        teams: str | None = None,
    ) -> None:
        super().__init__(db, seed, gate, oauth=oauth)
        self.players, self.rules, self.level = players, rules, level
        self.deck, self.show_trump, self.teams = deck, show_trump, teams
        self.seed, self.user, self.name = seed, user, name
        self.series_id = 0

    async def start(self) -> None:
        await super().start()
        await self.service.open_lobby(
            self.channel,
            self.guild,
            self.user,
            self.name,
            LobbyOptions(
                rules=self.rules,
                seats=self.players,
                turn_timeout=MAX_TIMEOUT,
                deck=self.deck,
                show_trump=self.show_trump,
                teams=self.teams,
            ),
        )
        for _ in range(self.players - 1):
            await self.service.add_ai(self.channel, self.user, self.level)
        table = await self.service.start(self.channel, self.user)
        self.series_id = table.series_id

    def url(self, user: int | None = None, locale: str | None = None) -> str:
        """The player's personal link (token in the fragment)."""
        return self.server.links.player(self.channel, user or self.user, self.series_id, locale)

    async def why_not(self, card: str) -> str:
        """Why the player may not play ``card`` of their hand now, as the web table words it
        (in English)."""
        view = await self.service.hand(self.channel, self.user)
        names = [s.name for s in (await self.service.table(self.channel)).seats]
        held = next(c for c in view.cards if c.text == card)
        assert held.reason is not None, f"{card} can be played"
        return render_message(held.reason, names, wording=WEB_WORDING)


class TablePage:
    """A player's page (or a frame holding the table), used as a player uses it; a page's
    errors are noted in :attr:`errors`."""

    def __init__(self, page: Any, *, frame: bool = False) -> None:
        from playwright.async_api import expect

        self.page = page
        self.expect = expect
        self.hand = page.locator("#hand")
        self.errors: list[str] = []
        #: The page's frame rate as the server counts it, with room for its hello and pings:
        #: a hurried robot waits for it before a move as a player's hand never needs to.
        self.pace = protocol.TokenBucket(protocol.BURST - 4, protocol.RATE - 1)
        if not frame:
            page.on("pageerror", lambda error: self.errors.append(str(error)))

    def card(self, text: str) -> Any:
        """A card of the hand, by its accessible name (``9♥``)."""
        return self.page.get_by_role("button", name=text, exact=True)

    def button(self, name: str) -> Any:
        return self.page.get_by_role("button", name=name, exact=True)

    async def version(self) -> str:
        return str(await self.hand.get_attribute("data-version"))

    async def moved_from(self, version: str, timeout: float = 10_000) -> None:
        """Wait until the hand shows a newer state than ``version``."""
        await self.expect(self.hand).not_to_have_attribute("data-version", version, timeout=timeout)

    async def ready(self) -> None:
        """Wait for the first table and hand."""
        await self.expect(self.hand).to_have_attribute("data-version", _ANY, timeout=10_000)

    async def my_turn_or_over(self) -> bool:
        """Wait until it is this player's turn (``True``) or the game is over (``False``)."""
        await self.page.locator("body.my-turn, body.game-done").first.wait_for(timeout=15_000)
        return await self.page.locator("body.game-done").count() == 0

    async def playable(self) -> list[str]:
        """The names of the cards that can be played now (not ``aria-disabled``)."""
        names = await self.hand.locator("button:not([aria-disabled='true'])").evaluate_all(
            "buttons => buttons.map(b => b.getAttribute('aria-label'))"
        )
        return [str(n) for n in names]

    async def dimmed(self) -> list[str]:
        names = await self.hand.locator("button[aria-disabled='true']").evaluate_all(
            "buttons => buttons.map(b => b.getAttribute('aria-label'))"
        )
        return [str(n) for n in names]

    async def tap(self, text: str) -> None:
        """Click a card where it shows in the fan (its left edge: the next card may cover
        the rest of it)."""
        card = self.card(text)
        box = await card.bounding_box()
        assert box is not None, f"{text} is not on screen"
        await card.click(position={"x": min(14, box["width"] / 3), "y": box["height"] / 2})

    async def tap_dimmed(self, text: str) -> None:
        """Click a card marked ``aria-disabled`` where it shows (Playwright's own click
        waits for an enabled element; a player's finger does not)."""
        x, y = await self.point_on(text)
        await self.page.mouse.click(x, y)

    async def point_on(self, text: str) -> tuple[float, float]:
        """A point of the page on the visible part of hand card ``text``."""
        box = await self.card(text).bounding_box()
        assert box is not None
        return box["x"] + min(14, box["width"] / 3), box["y"] + box["height"] / 2

    async def move(self) -> str:
        """One move as a hurried player makes it: Pass when adding is optional, else the
        first card that can be played (the chooser's first choice if it asks), else Take.
        Returns what was pressed."""
        while not self.pace.take():
            await asyncio.sleep(0.05)
        if await self.button("Pass").is_visible():
            await self.button("Pass").click()
            return "Pass"
        playable = await self.playable()
        if playable:
            await self.tap(playable[0])
            chooser = self.page.locator("#chooser")
            if await chooser.is_visible():
                await chooser.locator("#chooser-options button").first.click()
            return playable[0]
        await self.button("Take").click()
        return "Take"

    async def play_until(self, wanted: Callable[[TablePage], Awaitable[bool]]) -> None:
        """Play hurried moves until, on this player's turn, ``wanted(self)`` holds."""
        for _ in range(MAX_MOVES):
            assert await self.my_turn_or_over(), "the game ended before the wanted position"
            if await wanted(self):
                return
            version = await self.version()
            await self.move()
            await self.moved_from(version)
        raise AssertionError("the wanted position never came")

    async def play_to_end(self) -> int:
        """Play this player's moves until the game is over; the number of moves made."""
        moves = 0
        while await self.my_turn_or_over():
            version = await self.version()
            await self.move()
            moves += 1
            assert moves < MAX_MOVES, "the game does not end"
            await self.moved_from(version)
        return moves


#: A show-trump table: perevodnoy with showing a trump, one player against one AI.
SHOW_TABLE: dict[str, Any] = {"players": 2, "rules": "perevodnoy", "show_trump": True}


async def show_now(table: LocalTable) -> str | None:
    """The trump this player may show now (``None``: no show is legal)."""
    hand = await table.service.hand(table.channel, table.user)
    return next((str(a.cards[0]) for a in hand.legal if a.kind is ActionKind.SHOW), None)


async def play_to_a_show(
    browser: Any, local_table: Callable[..., Awaitable[LocalTable]], **context: Any
) -> tuple[LocalTable, TablePage, str]:
    """A show-trump table (:data:`SHOW_TABLE`, made by ``local_table``) played with hurried
    moves until this player may show a trump, on the first seed that gets there: the table,
    the page (``context``: its browser context's options) and the trump."""
    for seed in range(1, 40):
        table = await local_table(seed=seed, **SHOW_TABLE)
        player = await open_page(browser, table.url(), **context)

        async def showing(p: TablePage, table: LocalTable = table) -> bool:
            return await show_now(table) is not None

        try:
            await player.play_until(showing)
        except AssertionError:
            await player.page.close()
            continue
        card = await show_now(table)
        assert card is not None
        return table, player, card
    raise AssertionError("no deal let this player show a trump")
