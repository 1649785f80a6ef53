"""The coach's review in the browser (issue 32): at game over the player's "Review my game"
opens a panel with a progress bar, then the summary with the chart and the pages of the
marked decisions (Previous/Next), for that player only."""

from __future__ import annotations

from typing import Any


async def test_the_player_reviews_the_game_at_game_over(table_page: Any) -> None:
    table, player = await table_page(players=2, seed=7)
    table.service._reviews.deals = 4  # a small budget: the page is checked, not the precision
    page = player.page
    await player.play_to_end()
    view = await table.service.table(table.channel)
    assert view.finished
    await player.expect(page.locator("#game-over")).to_be_visible()
    button = player.button("Review my game")
    await player.expect(button).to_be_visible()
    await button.click()
    panel = page.locator("#review")
    await player.expect(panel).to_be_visible()
    body = page.locator("#review-body")
    await player.expect(body).to_contain_text("Accuracy", timeout=60_000)
    await player.expect(page.locator("#review-progress")).to_be_hidden()
    chart = page.locator("#review-chart")
    await player.expect(chart).to_be_visible()
    assert (await chart.get_attribute("src") or "").startswith("data:image/svg+xml")
    prev, nxt = page.locator("#review-prev"), page.locator("#review-next")
    await player.expect(prev).to_be_disabled()
    stored = await table.service.review(view.guild_id, view.seats[0].user_id, view.game_id)
    marked = [
        d for d in stored.review.decisions if d.label.value in ("inaccuracy", "mistake", "blunder")
    ]
    for decision in marked:
        await nxt.click()
        await player.expect(body).to_contain_text(f"Move {decision.index + 1}:")
        await player.expect(body).to_contain_text("Your hand:")
        await player.expect(chart).to_be_hidden()
    await player.expect(nxt).to_be_disabled()
    await page.locator("#review-close").click()
    await player.expect(panel).to_be_hidden()
    assert player.errors == []
