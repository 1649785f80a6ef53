"""The hand: a hint on a dimmed card (and the hints switch), the chooser of a card with
several uses, and playing with the keyboard only (Tab, Enter, Esc)."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from present.messages import render_message
from web.wording import WEB_WORDING

from .support import TablePage, open_page

#: A card tapped while it cannot be played (hints off) shakes instead of explaining.
SHAKE = re.compile(r"\bshake\b")


async def _uses(table: Any) -> Counter[str]:
    """How many legal actions play each card of the player's hand now."""
    hand = await table.service.hand(table.channel, table.user)
    return Counter(str(c) for action in hand.legal for c in action.uses)


async def test_a_dimmed_card_says_why_it_cannot_be_played_with_hints_on(table_page: Any) -> None:
    table, player = await table_page(players=2, seed=5)
    page = player.page

    async def some_dimmed(p: TablePage) -> bool:
        return bool(await p.dimmed())

    await player.play_until(some_dimmed)
    card = (await player.dimmed())[0]
    await player.expect(player.card(card)).to_have_attribute("aria-disabled", "true")
    view = await table.service.hand(table.channel, table.user)
    names = [s.name for s in (await table.service.table(table.channel)).seats]
    held = next(c for c in view.cards if c.text == card)
    assert held.reason is not None
    reason = render_message(held.reason, names, wording=WEB_WORDING)

    version = await player.version()
    await player.tap_dimmed(card)
    hint = page.locator(".toast-hint")
    await player.expect(hint).to_contain_text(card)
    await player.expect(hint).to_contain_text(reason, ignore_case=True)
    assert await player.version() == version  # nothing was played

    # hints off: no glow, no dimming, no hint; the choice is remembered after a reload
    await page.get_by_role("button", name="Settings").click()
    await page.get_by_label("Hints").uncheck()
    await hint.first.click()  # dismiss the earlier hint
    await player.expect(hint).to_have_count(0)
    await player.tap_dimmed(card)
    await player.expect(player.card(card)).to_have_class(SHAKE)
    await player.expect(hint).to_have_count(0)
    await page.reload()
    await player.ready()
    await player.expect(page.locator("body")).not_to_have_class("hints-on")
    assert player.errors == []


async def test_a_card_with_several_uses_asks_which_and_esc_cancels(table_page: Any) -> None:
    table, player = await table_page(players=2, rules="perevodnoy", seed=3)
    page = player.page

    async def two_uses(p: TablePage) -> bool:
        return any(n > 1 for n in (await _uses(table)).values())

    await player.play_until(two_uses)
    uses = await _uses(table)
    card = next(c for c, n in uses.items() if n > 1)
    version = await player.version()

    await player.tap(card)
    chooser = page.get_by_role("dialog")
    await player.expect(chooser).to_be_visible()
    options = chooser.locator("#chooser-options button")
    await player.expect(options).to_have_count(uses[card])
    await page.keyboard.press("Escape")
    await player.expect(chooser).to_be_hidden()
    assert await player.version() == version  # Esc plays nothing

    await player.tap(card)
    await player.expect(chooser).to_be_visible()
    label = await options.last.inner_text()
    await options.last.click()
    await player.moved_from(version)
    hand = await table.service.hand(table.channel, table.user)
    assert card not in [c.text for c in hand.cards]
    assert label  # the choice was offered by its translated label
    assert player.errors == []


async def test_the_keyboard_plays_a_card_tab_then_enter(table_page: Any) -> None:
    table, player = await table_page(players=2, seed=11)
    page = player.page

    async def single_use_card(p: TablePage) -> bool:
        return 1 in (await _uses(table)).values()

    await player.play_until(single_use_card)
    uses = await _uses(table)
    card = next(c for c in await player.playable() if uses[c] == 1)
    version = await player.version()
    # Tab from the top of the page until the card has the focus (every card is reachable)
    await page.locator("body").focus()
    for _ in range(40):
        await page.keyboard.press("Tab")
        if await player.card(card).evaluate("b => b === document.activeElement"):
            break
    else:
        raise AssertionError(f"Tab never reached {card}")
    await player.expect(player.card(card)).to_be_focused()
    await page.keyboard.press("Enter")
    await player.moved_from(version)
    await player.expect(player.card(card)).to_have_count(0)
    assert player.errors == []


