"""Acting through the service: views, versions, concurrency, refusals, whole games."""

from __future__ import annotations

import asyncio

import pytest

from bot.errors import (
    BadAction,
    GameFinished,
    IllegalMove,
    NotSeated,
    NotYourTurn,
    StaleAction,
)
from bot.outcome import Ending
from bot.service import GameService
from bot.views import TableView
from rules_engine import Action, from_snapshot, parse_action, snapshot
from rules_engine.cards import parse_card
from rules_engine.messages import Message, Seat
from tests import storage_helpers as stored

from .conftest import ALICE, BOB, CAROL, CH, GUILD, db_dump, open_table, play_out, settle

USERS = {0: ALICE, 1: BOB}


def engine_game(svc: GameService, channel: int = CH):
    game = svc.game_of(channel)
    assert game is not None
    return game


async def test_views_of_a_new_game(make_service):
    svc = await make_service()
    table = await open_table(svc, ALICE, BOB)
    game = engine_game(svc)
    assert table.version == 0 and table.to_act == game.leader
    assert table.trump == "♠♥♦♣"[game.trump] and table.stock == 36 - 12
    assert table.trump_card is not None and str(table.trump_card)[-1] == table.trump
    assert table.deadline == svc.clock.now() + 60
    assert {s.role for s in table.seats} == {"leader", "defender"}
    assert all(s.cards == 6 for s in table.seats)
    assert table.waiting_for == "lead" and table.pairs == ()

    leader = USERS[table.to_act]
    hand = await svc.hand(CH, leader)
    assert hand.your_turn and hand.version == 0 and hand.deadline == table.deadline
    assert all(c.playable for c in hand.cards)
    # sorted by suit then rank, trumps last
    trump_flags = [c.trump for c in hand.cards]
    assert trump_flags == sorted(trump_flags)
    assert {a.kind for a in hand.legal} == {"attack"}
    assert all(a.text.startswith("attack ") for a in hand.legal)

    other = USERS[1 - table.to_act]
    other_hand = await svc.hand(CH, other)
    assert not other_hand.your_turn and other_hand.legal == ()
    assert all(c.reason for c in other_hand.cards)
    assert not {c.text for c in hand.cards} & {c.text for c in other_hand.cards}


async def test_act_accepts_text_with_or_without_seat_and_actions(make_service):
    svc = await make_service()
    table = await open_table(svc, ALICE, BOB)
    seat = table.to_act
    hand = await svc.hand(CH, USERS[seat])
    view = await svc.act(CH, USERS[seat], hand.legal[0].text, 0)
    assert view.version == 1 and view.recent[-1].text == hand.legal[0].text
    assert view.recent[-1].seat == seat and view.recent[-1].auto is None
    assert view.seats[seat].name == f"user{USERS[seat]}"
    defender = view.to_act
    hand = await svc.hand(CH, USERS[defender])
    take = next(a for a in hand.legal if a.kind == "take")
    view = await svc.act(CH, USERS[defender], f"{defender} {take.text}", 1)
    assert view.version == 2 and view.taking
    nxt = view.to_act
    if nxt is not None and view.waiting_for == "add":
        view = await svc.act(CH, USERS[nxt], Action.pass_(nxt), 2)
        assert view.version == 3


async def test_stale_version_and_game_id(make_service, db_path):
    svc = await make_service()
    table = await open_table(svc, ALICE, BOB)
    leader = USERS[table.to_act]
    hand = await svc.hand(CH, leader)
    with pytest.raises(StaleAction) as info:
        await svc.act(CH, leader, hand.legal[0].text, 5)
    assert info.value.details["expected"] == 0
    with pytest.raises(StaleAction):
        await svc.act(CH, leader, hand.legal[0].text, 0, game_id=hand.game_id + 1)
    assert (await svc.table(CH)).version == 0


async def test_two_presses_at_once_apply_once(make_service):
    svc = await make_service()
    table = await open_table(svc, ALICE, BOB)
    leader = USERS[table.to_act]
    hand = await svc.hand(CH, leader)
    a, b = hand.legal[0].text, hand.legal[-1].text
    results = await asyncio.gather(
        svc.act(CH, leader, a, 0), svc.act(CH, leader, b, 0), return_exceptions=True
    )
    ok = [r for r in results if isinstance(r, TableView)]
    stale = [r for r in results if isinstance(r, StaleAction)]
    assert len(ok) == 1 and len(stale) == 1
    assert (await svc.table(CH)).version == 1
    assert len(engine_game(svc).history) == 1


