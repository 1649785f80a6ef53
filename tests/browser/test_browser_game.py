"""A whole game in the browser, played by clicks only, to the game-over screen."""

from __future__ import annotations

from typing import Any

from .support import TablePage


async def test_a_whole_game_against_ai_seats_played_by_clicks(table_page: Any) -> None:
    table, player = await table_page(players=3, seed=7)
    page = player.page
    # the token left the address bar as soon as it was read
    assert "#t=" not in page.url

    moves = await player.play_to_end()
    assert moves > 3

    view = await table.service.table(table.channel)
    assert view.finished
    over = page.locator("#game-over")
    await player.expect(over).to_be_visible()
    if not view.outcome.losers:
        await player.expect(over).to_contain_text("draw")
    else:
        durak = view.seats[view.outcome.losers[0]].name
        await player.expect(page.locator("#over-text")).to_contain_text(durak)
        await player.expect(page.locator("#over-text")).to_contain_text("durak")
    # the series standings and the end-of-game buttons
    await player.expect(page.locator("#standings")).to_contain_text("Alice")
    await player.expect(player.button("Rematch")).to_be_visible()
    await player.expect(player.button("End series")).to_be_visible()

    # Rematch deals the next game of the series on the same page
    game = await player.hand.get_attribute("data-game")
    await player.button("Rematch").click()
    await player.expect(over).to_be_hidden()
    await player.expect(player.hand).not_to_have_attribute("data-game", str(game))
    again = await table.service.table(table.channel)
    assert not again.finished and again.game_id != view.game_id
    assert player.errors == []


async def test_a_watcher_sees_the_table_and_no_hand(browser: Any, table_page: Any) -> None:
    table, player = await table_page(players=2, seed=7)
    context = await browser.new_context(reduced_motion="reduce")
    page = await context.new_page()
    await page.goto(table.server.links.watcher(table.channel))
    watcher = TablePage(page)
    await watcher.expect(page.locator("#me-info")).to_contain_text("watching")
    await watcher.expect(page.locator(".seat")).to_have_count(2)  # both players, around it
    assert await page.locator("#hand button").count() == 0
    for name in ("Take", "Pass", "Transfer"):
        await watcher.expect(watcher.button(name)).to_be_hidden()
    # the player's move reaches the watcher
    version = await player.version()
    assert await player.my_turn_or_over()
    await player.move()
    await player.moved_from(version)
    await table.service.wait_idle()  # the AI's answer too
    view = await table.service.table(table.channel)
    await watcher.expect(page.locator("#recent li").last).to_contain_text(
        view.seats[view.recent[-1].seat].name
    )
    assert watcher.errors == [] and player.errors == []
