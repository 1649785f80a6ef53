"""The coach's review on the web table (issue 32): a player's page asks for the review of its
own decisions at game over, sees its progress, then gets its summary, chart and pages; a
watcher or someone who did not play is refused; the table keeps playing meanwhile."""

from __future__ import annotations

from .conftest import ALICE, BOB, CAROL, GUILD, WebTable

DEALS = 4  # a small budget: the page's side is checked, not the precision


async def _finished(table: WebTable) -> int:
    table.service._reviews.deals = DEALS
    await table.game(ALICE, BOB)
    done = await table.play_out()
    return done.game_id


async def test_a_player_gets_their_own_review_with_its_progress(table: WebTable) -> None:
    game = await _finished(table)
    alice = await table.page(table.player(ALICE), lang="fr")
    await alice.next("table")
    await alice.send({"t": "review", "seq": 3, "game": game})
    review = await alice.next("review", timeout=60)
    progress = alice.of("review_progress")
    total = progress[-1]["total"]
    assert [p["done"] for p in progress] == list(range(1, total + 1))
    assert all(p["seq"] == 3 for p in progress)
    assert review["seq"] == 3 and review["game"] == game
    assert review["summary"][0].startswith("Précision ")
    assert review["chart"].startswith("<svg ") and "<text" not in review["chart"]
    for page in review["pages"]:
        assert page["lines"][1].startswith("Votre main : ")
        assert page["label"] in ("inaccuracy", "mistake", "blunder")
    stored = await table.service.review(GUILD, ALICE, game)
    assert stored.stored and stored.review.accuracy == review["accuracy"]
    # Bob's page gets Bob's own review: another seat's decisions
    bob = await table.page(table.player(BOB))
    await bob.next("table")
    await bob.send({"t": "review", "seq": 1, "game": game})
    theirs = await bob.next("review", timeout=60)
    assert theirs["summary"][0].startswith("Accuracy ")
    assert (await table.service.review(GUILD, BOB, game)).review.seat == 1


async def test_watchers_and_strangers_are_refused(table: WebTable) -> None:
    game = await _finished(table)
    watcher = await table.page(table.watcher())
    await watcher.next("table")
    await watcher.send({"t": "review", "seq": 1, "game": game})
    refused = await watcher.next("result")
    assert refused["ok"] is False and "players" in refused["reason"]
    carol = await table.page(table.player(CAROL))  # a token, but she did not play
    await carol.next("table")
    await carol.send({"t": "review", "seq": 2, "game": game})
    refused = await carol.next("result", timeout=30)
    assert refused["ok"] is False and "did not play" in refused["reason"]
    await carol.send({"t": "review", "seq": 3, "game": "x"})
    assert (await carol.next("result"))["ok"] is False
    assert not carol.of("review") and not watcher.of("review")