async def test_every_bad_input_is_typed_and_changes_nothing(make_service, db_path):
    svc = await make_service()
    table = await open_table(svc, ALICE, BOB)
    leader_seat = table.to_act
    leader, other = USERS[leader_seat], USERS[1 - leader_seat]
    game = engine_game(svc)
    hand_cards = [c.text for c in (await svc.hand(CH, leader)).cards]
    # two cards of different ranks
    mixed = next((a, b) for a in hand_cards for b in hand_cards if a[:-1] != b[:-1])
    missing = next(c for c in ("6♠", "7♠", "8♠", "9♠", "10♠", "J♠", "Q♠") if c not in hand_cards)

    before_table = await svc.table(CH)
    before_hands = (await svc.hand(CH, leader), await svc.hand(CH, other))
    before_db = db_dump(db_path)

    cases = [
        (NotSeated, svc.act(CH, CAROL, "pass", 0)),
        (NotYourTurn, svc.act(CH, other, "take", 0)),
        (IllegalMove, svc.act(CH, leader, f"attack {mixed[0]} {mixed[1]}", 0)),
        (IllegalMove, svc.act(CH, leader, f"attack {missing}", 0)),
        (IllegalMove, svc.act(CH, leader, "pass", 0)),
        (BadAction, svc.act(CH, leader, "attack 1♦", 0)),
        (BadAction, svc.act(CH, leader, "dance", 0)),
        (BadAction, svc.act(CH, leader, f"{1 - leader_seat} take", 0)),
        (BadAction, svc.act(CH, leader, "", 0)),
        (StaleAction, svc.act(CH, leader, "pass", 1)),
    ]
    for error, call in cases:
        with pytest.raises(error):
            await call
    with pytest.raises(IllegalMove) as info:
        await svc.act(CH, leader, f"attack {mixed[0]} {mixed[1]}", 0)
    expected = game.explain(parse_action(f"{leader_seat} attack {mixed[0]} {mixed[1]}"))
    assert expected is not None
    assert info.value.reason == expected
    assert info.value.reason == Message("cards played together must all be of one rank")
    with pytest.raises(IllegalMove) as info:
        await svc.act(CH, leader, f"attack {missing}", 0)
    assert info.value.reason == Message("{card} is not in your hand", card=parse_card(missing))
    with pytest.raises(NotYourTurn) as info:
        await svc.act(CH, other, "take", 0)
    reason = game.explain(parse_action(f"{1 - leader_seat} take"))
    assert reason is not None and info.value.message == reason
    with pytest.raises(BadAction) as bad:
        await svc.act(CH, leader, "dance", 0)
    assert bad.value.message["text"] == "'dance'"  # what the player typed, without a seat
    with pytest.raises(BadAction) as bad:
        await svc.act(CH, leader, f"{1 - leader_seat} take", 0)
    assert bad.value.message == Message(
        "that action is for {seat}; you sit at {other}",
        seat=Seat(1 - leader_seat),
        other=Seat(leader_seat),
    )

    assert await svc.table(CH) == before_table
    assert (await svc.hand(CH, leader), await svc.hand(CH, other)) == before_hands
    assert db_dump(db_path) == before_db
    assert engine_game(svc).version == 0


async def test_defence_reason_comes_from_the_engine(make_service):
    svc = await make_service()
    table = await open_table(svc, ALICE, BOB)
    leader = USERS[table.to_act]
    hand = await svc.hand(CH, leader)
    view = await svc.act(CH, leader, hand.legal[0].text, 0)
    defender_seat = view.to_act
    attack = view.pairs[0].attack
    dhand = await svc.hand(CH, USERS[defender_seat])
    blocked = [c for c in dhand.cards if c.reason]
    if not blocked:
        pytest.skip("every card beats this attack")
    card = blocked[0]
    with pytest.raises(IllegalMove) as info:
        await svc.act(CH, USERS[defender_seat], f"defend {attack} {card.text}", 1)
    assert info.value.reason == card.reason
    assert "does not beat" in info.value.reason.key


