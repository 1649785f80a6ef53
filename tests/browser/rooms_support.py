"""What the rooms' browser tests share: the game service and the web server on 127.0.0.1
(rooms only: nothing is opened in advance), and the table page inside a room's frame."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from web.rooms import RoomLimits

from .support import DESKTOP, LocalWeb, TablePage

#: A name that would run a script if a page ever wrote it as HTML.
HOSTILE = "<img src=x onerror=alert(1)>"


class RoomServer(LocalWeb):
    """The real service and web server on a free port of 127.0.0.1 (AI moves at once), rooms
    only: nothing is opened in advance."""

    def __init__(self, db: Path, limits: RoomLimits | None = None, seed: int = 5) -> None:
        super().__init__(db, seed, room_limits=limits or RoomLimits())


class FrameTable(TablePage):
    """The web table inside a room page's frame, played as :class:`TablePage` plays it."""

    def __init__(self, frame: Any) -> None:
        super().__init__(frame, frame=True)


async def new_page(browser: Any, **context: Any) -> Any:
    """A page in a context of its own (its own storage: another person)."""
    ctx = await browser.new_context(**{"viewport": DESKTOP, "reduced_motion": "reduce", **context})
    page = await ctx.new_page()
    page.dialogs = []

    async def dismiss(dialog: Any) -> None:  # noted, then closed: the page goes on
        page.dialogs.append(dialog.message)
        await dialog.dismiss()

    page.on("dialog", dismiss)
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


async def room_form(page: Any, base: str, name: str) -> None:
    """Open the home page, wait until its options are listed, and type ``name``."""
    from playwright.async_api import expect

    await page.goto(f"{base}/")
    await expect(page.locator("#rules option")).not_to_have_count(0)
    await expect(page.locator("#teams option")).not_to_have_count(0)
    await page.fill("#name", name)


async def create_room(page: Any, base: str, name: str, seats: int = 3) -> str:
    """Create a room from the home page as ``name``; the invite link it shows."""
    from playwright.async_api import expect

    await room_form(page, base, name)
    await page.select_option("#seats", str(seats))
    await page.click("#create-button")
    await expect(page.locator("#lobby")).to_be_visible()
    return str(await page.locator("#invite-link").input_value())


async def join_room(page: Any, invite: str, name: str) -> None:
    """Open the invite link and sit down as ``name``."""
    from playwright.async_api import expect

    await page.goto(invite)
    await expect(page.locator("#join")).to_be_visible()
    await page.fill("#name", name)
    await page.click("#join-button")


async def game_of_two(browser: Any, base: str) -> tuple[Any, Any]:
    """Ann opens a room of two seats at ``base``, Bob joins by her invite link, and Ann
    starts the game: their two pages."""
    from playwright.async_api import expect

    ann = await new_page(browser)
    invite = await create_room(ann, base, "Ann", seats=2)
    bob = await new_page(browser)
    await join_room(bob, invite, "Bob")
    await expect(ann.locator("#seats .seat-name")).to_have_count(2)
    await ann.click("#start")
    return ann, bob


async def table_in(page: Any) -> FrameTable:
    """The table of a room page (its frame), once its first hand shows."""
    from playwright.async_api import expect

    await expect(page.locator("#game")).to_be_visible(timeout=10_000)
    handle = await page.wait_for_selector("#table")
    frame = await handle.content_frame()
    assert frame is not None
    table = FrameTable(frame)
    await table.ready()
    return table
