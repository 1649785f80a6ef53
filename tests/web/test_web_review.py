"""The coach's review on the web table (issue 32): a player's page asks for the review of its
own decisions at game over, sees its progress, then gets its summary, chart and pages; a
watcher or someone who did not play is refused; the table keeps playing meanwhile."""

from __future__ import annotations

from present.review import choice_label
from rules_engine.actions import parse_action
from rules_engine.cards import CARD_TEXT, mask_text
from rules_engine.deal import Deal
from rules_engine.game import Game
from rules_engine.rules import Rules
from web.review import felt_json
from web.wording import catalog

from .conftest import ALICE, BOB, CAROL, GUILD, WebTable

DEALS = 4  # a small budget: the page's side is checked, not the precision
EN = catalog("en")


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


def _cards_in(value: object) -> set[str]:
    """Every card text anywhere in a frame's value (its strings, split on spaces)."""
    if isinstance(value, str):
        return {w.strip(",.:;()") for w in value.split()}
    if isinstance(value, dict):
        return set().union(*map(_cards_in, value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*map(_cards_in, value)) if value else set()
    return set()


async def _game_at(table: WebTable, game: int, index: int) -> Game:
    """The stored game replayed up to (not including) its action ``index``: the truth."""
    rec = await table.service.storage.load_game(game)
    assert rec is not None
    played = Game(Rules.from_spec(rec.rules), Deal.from_dict(rec.deal))
    for text in rec.actions[:index]:
        played.apply(parse_action(text))
    return played


async def test_each_marked_page_shows_the_table_as_the_player_saw_it(table: WebTable) -> None:
    game = await _finished(table)
    alice = await table.page(table.player(ALICE))
    await alice.next("table")
    await alice.send({"t": "review", "seq": 4, "game": game})
    review = await alice.next("review", timeout=60)
    assert review["pages"], "the first-legal-move player made no marked decision"
    stored = (await table.service.review(GUILD, ALICE, game)).review
    by_move = {d.index + 1: d for d in stored.decisions}
    for page in review["pages"]:
        decision = by_move[page["move"]]
        truth = await _game_at(table, game, decision.index)
        felt = page["felt"]
        assert felt["hand"] == mask_text(truth.hands[0]) == list(decision.hand)
        assert [s["cards"] for s in felt["seats"]] == [h.bit_count() for h in truth.hands]
        assert [s["you"] for s in felt["seats"]] == [True, False]
        assert [s["name"] for s in felt["seats"]] == ["Alice", "Bob"]
        assert [s["role"] for s in felt["seats"]] == [truth.role(0), truth.role(1)]
        assert [(p["attack"], p["defence"]) for p in felt["pairs"]] == truth.table()
        assert felt["stock"] == len(truth.stock) and felt["trump"] == "♠♥♦♣"[truth.trump]
        assert felt["trump_card"] == (CARD_TEXT[truth.stock[0]] if truth.stock else None)
        chosen, better = parse_action(decision.action), parse_action(decision.best)
        assert felt["chosen"] == {
            "kind": chosen.kind.value,
            "cards": [str(c) for c in chosen.cards],
            "text": choice_label(decision.action, EN),
            "mark": "You",
        }
        assert felt["better"]["kind"] == better.kind.value and felt["better"]["mark"] == "Better"
        assert felt["better"]["cards"] == [str(c) for c in better.cards]


async def test_no_page_shows_a_card_of_the_other_hand(table: WebTable) -> None:
    """Privacy: a decision's page (its felt and its lines) names no card the other player
    held hidden then; checked for every decision of both players, not only the marked."""
    game = await _finished(table)
    alice = await table.page(table.player(ALICE))
    await alice.next("table")
    await alice.send({"t": "review", "seq": 5, "game": game})
    review = await alice.next("review", timeout=60)
    checked = 0
    for user, seat in ((ALICE, 0), (BOB, 1)):
        view = await table.service.review(GUILD, user, game)
        names = [p.name for p in view.players]
        pages = [
            {
                "move": d.index + 1,
                "lines": [],
                "felt": felt_json(view.position(d.index), d, seat, names, EN),
            }
            for d in view.review.decisions
        ]
        if user == ALICE:
            pages += review["pages"]
        for page in pages:
            truth = await _game_at(table, game, page["move"] - 1)
            hidden = {
                c
                for s in range(truth.n)
                if s != seat
                for c in mask_text(truth.hands[s] & ~truth.known_cards(s))
            }
            assert page["felt"] is not None
            shown = _cards_in(page["felt"]) | _cards_in(page["lines"])
            assert not shown & hidden, f"move {page['move']} shows {shown & hidden}"
            assert set(page["felt"]["hand"]) == set(mask_text(truth.hands[seat]))
            checked += 1
    assert checked > len(review["pages"])


def test_a_felt_without_a_position_is_null_and_a_best_move_has_no_better() -> None:
    from bot.replay import TablePair
    from bot.views import ReviewPosition, Role
    from rules_engine.ai.choices import ChoiceEstimate
    from rules_engine.ai.review import DecisionReview, Label
    from rules_engine.cards import Suit, parse_card

    take = ChoiceEstimate("1 take", 0.4, 0.0, True, 0)
    cover = ChoiceEstimate("1 defend 9♠ 10♠", 0.2, 0.0, True, 0)
    decision = DecisionReview(3, "1 take", "1 take", Label.BEST, 0.0, ("10♠",), (take, cover))
    assert felt_json(None, decision, 1, ["Ann", "Bob"], EN) is None
    position = ReviewPosition(
        index=3,
        hand=(parse_card("10♠"),),
        cards=(5, 1),
        roles=(Role.LEADER, Role.DEFENDER),
        table=(TablePair(parse_card("9♠")),),
        stock=0,
        discard=20,
        trump=Suit(1),
        trump_card=None,
        to_act=1,
    )
    fr = catalog("fr")
    felt = felt_json(position, decision, 1, ["Ann", "Bob"], fr)
    assert felt is not None
    assert felt["chosen"] == {"kind": "take", "cards": [], "text": "Ramasser", "mark": "Vous"}
    assert felt["better"] is None and felt["hand"] == ["10♠"] and felt["trump_card"] is None
    assert [(s["name"], s["role"], s["you"], s["to_act"]) for s in felt["seats"]] == [
        ("Ann", "leader", False, False),
        ("Bob", "defender", True, True),
    ]
