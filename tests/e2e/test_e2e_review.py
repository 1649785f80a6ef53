"""The coach's review through Discord (issue 32): the game-over message's "Review my game"
opens each player's own private review (its summary, then ◀ ▶ through the marked decisions),
``/durak review`` answers the same from the store, and someone who did not play is told so."""

from __future__ import annotations

import pytest

from cogs.custom_ids import parse_review_id

from .durak_e2e import EPHEMERAL, MakeHarness, prefer

pytestmark = pytest.mark.e2e

DEALS = 4  # a small budget: this checks the surfaces, not the precision


def _nav(message) -> dict[str, tuple[str, bool]]:
    found = {}
    for c in message.find_components():
        if c.custom_id and c.custom_id.startswith("durak:review:"):
            found[parse_review_id(c.custom_id).nav] = (c.custom_id, c.disabled)
    return found


async def test_each_player_reviews_their_own_game_privately(harness: MakeHarness) -> None:
    h = harness(seeds=[11])
    alice, pierre = h.user("alice"), h.user("pierre", locale="fr")
    await h.start_with_game(alice, join=[pierre], rules="podkidnoy", seats=2)
    h.service._reviews.deals = DEALS
    await h.play(prefer("attack", "take", "defend", "pass", "transfer"))
    await h.idle()
    view = await h.table_view()
    assert view.finished
    game_id = view.game_id
    over = h.last_table()
    button = f"durak:review:{game_id}:0:open"
    assert button in over.custom_ids

    # Alice presses it: a new private message, the summary of her review
    rec = await alice.press(over, button)
    cb = await rec.wait_response()
    assert cb.type == 5 and cb.data.get("flags", 0) & EPHEMERAL
    await h.idle()  # the review is made in the AI workers (their first start included)
    review = await rec.wait_original(predicate=lambda m: bool(m.embeds))
    assert review.ephemeral and review.visible_to == alice.id
    text = review.text()
    assert f"Review — game {game_id}" in text and "Accuracy " in text
    # while it was made, the message said how far it got
    assert any("reviewing your game: 1 of" in v.content for v in review.versions)
    # the chart of the game, attached as a PNG and shown in the summary
    assert [a["filename"] for a in review.attachments] == ["review.png"]
    assert review.embeds[0]["image"]["url"] == "attachment://review.png"
    nav = _nav(review)
    assert nav["prev"][1]  # the summary is the first page
    stored_review = await h.storage.load_review(game_id, alice.id, DEALS, 0)
    assert stored_review is not None

    # ▶ through her marked decisions to the end, each page her hand and her choices
    pages = 0
    while not _nav(review)["next"][1]:
        custom_id = _nav(review)["next"][0]
        step = await alice.press(review, custom_id)
        assert (await step.wait_response()).type == 6  # the review message edited in place
        await h.idle()
        assert "Your hand:" in review.text() and "(your move" in review.text()
        assert not review.attachments  # a decision's page: no chart
        pages += 1
    assert pages == parse_review_id(_nav(review)["prev"][0]).page + 1

    # Pierre's own, in French
    rec = await pierre.press(over, button)
    await h.idle()
    mine = await rec.wait_original(predicate=lambda m: bool(m.embeds))
    assert mine.visible_to == pierre.id and "Précision " in mine.text()

    # /durak review: her last game, read from the store
    rec = await h.slash(alice, "review")
    await h.answered(rec)
    again = rec.original_message
    assert again is not None and again.ephemeral and "Accuracy " in again.text()

    # someone who did not play is told so, privately, and nothing is stored for them
    bob = h.user("bob")
    rec = await h.slash(bob, "review", game=game_id)
    await h.answered(rec)
    refusal = rec.followups[0] if rec.followups else rec.original_message
    assert refusal is not None and "did not play" in refusal.text()
    assert await h.storage.load_review(game_id, bob.id, DEALS, 0) is None
