"""The table options in the real browser (issue 30): showing a trump to transfer, by tapping
the card (its chooser's "Show 9♦") and by dragging it onto the table; a 2×2 table with each
seat's team visible; a room of two teams where a guest switches team."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest_asyncio
from playwright.async_api import expect

from bot.realm import WEB_REALM
from rules_engine.actions import ActionKind

from .rooms_support import RoomServer, join_room, new_page, room_form
from .support import LocalTable, local_webs, open_page, play_to_a_show


async def _shown_by_me(table: LocalTable, card: str) -> None:
    """The service recorded this player's show of ``card``, and the card stayed in hand."""
    view = await table.service.table(table.channel)
    mine = next(s.seat for s in view.seats if s.user_id == table.user)
    assert any(r.seat == mine and r.kind is ActionKind.SHOW for r in view.recent)
    assert [(s.seat, str(s.card)) for s in view.round_shown] == [(mine, card)]
    hand = await table.service.hand(table.channel, table.user)
    assert card in [c.text for c in hand.cards]


async def test_a_trump_is_shown_by_tapping_it_and_choosing_show(
    browser: Any, local_table: Any
) -> None:
    table, player, card = await play_to_a_show(browser, local_table)
    page = player.page
    # the show is a button named by its card, above the hand
    await expect(player.button(f"Show {card}")).to_be_visible()
    version = await player.version()
    await player.tap(card)
    chooser = page.locator("#chooser")
    await expect(chooser).to_be_visible()
    show = chooser.get_by_role("button", name=f"Show {card}", exact=True)
    await expect(show).to_be_visible()
    await show.click()
    await player.moved_from(version)
    await _shown_by_me(table, card)
    # the table says who showed which trump, with the card; the card is still in the hand
    shown = page.locator("#shown .round-shown")
    await expect(shown).to_have_count(1)
    await expect(shown).to_contain_text(f"Alice showed {card}")
    await expect(player.card(card)).to_be_visible()
    assert player.errors == []


async def test_a_trump_is_shown_by_dragging_it_onto_the_table(
    browser: Any, local_table: Any
) -> None:
    table, player, card = await play_to_a_show(browser, local_table)
    page = player.page
    version = await player.version()
    x0, y0 = await player.point_on(card)
    battle = await page.locator("#battle").bounding_box()
    x1, y1 = battle["x"] + battle["width"] / 2, battle["y"] + battle["height"] * 0.85
    mouse = page.mouse
    await mouse.move(x0, y0)
    await mouse.down()
    for i in range(1, 9):
        await mouse.move(x0 + (x1 - x0) * i / 8, y0 + (y1 - y0) * i / 8)
    await mouse.up()
    # dropped beside the attacks, the trump may transfer by being played or by being shown
    chooser = page.locator("#chooser")
    await expect(chooser).to_be_visible()
    names = await chooser.locator("#chooser-options button").all_inner_texts()
    assert f"Show {card}" in names and all(n.startswith(("Transfer", "Show")) for n in names)
    await chooser.get_by_role("button", name=f"Show {card}", exact=True).click()
    await player.moved_from(version)
    await _shown_by_me(table, card)
    assert player.errors == []


async def test_a_two_against_two_table_shows_each_seats_team(
    browser: Any, local_table: Any
) -> None:
    table = await local_table(players=4, teams="2x2", seed=3)
    player = await open_page(browser, table.url())
    page = player.page
    await player.ready()
    view = await table.service.table(table.channel)
    assert [s.team for s in view.seats] == [0, 1, 0, 1]
    # every seat, the player's own included, carries its team's colour and name
    for team, label in ((0, "Team 1"), (1, "Team 2")):
        seats = page.locator(f".seat.team-{team}")
        await expect(seats).to_have_count(2)
        await expect(seats.locator(".badge-team")).to_have_text([label, label])
    mine = next(s.seat for s in view.seats if s.user_id == table.user)
    await expect(page.locator(f"#me-info .seat.team-{mine % 2}")).to_have_count(1)
    # the pack's size beside the stock
    await expect(page.locator("#stock .pack-size")).to_have_text("36-card pack")
    assert player.errors == []


@pytest_asyncio.fixture
async def rooms(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    async with local_webs(RoomServer, tmp_path, "rooms") as make:
        yield make


async def test_a_two_against_two_room_shows_its_teams_and_a_guest_switches(
    browser: Any, rooms: Any
) -> None:
    server = await rooms()
    ann = await new_page(browser)
    await room_form(ann, server.base, "Ann")
    await ann.select_option("#teams", '"2x2"')
    await expect(ann.locator("#seats")).to_have_value("4")  # teams set the table's size
    await ann.click("#create-button")
    await expect(ann.locator("#lobby")).to_be_visible()
    invite = await ann.locator("#invite-link").input_value()
    bob = await new_page(browser)
    await join_room(bob, invite, "Bob")
    # the teams, each with its players and free places; a newcomer joins the smaller team
    teams = bob.locator("#seats .team")
    await expect(teams).to_have_count(2)
    await expect(teams.nth(0).locator(".team-name")).to_have_text("Team 1 (1/2)")
    await expect(teams.nth(1).locator(".team-seats .seat-name")).to_have_text(["Bob"])
    # Bob moves to Ann's team: both pages see it
    await bob.get_by_role("button", name="Switch team").click()
    await expect(bob.locator("#seats .team").nth(0).locator(".seat-name")).to_have_text(
        ["Ann", "Bob"]
    )
    await expect(ann.locator("#seats .team").nth(0).locator(".seat-name")).to_have_text(
        ["Ann", "Bob"]
    )
    # that team is full now: Ann's page offers no move into it, only to the other team
    await expect(ann.get_by_role("button", name="Switch team")).to_be_enabled()
    await expect(ann.locator("#seats .team").nth(0).locator(".switch-team")).to_have_count(0)
    # the host fills the other team with AI seats and starts: the table shows the teams
    await ann.click("#add-ai")
    await ann.click("#add-ai")
    await expect(ann.locator("#start")).to_be_enabled()
    await ann.click("#start")
    frame = ann.frame_locator("#table")
    await expect(frame.locator(".seat.team-0")).to_have_count(2)
    await expect(frame.locator(".seat.team-1")).to_have_count(2)
    assert ann.errors == [] and bob.errors == []


async def test_the_room_form_shows_the_engines_sentence_for_a_refused_combination(
    browser: Any, rooms: Any
) -> None:
    server = await rooms()
    page = await new_page(browser)
    await room_form(page, server.base, "Ann")
    await page.select_option("#rules", "perevodnoy")
    await page.select_option("#teams", '"2x2"')
    await page.click("#create-button")
    await expect(page.locator("#error")).to_have_text(
        "Teams '2x2' are played without transfers: turn transfer off"
    )
    assert server.service.channels_in(WEB_REALM) == []
    # the form stays as it was, ready for another choice
    await expect(page.locator("#create-button")).to_be_enabled()
    assert page.errors == []
