"""The views as the page's JSON: names, texts in each language, hands, results."""

from __future__ import annotations

import dataclasses
import json

from bot.outcome import Outcome
from bot.seating import FORMER_PLAYER_ID
from bot.views import ActionChoice, Player
from rules_engine import ActionKind, parse_card
from web.serialize import hand_json, plain_names, table_json, welcome_json
from web.strings import TABLE_STRINGS
from web.wording import catalog

from .conftest import ALICE, BOB, CH, WebTable


async def test_ai_seats_are_named_after_their_level_in_each_language(table: WebTable) -> None:
    view = await table.game(ALICE, ais=("casual", "casual", "expert"), seats=4)
    assert plain_names(view.seats, catalog("en")) == [
        "Alice",
        "Casual AI",
        "Casual AI 2",
        "Expert AI",
    ]
    assert plain_names(view.seats, catalog("fr"))[1:] == [
        "IA Amateur",
        "IA Amateur 2",
        "IA Expert",
    ]


async def test_the_table_in_words(table: WebTable) -> None:
    view = await table.game(ALICE, BOB)
    en = table_json(view, catalog("en"), viewer=0, now=5.0)
    assert en["status_text"] == "Alice to lead the round"
    assert en["rules_text"].startswith("podkidnoy · ")
    assert en["trump"] in "♠♥♦♣" and en["stock"] == 36 - 12 - 0
    assert [s["role"] for s in en["seats"]] == ["leader", "defender"]
    assert [s["role_text"] for s in en["seats"]] == ["leader", "defender"]
    assert en["now"] == 5.0 and en["over_text"] is None and en["can_rematch"] is False
    es = table_json(view, catalog("es"))
    assert es["status_text"] == "Alice abre la ronda"
    assert [s["you"] for s in es["seats"]] == [False, False]
    json.dumps(en, ensure_ascii=False)  # plain JSON


async def test_a_finished_table_names_the_durak_and_offers_a_rematch(table: WebTable) -> None:
    await table.game(ALICE, BOB)
    view = await table.play_out()
    player = table_json(view, catalog("fr"), viewer=0)
    assert player["finished"] and player["to_act"] is None and player["status_text"] is None
    assert view.outcome is not None
    if not view.outcome.losers:
        assert player["over_text"] == "Égalité : personne n’est le durak."
    else:
        loser = view.seats[view.outcome.losers[0]].name
        assert player["over_text"] == f"{loser} est le durak !"
    assert player["can_rematch"] is True
    assert table_json(view, catalog("fr"))["can_rematch"] is False  # a watcher cannot
    assert player["series"]["games"] == 1
    assert [e["name"] for e in player["series"]["standings"]] == ["Alice", "Bob"]


async def test_a_forgotten_player_reads_a_former_player_as_on_discord(table: WebTable) -> None:
    await table.game(ALICE, BOB)
    view = await table.play_out()
    # Alice asked to be forgotten (/durak forget-me): her seat keeps its place, not her name
    seats = tuple(
        dataclasses.replace(s, user_id=FORMER_PLAYER_ID) if s.seat == 0 else s for s in view.seats
    )
    gone = dataclasses.replace(view, seats=seats, outcome=Outcome.durak(0))
    for lang, former in (("en", "a former player"), ("fr", "un ancien joueur")):
        t = catalog(lang)
        frame = table_json(gone, t)
        assert [s["name"] for s in frame["seats"]] == [former, "Bob"]
        assert frame["over_text"] == t.fill("{name} is the durak!", name=former)
        assert "Alice" not in json.dumps(frame["seats"], ensure_ascii=False)
        # a notice names its players the same way
        players = (Player("", former=True), Player("Bob"))
        assert plain_names(players, t) == [former, "Bob"]


async def test_a_hand_with_labels_and_reasons(table: WebTable) -> None:
    await table.game(ALICE, BOB)
    first = await table.service.hand(CH, ALICE)
    await table.service.act(CH, ALICE, first.legal[0].text, 0)
    bob = await table.service.hand(CH, BOB)
    es = hand_json(bob, catalog("es"), ["Alice", "Bob"])
    assert es["your_turn"] and es["seat"] == 1
    kinds = {a["kind"] for a in es["legal"]}
    assert "take" in kinds
    take = next(a for a in es["legal"] if a["kind"] == "take")
    assert (take["text"], take["label"]) == ("take", "Recoger")
    for a in es["legal"]:
        if a["kind"] == "defend":
            assert a["label"].startswith("Cubrir ") and a["text"] == "defend " + " ".join(
                a["cards"]
            )
            assert a["uses"] == a["cards"][1:]  # the beating card, not the attack
    # each choice says which hand cards it plays, as the service's choice does
    assert [a["uses"] for a in es["legal"]] == [[str(c) for c in a.uses] for a in bob.legal]
    assert take["uses"] == []
    # read from the choice, not worked out from its kind: a choice using a card it does not
    # name (as showing a card would) says so
    nine, queen = parse_card("9♠"), parse_card("Q♥")
    shown = dataclasses.replace(bob, legal=(ActionChoice(ActionKind.ATTACK, (nine,), (queen,)),))
    assert hand_json(shown, catalog("en"))["legal"][0]["uses"] == ["Q♥"]
    blocked = [c for c in es["cards"] if not c["playable"]]
    assert blocked and all(c["reason"] for c in blocked)
    assert all(c["reason"] is None for c in es["cards"] if c["playable"])
    assert [c["card"] for c in es["cards"]] == [c.text for c in bob.cards]


def test_welcome_has_every_ui_string() -> None:
    # that each is translated, and looked up by the page: tests/web/test_page_strings.py
    for lang in ("en", "es", "fr"):
        frame = welcome_json("watcher", None, None, 123456789012345678, catalog(lang))
        assert frame["channel"] == "123456789012345678" and frame["lang"] == lang
        assert set(frame["strings"]) == set(TABLE_STRINGS)


async def test_the_benchmark_reads_a_real_table_frames_head(table: WebTable) -> None:
    from apps.web_bench import table_key
    from web.connection import encode

    view = await table.game(ALICE, BOB)
    text = encode({"t": "table", "table": table_json(view, catalog("en"))})
    assert table_key(text) == (view.game_id, view.version)
    assert table_key(encode({"t": "hand", "hand": {}})) is None
