"""What each close code does on the pages (docs/WEB.md): after a refusal that cannot heal by
itself (a bad or expired token, no game or a closed room, a frame too big, a room closed for
being idle, a refusal the page does not know yet, WebSocket's own "policy" and "too big")
the page says why and never connects again; after a close that can heal (too
many frames, too many sockets from the address, a restart, a server error, a slow page) it
reconnects by itself.

The server is a fake (Playwright's WebSocket route) that refuses the hello with the code, an
``error`` frame first where the protocol sends one.  The page's clock is Playwright's: a
minute of the page's time runs in an instant, so "never connects again" is checked after
every reconnect timer the page could have set has fired, without waiting; until then the
clock stands still, so no timer fires before the test looks."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import expect

from web.strings import page_strings
from web.wording import catalog

from .layout_support import ROOM, ROOM_TOKEN
from .rooms_support import RoomServer
from .support import COUNT_SOCKETS

#: Codes after which the page stops, with the error frame's reason (None: no error frame).
FINAL = {
    4001: "This link has expired: open the table again from the game",
    4004: "There is no game in this channel",
    4009: "The page sent a message that is too big",
    4010: "This room was closed after a long time without play",
    4099: "A refusal this page does not know yet",
    1008: None,
    1009: None,
}
#: Codes after which the page connects again by itself.
RETRY = {
    4008: "The page sent too many messages: reload it",
    4029: "Too many pages are open from your address",
    1011: None,
    1012: None,
    1013: None,
}
EN = page_strings("table", catalog("en"))
START = datetime(2030, 1, 1)
ROOM_EN = page_strings("room", catalog("en"))


@pytest_asyncio.fixture
async def pages_server(tmp_path: Path) -> AsyncIterator[RoomServer]:
    """The web server, for its pages only (the sockets are the test's fake)."""
    server = RoomServer(tmp_path / "pages.sqlite3")
    await server.start()
    try:
        yield server
    finally:
        await server.close()


class Refuser:
    """A fake page socket server that refuses every hello with ``code`` (after an ``error``
    frame with ``reason``, if any), counting the page's connections."""

    def __init__(self, code: int, reason: str | None) -> None:
        self.code, self.reason = code, reason
        self.connections = 0

    async def handle(self, ws: Any) -> None:
        self.connections += 1

        async def refuse(message: str | bytes) -> None:
            if json.loads(message).get("t") != "hello":
                return
            if self.reason is not None:
                frame = {"t": "error", "reason": self.reason, "code": self.code}
                ws.send(json.dumps(frame))
            await ws.close(code=self.code)

        ws.on_message(refuse)


async def _open(browser: Any, base: str, path: str, refuser: Refuser) -> Any:
    context = await browser.new_context(reduced_motion="reduce")
    await context.route_web_socket("**/ws", refuser.handle)
    await context.route_web_socket("**/ws/room", refuser.handle)
    await context.add_init_script(f"localStorage.setItem('durak.room.{ROOM}', '{ROOM_TOKEN}')")
    await context.add_init_script(COUNT_SOCKETS)
    page = await context.new_page()
    # the page's clock stands still until the test runs it: no reconnect timer fires by itself
    await page.clock.install(time=START)
    await page.clock.pause_at(datetime(2030, 1, 1, 0, 0, 1))
    await page.goto(base + path)
    return page


async def _stays_closed(page: Any, refuser: Refuser) -> None:
    """The socket is closed for good: a minute of the page's time later (every timer the page
    set has fired), it opened no other socket."""
    root = page.locator("html")
    await expect(root).to_have_attribute("data-socket", "closed")
    assert await page.evaluate("window.sockets") == 1 == refuser.connections
    await page.clock.run_for(60_000)
    await expect(root).to_have_attribute("data-socket", "closed")
    assert await page.evaluate("window.sockets") == 1


async def _reconnects(page: Any, refuser: Refuser) -> None:
    """The page waits, then connects again by itself."""
    await expect(page.locator("html")).to_have_attribute("data-socket", "reconnecting")
    assert await page.evaluate("window.sockets") == 1
    await page.clock.run_for(15_000)
    assert await page.evaluate("window.sockets") >= 2


@pytest.mark.parametrize("code", sorted(FINAL))
async def test_the_table_stops_with_the_reason_after_a_final_refusal(
    browser: Any, pages_server: RoomServer, code: int
) -> None:
    refuser = Refuser(code, FINAL[code])
    page = await _open(browser, pages_server.base, "/table#t=a-token", refuser)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # without the server's reason, the page's own words (a frame too big: the link's token)
    words = FINAL[code] or (EN["bad_link"] if code == 1009 else EN["closed"])
    await expect(page.locator("#banner")).to_have_text(words)
    await expect(page.locator("#banner")).to_have_class("banner banner-error")
    await _stays_closed(page, refuser)
    assert errors == []


@pytest.mark.parametrize("code", sorted(RETRY))
async def test_the_table_reconnects_after_a_close_that_can_heal(
    browser: Any, pages_server: RoomServer, code: int
) -> None:
    refuser = Refuser(code, RETRY[code])
    page = await _open(browser, pages_server.base, "/table#t=a-token", refuser)
    banner = page.locator("#banner")
    await expect(banner).to_contain_text(EN["reconnecting"])
    if RETRY[code]:
        await expect(banner).to_contain_text(RETRY[code])  # why, while it waits
    await _reconnects(page, refuser)


@pytest.mark.parametrize("code", sorted(FINAL))
async def test_a_room_stops_with_the_reason_after_a_final_refusal(
    browser: Any, pages_server: RoomServer, code: int
) -> None:
    refuser = Refuser(code, FINAL[code])
    page = await _open(browser, pages_server.base, f"/room#{ROOM}", refuser)
    words = FINAL[code] or (ROOM_EN["bad_invite"] if code == 1009 else ROOM_EN["closed"])
    if code == 4001:
        # the guest's token is refused: it is forgotten, and the guest may sit down again
        await expect(page.locator("#join")).to_be_visible()
        await expect(page.locator("#error")).to_have_text(words)
        kept = await page.evaluate(f"localStorage.getItem('durak.room.{ROOM}')")
        assert not kept
    elif code in (4004, 4010):
        await expect(page.locator("#over")).to_be_visible()
        await expect(page.locator("#over-title")).to_have_text(words)
    else:
        await expect(page.locator("#error")).to_have_text(words)
    await _stays_closed(page, refuser)


@pytest.mark.parametrize("code", sorted(RETRY))
async def test_a_room_reconnects_after_a_close_that_can_heal(
    browser: Any, pages_server: RoomServer, code: int
) -> None:
    refuser = Refuser(code, RETRY[code])
    page = await _open(browser, pages_server.base, f"/room#{ROOM}", refuser)
    await _reconnects(page, refuser)
    if RETRY[code]:
        await expect(page.locator("#error")).to_have_text(RETRY[code])
