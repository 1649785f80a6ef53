"""The page's connection: a move sent from a state that has changed meanwhile is refused
(the reason shown, the page brought up to date), a dropped socket is reconnected by itself
(the token kept in the tab), after which the game goes on, and a link the real server
refuses ends with the server's reason, without reconnecting."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import datetime
from typing import Any

from playwright.async_api import expect

from bot.errors import StaleAction
from present.messages import render_message
from web.wording import WEB_WORDING

from .support import COUNT_SOCKETS, TablePage, open_page


async def test_a_move_from_a_changed_table_is_refused_and_the_page_catches_up(
    browser: Any, local_table: Any
) -> None:
    table = await local_table(players=2, seed=11)
    # The page's socket runs through a relay that can hold back the server's table and hand
    # frames: the page then still shows the older state, as a slow network would.
    holding = False

    def relay(page_side: Any) -> None:
        server_side = page_side.connect_to_server()
        page_side.on_message(lambda message: server_side.send(message))

        def to_page(message: str | bytes) -> None:
            nonlocal holding
            kind = json.loads(message).get("t")
            if holding and kind in ("table", "hand"):
                return  # held back
            if kind == "result":
                holding = False  # from the answer on, the page hears everything again
            page_side.send(message)

        server_side.on_message(to_page)

    player = await open_page(browser, table.url(), socket_route=relay)

    async def card_and_another_move(p: TablePage) -> bool:
        hand = await table.service.hand(table.channel, table.user)
        uses = Counter(str(c) for a in hand.legal for c in a.cards)
        return any(uses[c] == 1 for c in await p.playable()) and len(hand.legal) > 1

    await player.play_until(card_and_another_move)
    hand = await table.service.hand(table.channel, table.user)
    uses = Counter(str(c) for a in hand.legal for c in a.cards)
    card = next(c for c in await player.playable() if uses[c] == 1)
    other = next(a for a in hand.legal if card not in map(str, a.cards))
    shown = await player.version()

    # The same player moves another way (as with a Discord button) while the page is behind.
    holding = True
    await table.service.act(
        table.channel, table.user, other.text, hand.version, game_id=hand.game_id
    )
    await table.service.wait_idle()
    assert await player.version() == shown  # the page did not hear of it
    await player.tap(card)

    reason = render_message(StaleAction.default_message, wording=WEB_WORDING)
    await player.expect(player.page.locator(".toast-stale")).to_contain_text(
        reason, ignore_case=True
    )
    now = await table.service.hand(table.channel, table.user)
    await player.expect(player.hand).to_have_attribute("data-version", str(now.version))
    # the refused card was not played
    assert card in [c.text for c in now.cards] or now.finished
    assert player.errors == []


async def test_a_dropped_socket_reconnects_and_the_game_goes_on(table_page: Any) -> None:
    table, player = await table_page(players=2, seed=11)
    page = player.page
    pages = table.server.parts.presenter.pages
    assert len(pages(table.channel)) == 1

    for conn in pages(table.channel):
        await conn.ws.close(code=1012)  # the server drops the page (as a restart would)
    banner = page.locator("#banner")
    await player.expect(banner).to_contain_text("reconnecting")
    await player.expect(banner).to_be_hidden(timeout=10_000)
    assert len(pages(table.channel)) == 1  # the page came back, with the token it kept
    assert "#t=" not in page.url

    # the game goes on from the reconnected page
    version = await player.version()
    assert await player.my_turn_or_over()
    await player.move()
    await player.moved_from(version)
    assert player.errors == []


async def test_a_link_the_server_refuses_ends_with_its_reason_and_no_reconnect(
    browser: Any, local_table: Any
) -> None:
    table = await local_table(players=2, seed=7)
    context = await browser.new_context(reduced_motion="reduce")
    await context.add_init_script(COUNT_SOCKETS)
    page = await context.new_page()
    await page.clock.install(time=datetime(2030, 1, 1))
    await page.clock.pause_at(datetime(2030, 1, 1, 0, 0, 1))
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(f"{table.base}/table#t=not.a-token")  # the real server refuses it: 4001
    banner = page.locator("#banner")
    await expect(page.locator("html")).to_have_attribute("data-socket", "closed")
    # the server's own sentence: "This link is not valid: open the table again from the game"
    await expect(banner).to_have_text(re.compile(r"^This link is not valid", re.IGNORECASE))
    await page.clock.run_for(60_000)  # every reconnect timer would have fired by now
    assert await page.evaluate("window.sockets") == 1
    await expect(page.locator("html")).to_have_attribute("data-socket", "closed")
    assert errors == []
    await context.close()
