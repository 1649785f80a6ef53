"""The coach's review in the browser (issue 32): at game over the player's "Review my game"
opens a panel with a progress bar, then the summary with the chart and the pages of the
marked decisions (Previous/Next), for that player only; each decision's page replays the
table as the player saw it, their hand then, the move made marked "You" and the better move
marked "Better"."""

from __future__ import annotations

from typing import Any

from rules_engine.actions import ActionKind, parse_action
from rules_engine.ai.review import DecisionReview


async def _check_felt(player: Any, decision: DecisionReview) -> None:
    """The decision's felt: the hand then (in its order), the two moves marked on it."""
    felt = player.page.locator("#review-body .review-felt")
    await player.expect(felt).to_be_visible()
    cards = felt.locator(".rf-hand .rf-card")
    await player.expect(cards).to_have_count(len(decision.hand))
    assert [await c.get_attribute("data-card") for c in await cards.all()] == list(decision.hand)
    for key, text, mark in (("you", decision.action, "You"), ("better", decision.best, "Better")):
        action = parse_action(text)
        marked = felt.locator(f".rf-hand .rf-card.rf-{key}")
        if action.kind in (ActionKind.TAKE, ActionKind.PASS):
            chip = felt.locator(f".rf-chip.rf-{key}")
            await player.expect(chip).to_have_attribute("data-kind", action.kind.value)
            await player.expect(marked).to_have_count(0)
        else:
            in_hand = [str(c) for c in action.cards if str(c) in decision.hand]
            assert in_hand, f"{text} plays no card of the hand"
            await player.expect(marked).to_have_count(len(in_hand))
            assert {await c.get_attribute("data-card") for c in await marked.all()} == set(in_hand)
        if action.kind is ActionKind.DEFEND:  # the attack it covers is ringed on the table
            target = felt.locator(f".pair .attack.rf-target-{key}")
            await player.expect(target).to_have_attribute("data-card", str(action.cards[0]))
        await player.expect(felt.locator(f".rf-mark-{key}").first).to_have_text(mark)
    await _check_piles(felt)


async def _check_piles(felt: Any) -> None:
    """The others' fans (at most 3 backs, and the count read out) and the stock's pile (its
    count, the trump card under it while one is left) agree with the numbers they show."""
    fans = await felt.evaluate(
        """root => [...root.querySelectorAll(".rf-seat .rf-fan")].map((fan) => ({
          backs: fan.querySelectorAll(".card-back").length,
          count: fan.querySelector(".card-count").textContent,
          label: fan.querySelector(".card-count").getAttribute("aria-label"),
        }))"""
    )
    assert fans, "no other seat on the felt"
    for fan in fans:
        assert fan["backs"] == min(int(fan["count"]), 3), fan
        assert fan["label"] == f"Cards: {fan['count']}", fan
    stock = await felt.evaluate(
        """root => {
          const box = root.querySelector(".rf-stock");
          const count = box.querySelector(".stock-pile .pile-count");
          return {
            label: box.getAttribute("aria-label"),
            count: count ? count.textContent : "0",
            trump: box.querySelectorAll(".stock-pile .trump-card").length,
          };
        }"""
    )
    left = int(stock["label"].split(":")[1].split(".")[0])
    assert stock["count"] == str(left), stock
    assert stock["trump"] == (1 if left and "(" in stock["label"] else 0), stock


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
    assert marked, "the game gave no marked decision to replay"
    for decision in marked:
        await nxt.click()
        await player.expect(body).to_contain_text(f"Move {decision.index + 1}:")
        await player.expect(body).to_contain_text("Your hand:")
        await player.expect(chart).to_be_hidden()
        await _check_felt(player, decision)
    await player.expect(nxt).to_be_disabled()
    await prev.click()  # back through the pages to the summary, its chart again
    await player.expect(body.locator(".review-felt")).to_have_count(1 if len(marked) > 1 else 0)
    await page.locator("#review-close").click()
    await player.expect(panel).to_be_hidden()
    # the game-over table as it was: the end panel over the last table, nothing of the review
    await player.expect(page.locator("#game-over")).to_be_visible()
    await player.expect(button).to_be_visible()
    assert await page.locator("#app .review-felt").count() == 0
    assert player.errors == []
