"""The table options on the web (issue 30): the table's JSON with the pack's size, the teams
and the trumps shown this round; the rooms' form options and refusals; a team room's lobby
frame and switching team over the room socket."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.outcome import Outcome
from bot.views import ShownTrump
from rules_engine import parse_card
from web.serialize import table_json
from web.wording import catalog

from .conftest import ALICE, BOB, CAROL, WebTable
from .test_rooms import Rooms, make_rooms, room_frame


async def test_a_team_table_names_each_seats_team_and_the_pack(table: WebTable) -> None:
    view = await table.game(ALICE, BOB, CAROL, ais=("casual",), teams="2x2", deck=24)
    en = table_json(view, catalog("en"), viewer=0)
    assert en["deck"] == 24 and en["deck_text"] == "24-card pack"
    assert [s["team"] for s in en["seats"]] == [0, 1, 0, 1]
    assert [s["played_by"] for s in en["seats"]] == [0, 1, 2, 3]
    names = [s["name"] for s in en["seats"]]
    assert en["teams"] == [
        {"team": 0, "label": "Team 1", "name": f"Team {names[0]} & {names[2]}"},
        {"team": 1, "label": "Team 2", "name": f"Team {names[1]} & {names[3]}"},
    ]
    fr = table_json(view, catalog("fr"), viewer=0)
    assert fr["deck_text"] != en["deck_text"] and "24" in fr["deck_text"]
    assert fr["teams"][0]["label"] != "Team 1"


async def test_an_individual_table_has_no_teams(table: WebTable) -> None:
    view = await table.game(ALICE, BOB)
    en = table_json(view, catalog("en"))
    assert en["teams"] is None and en["round_shown"] == [] and en["deck"] == 36
    assert {s["team"] for s in en["seats"]} == {None}


async def test_a_shown_trump_is_on_the_table_with_who_showed_it(table: WebTable) -> None:
    view = await table.game(ALICE, BOB, rules="perevodnoy", show_trump=True)
    shown = dataclasses.replace(view, round_shown=(ShownTrump(1, parse_card("9♦")),))
    en = table_json(shown, catalog("en"))
    assert en["round_shown"] == [{"seat": 1, "card": "9♦", "text": "Bob showed 9♦"}]
    es = table_json(shown, catalog("es"))
    assert es["round_shown"][0]["card"] == "9♦" and "Bob" in es["round_shown"][0]["text"]
    # once the game is over nothing stays shown
    over = dataclasses.replace(shown, outcome=Outcome.draw())
    assert table_json(over, catalog("en"))["round_shown"] == []


async def test_a_team_loss_marks_every_loser(table: WebTable) -> None:
    view = await table.game(ALICE, BOB, CAROL, ais=("casual",), teams="2x2")
    lost = dataclasses.replace(view, outcome=Outcome.durak(1, 3, team=True))
    en = table_json(lost, catalog("en"))
    assert en["losers"] == [1, 3] and en["loser"] == 1
    names = [s["name"] for s in en["seats"]]
    assert names[1] in en["over_text"] and names[3] in en["over_text"]


# -- rooms ---------------------------------------------------------------------------
@pytest.fixture
async def rooms(tmp_path: Path) -> AsyncIterator[Rooms]:
    r = await make_rooms(tmp_path / "rooms.sqlite3")
    try:
        yield r
    finally:
        await r.close()


async def test_the_room_form_offers_the_table_options(rooms: Rooms) -> None:
    resp = await rooms.client.get("/api/rooms/setup?lang=en")
    found = await resp.json()
    assert found["options"]["deck"] == [24, 36, 52]
    assert found["options"]["show_trump"] == [True, False]
    assert found["options"]["teams"] == ["none", "2x2", "3x3"]
    assert found["strings"]["teams_2x2"] == "2 against 2"
    assert found["strings"]["deck_cards"] == "{n} cards"


async def test_a_room_opens_with_a_pack_a_show_and_teams(rooms: Rooms) -> None:
    status, body = await rooms.create("Ann", rules="perevodnoy", deck=52, show_trump=True)
    assert status == 201
    channel = await rooms.parts.rooms.directory.channel_of(body["room"])
    lobby = await rooms.service.lobby(channel)
    assert (lobby.rules.deck, lobby.rules.show_trump) == (52, True)
    status, body = await rooms.create("Ben", teams="2x2", seats=4)
    assert status == 201
    lobby = await rooms.service.lobby(await rooms.parts.rooms.directory.channel_of(body["room"]))
    assert lobby.teams == "2x2" and lobby.team_size == 2


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        (
            {"rules": "perevodnoy", "teams": "2x2", "seats": 4},
            "Teams '2x2' are played without transfers: turn transfer off",
        ),
        ({"show_trump": True}, "Show_trump needs transfer on"),
        ({"deck": 24, "seats": 5}, "A 24-card pack deals six cards to at most 4 players, not 5"),
        ({"teams": "3x3", "seats": 4}, "Teams '3x3' need exactly 6 players, not 4"),
    ],
)
async def test_a_room_refuses_options_that_do_not_go_together(
    rooms: Rooms, options: dict[str, Any], reason: str
) -> None:
    await rooms.create_refused(reason, **options)


async def test_a_team_room_shows_its_teams_and_a_guest_switches(rooms: Rooms) -> None:
    _, body = await rooms.create("Ann", teams="2x2", seats=4)
    _, joined = await rooms.join(body["room"], "Bob")
    host = await rooms.page(body["token"])
    guest = await rooms.page(joined["token"])
    room = await room_frame(guest, "lobby", 2)
    assert room["teams"] == [{"team": 0, "label": "Team 1"}, {"team": 1, "label": "Team 2"}]
    assert room["team_size"] == 2
    assert [(s["name"], s["team"]) for s in room["seats"]] == [("Ann", 0), ("Bob", 1)]
    await guest.send({"t": "switch_team", "seq": 1})
    assert (await guest.next("result"))["ok"]
    while [s["team"] for s in room["seats"]] != [0, 0]:
        room = await room_frame(host, "lobby", 2)
    # Ann's team is full now: she cannot be moved into it, and Bob is already there
    await guest.send({"t": "switch_team", "seq": 2, "team": 0})
    refused = await guest.next("result")
    assert not refused["ok"] and "already in team 1" in refused["reason"]
    # a team that is not a whole number is a bad frame, and moves nobody
    await guest.send({"t": "switch_team", "seq": 3, "team": "one"})
    assert not (await guest.next("result"))["ok"]
    lobby = await rooms.service.lobby(await rooms.parts.rooms.directory.channel_of(body["room"]))
    assert [s.team for s in lobby.seats] == [0, 0]
    for page in (host, guest):
        await page.close()