async def test_whole_game_of_ai_seats_records_the_loss(make_service, recorder, db_path):
    svc = await make_service(presenters=[recorder])
    await svc.open_lobby(CH, GUILD, ALICE, "Alice", seat_host=False)  # a table of AIs
    for _ in range(3):
        await svc.add_ai(CH, ALICE, "beginner")
    await svc.start(CH, ALICE)
    table = await play_out(svc)
    assert table.finished and table.to_act is None and table.deadline is None
    assert table.outcome is not None and table.outcome.ending in (Ending.DURAK, Ending.DRAW)
    loser = next(iter(table.outcome.losers), None)
    series = await svc.series(CH)
    assert series.games == 1
    if loser is None:
        assert series.draws == 1 and all(e.losses == 0 for e in series.standings)
    else:
        assert [e.losses for e in series.standings] == [int(i == loser) for i in range(3)]
    await settle(svc)
    over = recorder.of("over")
    assert len(over) == 1 and over[0].series == series
    assert svc.state(CH) == "finished"
    with pytest.raises(GameFinished):
        await svc.act(CH, ALICE, "pass", table.version)

    record = await stored.game(svc.storage, table.game_id)
    assert record.result == ("draw" if loser is None else "loss") and record.loser_seat == loser
    assert len(record.actions) == table.version
    losses = (await stored.series(svc.storage, table.series_id)).losses
    assert losses == [e.losses for e in series.standings]
    assert await stored.live_games(svc.storage) == []
    assert await svc.storage.game_results(table.game_id) == []  # AIs only


async def test_human_game_to_the_end_records_player_results(make_service, db_path):
    svc = await make_service()
    await open_table(svc, ALICE, BOB, ais=("beginner",))
    table = await play_out(svc)
    rows = await svc.storage.game_results(table.game_id)
    assert [(r.seat, r.user_id) for r in rows] == [(0, ALICE), (1, BOB)]
    assert [r.lost for r in rows] == [s in table.outcome.losers for s in (0, 1)]
    (ended,) = await stored.ended_games(svc.storage, GUILD)
    assert ended.profile == "podkidnoy"
    stats = await svc.stats(GUILD, ALICE)
    assert stats.games == 1 and stats.losses == int(0 in table.outcome.losers)


async def test_live_snapshot_is_the_engine_snapshot(make_service, db_path):
    svc = await make_service()
    await open_table(svc, ALICE, BOB)
    for _ in range(6):
        table = await svc.table(CH)
        user = USERS[table.to_act]
        hand = await svc.hand(CH, user)
        await svc.act(CH, user, hand.legal[-1].text, hand.version)
    (live,) = await stored.live_games(svc.storage)
    game = engine_game(svc)
    assert live.snapshot == snapshot(game)
    assert from_snapshot(live.snapshot).state_dict() == game.state_dict()


async def test_hidden_cards_never_reach_public_views(make_service, recorder):
    svc = await make_service(presenters=[recorder])
    await open_table(svc, ALICE, BOB)
    await settle(svc)
    game = engine_game(svc)
    public = repr(await svc.table(CH)) + repr(recorder.of("table"))
    hands = recorder.of("hand")
    assert {uid for _, uid, _ in hands} == {ALICE, BOB}
    for _, uid, view in hands:
        seat = 0 if uid == ALICE else 1
        assert sorted(c.text for c in view.cards) == sorted(game.hand(seat))
    # the public table has counts, never a card of a hand (beyond the shown lowest trump)
    shown = {str(c) for c in (await svc.table(CH)).shown}
    for seat in (0, 1):
        for card in game.hand(seat):
            if card not in shown:
                assert f"'{card}'" not in public


async def test_a_game_without_end_is_stopped_at_the_action_cap(
    make_service, recorder, db_path, monkeypatch
):
    """RULES.md lets a game cycle forever; the service stops it at MAX_GAME_ACTIONS moves,
    stored as aborted with no loss (the choice documented in bot/service/driver.py)."""
    import bot.service.driver

    monkeypatch.setattr(bot.service.driver, "MAX_GAME_ACTIONS", 7)
    svc = await make_service(presenters=[recorder])
    await svc.open_lobby(CH, GUILD, ALICE, "Alice", seat_host=False)
    for _ in range(2):
        await svc.add_ai(CH, ALICE, "beginner")
    await svc.start(CH, ALICE)
    await settle(svc)
    await settle(svc)
    assert svc.state(CH) != "playing"
    stopped = recorder.notices("stopped")
    assert stopped and stopped[-1][2]["n"] == 7
    (ended,) = await stored.ended_games(svc.storage, GUILD)
    record = await stored.game(svc.storage, ended.game_id)
    assert record.result == "aborted" and record.loser_seat is None and len(record.actions) == 7
    assert await stored.live_games(svc.storage) == []
    series_id = recorder.of("table")[-1].series_id
    assert (await stored.series(svc.storage, series_id)).losses == [0, 0]
