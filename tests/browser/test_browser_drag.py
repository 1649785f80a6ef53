"""Dragging cards: with a mouse on a desktop page (onto the table: an attack), and with a
finger on a phone-sized touch page (onto an attack card: beat it), through the DevTools
protocol's touch events; a drop that cannot be played says why and the card goes back."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from present.messages import render_message
from web.strings import page_strings
from web.wording import WEB_WORDING, catalog

from .support import PHONE, TablePage, open_page

EN = page_strings("table", catalog("en"))

#: The drop target under the dragged card is marked (and lit) before the drop.
DROP_OVER = re.compile(r"\bdrop-ok\b.*\bdrop-over\b")


async def _leading(player: TablePage) -> bool:
    """This player opens a round: the table is empty and cards can be played."""
    return await player.page.locator("#pairs .card").count() == 0 and bool(await player.playable())


async def _defending(player: TablePage) -> bool:
    """An attack waits to be beaten and this player holds a card that beats it."""
    attacks = player.page.locator("#pairs [data-drop='attack']")
    return await attacks.count() == 1 and bool(await player.playable())


async def test_a_card_dragged_with_the_mouse_onto_the_table_attacks(table_page: Any) -> None:
    table, player = await table_page(players=2, seed=11)
    await player.play_until(_leading)
    hand = await table.service.hand(table.channel, table.user)
    # a card with one thing to do on the table (a pair could also attack together: that asks)
    uses = Counter(str(c) for a in hand.legal for c in a.cards)
    card = next(c for c in await player.playable() if uses[c] == 1)
    version = await player.version()
    x0, y0 = await player.point_on(card)
    battle = await player.page.locator("#battle").bounding_box()
    x1, y1 = battle["x"] + battle["width"] / 2, battle["y"] + battle["height"] / 2
    mouse = player.page.mouse
    await mouse.move(x0, y0)
    await mouse.down()
    for i in range(1, 9):
        await mouse.move(x0 + (x1 - x0) * i / 8, y0 + (y1 - y0) * i / 8)
    await player.expect(player.page.locator("#battle")).to_have_class(DROP_OVER)
    await mouse.up()
    await player.moved_from(version)

    # the card left the hand and the service recorded it as this player's attack
    await player.expect(player.card(card)).to_have_count(0)
    view = await table.service.table(table.channel)
    mine = next(s.seat for s in view.seats if s.user_id == table.user)
    assert any(
        r.seat == mine and r.kind == "attack" and card in map(str, r.cards) for r in view.recent
    )
    assert player.errors == []


async def test_a_card_dragged_by_touch_onto_an_attack_beats_it_on_a_phone(
    browser: Any, local_table: Any
) -> None:
    table = await local_table(players=2, seed=11)
    player = await open_page(browser, table.url(), viewport=PHONE, has_touch=True, is_mobile=True)
    await player.play_until(_defending)
    page = player.page
    attack = page.locator("#pairs [data-drop='attack']")
    attacked = await attack.get_attribute("data-attack")
    hand = await table.service.hand(table.channel, table.user)
    card = next(
        str(a.cards[1]) for a in hand.legal if a.kind == "defend" and str(a.cards[0]) == attacked
    )
    version = await player.version()
    x0, y0 = await player.point_on(card)
    box = await attack.bounding_box()
    x1, y1 = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    cdp = await page.context.new_cdp_session(page)

    async def touch(kind: str, x: float, y: float) -> None:
        points = [] if kind == "touchEnd" else [{"x": x, "y": y}]
        await cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    await touch("touchStart", x0, y0)
    for i in range(1, 11):
        await touch("touchMove", x0 + (x1 - x0) * i / 10, y0 + (y1 - y0) * i / 10)
    await player.expect(attack).to_have_class(DROP_OVER)
    await touch("touchEnd", x1, y1)
    await player.moved_from(version)

    view = await table.service.table(table.channel)
    mine = next(s.seat for s in view.seats if s.user_id == table.user)
    assert any(
        r.seat == mine and r.kind == "defend" and [str(c) for c in r.cards] == [attacked, card]
        for r in view.recent
    )
    assert player.errors == []


async def _drag(player: TablePage, card: str, target: Any) -> None:
    """Drag hand card ``card`` with the mouse and drop it on the middle of ``target``."""
    x0, y0 = await player.point_on(card)
    box = await target.bounding_box()
    x1, y1 = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    mouse = player.page.mouse
    await mouse.move(x0, y0)
    await mouse.down()
    for i in range(1, 9):
        await mouse.move(x0 + (x1 - x0) * i / 8, y0 + (y1 - y0) * i / 8)
    await mouse.up()


async def test_a_card_dropped_where_it_cannot_go_says_why_and_returns(
    browser: Any, local_table: Any
) -> None:
    """A card that can only transfer, dropped on the attack it cannot beat: the hint says so
    (and how to transfer), and the card is back in the hand; nothing was sent."""
    table = await local_table(players=2, rules="perevodnoy", seed=3)
    player = await open_page(browser, table.url())

    async def transfer_only(p: TablePage) -> str | None:
        hand = await table.service.hand(table.channel, table.user)
        kinds: dict[str, set[str]] = {}
        for action in hand.legal:
            for card in action.uses:
                kinds.setdefault(str(card), set()).add(action.kind.value)
        return next((c for c, k in kinds.items() if k == {"transfer"}), None)

    async def wanted(p: TablePage) -> bool:
        return await transfer_only(p) is not None and await _defending(p)

    await player.play_until(wanted)
    card = await transfer_only(player)
    assert card is not None
    attack = player.page.locator("#pairs [data-drop='attack']")
    attacked = await attack.get_attribute("data-attack")
    version = await player.version()
    await _drag(player, card, attack)

    hint = player.page.locator(".toast-hint")
    await player.expect(hint).to_have_text(
        EN["transfer_beside"].replace("{card}", card).replace("{attack}", str(attacked))
    )
    # back in the hand, not played, nothing waiting for an answer
    await player.expect(player.card(card)).to_be_visible()
    await player.expect(player.card(card)).not_to_have_class(re.compile(r"\bdragging\b"))
    await player.expect(player.hand).not_to_have_class(re.compile(r"\bbusy\b"))
    assert await player.version() == version
    hand = await table.service.hand(table.channel, table.user)
    assert card in [c.text for c in hand.cards] and hand.version == int(version)
    assert player.errors == []


async def test_a_card_that_cannot_be_played_dropped_on_the_table_says_why(
    browser: Any, local_table: Any
) -> None:
    table = await local_table(players=2, seed=5)
    player = await open_page(browser, table.url())

    async def some_dimmed(p: TablePage) -> bool:
        return bool(await p.dimmed())

    await player.play_until(some_dimmed)
    card = (await player.dimmed())[0]
    view = await table.service.hand(table.channel, table.user)
    names = [s.name for s in (await table.service.table(table.channel)).seats]
    held = next(c for c in view.cards if c.text == card)
    assert held.reason is not None
    reason = render_message(held.reason, names, wording=WEB_WORDING)
    version = await player.version()
    await _drag(player, card, player.page.locator("#battle"))
    hint = player.page.locator(".toast-hint")
    await player.expect(hint).to_contain_text(reason, ignore_case=True)
    await player.expect(player.card(card)).to_be_visible()
    assert await player.version() == version
    assert player.errors == []
