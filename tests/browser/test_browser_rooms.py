"""Rooms in the real browser: two people (two browser contexts) meet through the invite link
as guests, with an AI seat, and play a game to the durak; hostile names; a reload mid-game;
the abuse limits as the page shows them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest_asyncio
from playwright.async_api import expect

from bot.realm import WEB_REALM
from web.rooms import RoomLimits

from .rooms_support import (
    HOSTILE,
    RoomServer,
    create_room,
    game_of_two,
    join_room,
    new_page,
    room_form,
    table_in,
)
from .support import local_webs, page_barrier


@pytest_asyncio.fixture
async def rooms(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    async with local_webs(RoomServer, tmp_path, "rooms") as make:
        yield make


async def test_two_guests_and_an_ai_play_a_whole_game(browser: Any, rooms: Any) -> None:
    server = await rooms()
    ann = await new_page(browser)
    invite = await create_room(ann, server.base, "Ann", seats=3)
    assert invite.startswith(f"{server.base}/room#") and len(invite.split("#")[1]) == 22
    bob = await new_page(browser)
    await join_room(bob, invite, "Bob")
    # the host's lobby shows the new guest without a reload
    await expect(ann.locator("#seats .seat-name")).to_have_text(["Ann", "Bob"])
    await expect(bob.locator("#host-tools")).to_be_hidden()
    await ann.select_option("#level", "beginner")
    await ann.click("#add-ai")
    await expect(bob.locator("#seats .seat-name")).to_have_text(["Ann", "Bob", "Beginner AI"])
    await ann.click("#start")
    ann_table, bob_table = await table_in(ann), await table_in(bob)
    await asyncio.gather(ann_table.play_to_end(), bob_table.play_to_end())
    over = ann_table.page.locator("#over-text")
    await expect(over).to_contain_text("durak")
    assert ann.dialogs == [] and bob.dialogs == []
    assert ann.errors == [] and bob.errors == []
    # the room's game is in the realm's records, not rated
    assert await server.service.storage.ratings(WEB_REALM) == {}


async def test_hostile_names_are_refused_or_shown_as_text(browser: Any, rooms: Any) -> None:
    server = await rooms()
    ann = await new_page(browser)
    invite = await create_room(ann, server.base, "Ann")
    bob = await new_page(browser)
    await join_room(bob, invite, "x" * 500)
    await expect(bob.locator("#error")).to_contain_text("at most 32 characters")
    await bob.fill("#name", "Bob\u200f")
    await bob.click("#join-button")
    await expect(bob.locator("#error")).to_contain_text("direction marks")
    await bob.fill("#name", HOSTILE)
    await bob.click("#join-button")
    await expect(ann.locator("#seats .seat-name").nth(1)).to_have_text(HOSTILE)
    await expect(bob.locator("#seats .seat-name").nth(1)).to_have_text(HOSTILE)
    assert await ann.locator("#seats img").count() == 0
    assert await bob.locator("img").count() == 0
    await asyncio.gather(page_barrier(ann), page_barrier(bob))
    assert ann.dialogs == [] and bob.dialogs == []


async def test_a_reload_mid_game_returns_the_guest_to_the_seat(browser: Any, rooms: Any) -> None:
    server = await rooms()
    _ann, bob = await game_of_two(browser, server.base)
    before = await table_in(bob)
    cards = await before.hand.locator("button").count()
    await bob.reload()
    after = await table_in(bob)
    await expect(after.hand.locator("button")).to_have_count(cards)
    await expect(bob.locator("#join")).to_be_hidden()
    await expect(after.page.locator("#me-info")).to_contain_text("Bob")


async def test_leaving_a_game_asks_first_then_forfeits(browser: Any, rooms: Any) -> None:
    server = await rooms()
    _ann, bob = await game_of_two(browser, server.base)
    await table_in(bob)
    await bob.click("#leave-game")
    await expect(bob.locator("#confirm")).to_be_visible()
    await bob.click("#confirm-no")
    channel = server.service.channels_in(WEB_REALM)[0]
    assert not (await server.service.table(channel)).seats[1].forfeited
    await bob.click("#leave-game")
    await bob.click("#confirm-yes")
    await expect(bob.locator("#leave-game")).to_be_hidden()
    assert (await server.service.table(channel)).seats[1].forfeited
    assert bob.dialogs == []


async def test_the_abuse_limits_answer_on_the_page(browser: Any, rooms: Any) -> None:
    server = await rooms(limits=RoomLimits(rooms_per_hour=1, sockets_per_address=2))
    ann = await new_page(browser)
    invite = await create_room(ann, server.base, "Ann")
    await ann.goto(f"{server.base}/")
    await ann.fill("#name", "Ann")
    await ann.click("#create-button")
    await expect(ann.locator("#error")).to_contain_text("too many rooms in the last hour")
    # a second page joins (2 sockets from this address), a third is told why
    bob = await new_page(browser)
    await join_room(bob, invite, "Bob")
    await ann.goto(invite)
    await expect(ann.locator("#lobby")).to_be_visible()
    cy = await new_page(browser)
    await cy.goto(invite)
    await cy.fill("#name", "Cy")
    await cy.click("#join-button")
    await expect(cy.locator("#error")).to_contain_text("Too many pages are open from your address")


async def test_the_home_page_refuses_what_durak_new_refuses(browser: Any, rooms: Any) -> None:
    server = await rooms()
    page = await new_page(browser)
    await room_form(page, server.base, "Ann")
    await page.fill("#turn_timeout", "5")
    await page.click("#create-button")
    await expect(page.locator("#error")).to_contain_text("Turn_timeout must be 15–600 seconds")
    assert server.service.channels_in(WEB_REALM) == []
