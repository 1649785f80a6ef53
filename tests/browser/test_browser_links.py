"""Bad links: a table link whose fragment is not a token (a malformed escape, as a cut or
mangled link has; a token too long for any hello) and a room link whose fragment is not a
room say so in the reader's language and stop: no script error, no socket, no reconnects."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import expect

from web.strings import page_strings
from web.wording import catalog

from .rooms_support import RoomServer, new_page

MALFORMED = "%E0%A4%A"  # a three-byte escape cut short: decodeURIComponent throws URIError


@pytest_asyncio.fixture
async def pages_server(tmp_path: Path) -> AsyncIterator[RoomServer]:
    server = RoomServer(tmp_path / "pages.sqlite3")
    await server.start()
    try:
        yield server
    finally:
        await server.close()


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("fragment", [f"t={MALFORMED}", "t=" + "A" * 5000], ids=["escape", "long"])
async def test_a_table_link_that_cannot_hold_a_token_says_it_is_not_valid(
    browser: Any, pages_server: RoomServer, fragment: str, lang: str
) -> None:
    page = await new_page(browser, locale=f"{lang}-{lang.upper()}")
    await page.goto(f"{pages_server.base}/table#{fragment}")
    banner = page.locator("#banner")
    await expect(banner).to_have_text(page_strings("table", catalog(lang))["bad_link"])
    await expect(banner).to_have_class("banner banner-error")
    # the page stopped there: its socket never started (it would have said "connecting")
    assert await page.locator("html").get_attribute("data-socket") is None
    assert "#t=" not in page.url  # the bad link left the address bar too
    assert page.errors == []


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("fragment", [MALFORMED, "not-a-room", ""])
async def test_a_room_link_that_names_no_room_says_it_is_not_valid(
    browser: Any, pages_server: RoomServer, fragment: str, lang: str
) -> None:
    page = await new_page(browser, locale=f"{lang}-{lang.upper()}")
    await page.goto(f"{pages_server.base}/room#{fragment}")
    await expect(page.locator("#over")).to_be_visible()
    await expect(page.locator("#over-title")).to_have_text(
        page_strings("room", catalog(lang))["bad_invite"]
    )
    await expect(page.locator("#join")).to_be_hidden()
    assert await page.locator("html").get_attribute("data-socket") is None
    assert page.errors == []
