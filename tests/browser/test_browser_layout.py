"""The table fits every common screen: on phones (360x640, 390x844), a tablet (768x1024),
laptops (1280x720, 1366x768) and a desktop (1920x1080), on the channel's table page and
inside a room's page, with 2 and 6 seats and a 12-card hand, nothing a player must see
overlaps anything else or is cut off: the seats, the table's pairs, the stock with its trump
card, the discard, the cards shown at the deal, the hand's cards and the buttons (their boxes
as the browser lays them out: :mod:`tests.browser.layout_support`).  Each table is checked in
its first round (the cards shown at the deal) and in a later round (a discard pile).
``python -m tests.browser.layout_screenshots`` keeps the first-round screens in docs/layout/.

How the table reads at a glance: the trump card under the stock is upright with its corner
showing; a hand that waits for another's turn looks (and is announced) otherwise than cards
that cannot be played on the player's turn."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import expect

from web.strings import page_strings
from web.wording import catalog

from .layout_support import (
    DESKTOP_SIZE,
    VIEWPORTS,
    Crowd,
    layout_problems,
    open_crowded,
    room_chrome_problems,
)
from .rooms_support import RoomServer

EN = page_strings("table", catalog("en"))


@pytest_asyncio.fixture
async def pages_server(tmp_path: Path) -> AsyncIterator[RoomServer]:
    """The web server, for its pages only (the sockets are the test's fake)."""
    server = RoomServer(tmp_path / "pages.sqlite3")
    await server.start()
    try:
        yield server
    finally:
        await server.close()


@pytest.mark.parametrize("seats", [2, 6])
@pytest.mark.parametrize("in_room", [False, True], ids=["table", "room"])
async def test_nothing_overlaps_or_is_cut_off_on_common_screens(
    browser: Any, pages_server: RoomServer, in_room: bool, seats: int
) -> None:
    problems: list[str] = []
    for viewport in VIEWPORTS:
        where = f"{'room' if in_room else 'table'}, {seats} seats, {viewport[0]}x{viewport[1]}"
        page, table, fake = await open_crowded(
            browser, pages_server.base, Crowd(seats), viewport, in_room=in_room
        )
        try:
            await table.locator("#shown .shown-card").first.wait_for()
            problems += [f"{where}, first round: {p}" for p in await layout_problems(table)]
            if in_room:
                problems += [f"{where}: {p}" for p in await room_chrome_problems(page)]
            fake.push(Crowd(seats, shown=False))
            await table.locator("#discard .discard-back").first.wait_for()
            await table.locator("#shown").wait_for(state="hidden")
            problems += [f"{where}, later round: {p}" for p in await layout_problems(table)]
        finally:
            await page.context.close()
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("viewport", [VIEWPORTS[0], DESKTOP_SIZE], ids=["phone", "desktop"])
async def test_the_trump_card_is_upright_with_its_corner_showing(
    browser: Any, pages_server: RoomServer, viewport: tuple[int, int]
) -> None:
    page, table, _ = await open_crowded(
        browser, pages_server.base, Crowd(2), viewport, in_room=False
    )
    trump = table.locator("#stock .trump-card")
    await expect(trump).to_have_attribute("aria-label", "Q♥")
    # upright: no rotation (a sideways 6 reads as a 9)
    matrix = await trump.evaluate("el => new DOMMatrix(getComputedStyle(el).transform)")
    assert abs(matrix["b"]) < 1e-6 and abs(matrix["c"]) < 1e-6 and matrix["a"] > 0, matrix
    # its corner (rank and suit) is not under the stock: the card itself is there
    on_top = await trump.evaluate(
        """el => {
          const r = el.getBoundingClientRect();
          const at = (fx, fy) =>
            document.elementFromPoint(r.left + r.width * fx, r.top + r.height * fy);
          return [at(0.12, 0.15), at(0.16, 0.3)].map((n) => Boolean(n && n.closest(".trump-card")));
        }"""
    )
    assert on_top == [True, True]
    await expect(table.locator("#stock")).to_have_attribute("aria-label", re.compile(r"\(Q♥\)"))
    await page.context.close()


async def _looks(card: Any) -> dict[str, Any]:
    return dict(
        await card.evaluate(
            """b => ({
              filter: getComputedStyle(b.querySelector(".card-face")).filter,
              disabled: b.getAttribute("aria-disabled"),
            })"""
        )
    )


async def test_not_your_turn_looks_and_reads_otherwise_than_a_card_that_cannot_be_played(
    browser: Any, pages_server: RoomServer
) -> None:
    page, table, fake = await open_crowded(
        browser, pages_server.base, Crowd(2, your_turn=False), DESKTOP_SIZE, in_room=False
    )
    note = table.locator("#hand-waiting")
    await expect(note).to_be_visible()
    await expect(note).to_have_text(EN["not_your_turn"])
    card = table.get_by_role("button", name="6♠", exact=True)
    # another's turn: the card keeps its colours, and is described as waiting for the turn
    looks = await _looks(card)
    assert looks == {"filter": "none", "disabled": "true"}, looks
    await expect(card).to_have_accessible_description(EN["not_your_turn"])

    fake.push(Crowd(2))  # the player's turn: 6♠ cannot be played, K♦ can
    await expect(note).to_be_hidden()
    looks = await _looks(card)
    assert looks["disabled"] == "true" and "brightness" in looks["filter"], looks
    await expect(card).to_have_accessible_description("6♠ does not beat Q♦")
    playable = table.get_by_role("button", name="K♦", exact=True)
    assert await _looks(playable) == {"filter": "none", "disabled": None}
    await page.context.close()