async def test_the_page_offers_each_choice_on_the_cards_it_uses(
    browser: Any, local_table: Any
) -> None:
    """The page reads which hand cards a choice plays from the HAND frame's ``uses``, not
    from the choice's kind and cards.  A relay moves an attack's ``uses`` onto a card that
    cannot be played: the page then offers that attack on that card (tapping it plays the
    attack) and no longer on the card the attack names."""
    table = await local_table(players=2, seed=11)
    moved: dict[int, tuple[str, str, str]] = {}  # version: (card named, card offered, text)

    def move_a_choice(frame: dict[str, Any]) -> None:
        hand = frame["hand"]
        if not hand["your_turn"] or hand["finished"]:
            return
        count = Counter(c for a in hand["legal"] for c in a["uses"])
        dimmed = [c for c in hand["cards"] if not c["playable"]]
        single = [
            a
            for a in hand["legal"]
            if a["kind"] == "attack" and len(a["uses"]) == 1 and count[a["uses"][0]] == 1
        ]
        if dimmed and single:
            choice, other = single[0], dimmed[0]
            moved[hand["version"]] = (choice["uses"][0], other["card"], choice["text"])
            choice["uses"] = [other["card"]]
            other["playable"], other["reason"] = True, None

    def relay(page_side: Any) -> None:
        server_side = page_side.connect_to_server()
        page_side.on_message(lambda message: server_side.send(message))

        def to_page(message: str | bytes) -> None:
            frame = json.loads(message)
            if frame.get("t") == "hand":
                move_a_choice(frame)
                message = json.dumps(frame, ensure_ascii=False)
            page_side.send(message)

        server_side.on_message(to_page)

    player = await open_page(browser, table.url(), socket_route=relay)

    async def a_choice_moved(p: TablePage) -> bool:
        return int(await p.version()) in moved

    await player.play_until(a_choice_moved)
    version = await player.version()
    named, offered, text = moved[int(version)]
    await player.expect(player.card(named)).to_have_attribute("aria-disabled", "true")
    await player.expect(player.card(offered)).not_to_have_attribute("aria-disabled", "true")
    await player.tap(offered)
    await player.moved_from(version)
    await table.service.wait_idle()
    view = await table.service.table(table.channel)
    mine = next(r for r in reversed(view.recent) if r.seat == 0)
    assert mine.text == text  # the attack the moved choice stood for was played
    hand = await table.service.hand(table.channel, table.user)
    assert named not in [c.text for c in hand.cards]
    assert player.errors == []


async def test_a_hint_names_its_card_once(browser: Any, local_table: Any) -> None:
    table = await local_table(players=2, seed=5)
    player = await open_page(browser, table.url())
    names = [s.name for s in (await table.service.table(table.channel)).seats]

    async def reasons() -> dict[str, str]:
        """The hand's cards that cannot be played, with their reason as the page has it."""
        view = await table.service.hand(table.channel, table.user)
        return {
            c.text: render_message(c.reason, names, wording=WEB_WORDING)
            for c in view.cards
            if c.reason is not None
        }

    async def a_reason_names_its_card(p: TablePage) -> bool:
        return any(card in reason for card, reason in (await reasons()).items())

    await player.play_until(a_reason_names_its_card)
    card, reason = next((c, r) for c, r in (await reasons()).items() if c in r)
    await player.tap_dimmed(card)
    hint = player.page.locator(".toast-hint")
    await player.expect(hint).to_have_text(reason[0].upper() + reason[1:])
    assert (await hint.inner_text()).count(card) == 1
    assert player.errors == []
