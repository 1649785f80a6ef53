"""Turn timers on an injected clock: each timeout default, autopilot on and off, AI delay."""

from __future__ import annotations

from bot.service import GameService
from bot.views import HandCard, TableView

from .conftest import ALICE, BOB, CH, GUILD, open_table, settle

USERS = {0: ALICE, 1: BOB}
RANKS = ["6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SUITS = "♠♥♦♣"


def lowest_non_trump(cards: tuple[HandCard, ...]) -> str:
    pool = [c for c in cards if not c.trump] or list(cards)
    return min(pool, key=lambda c: (RANKS.index(c.text[:-1]), SUITS.index(c.text[-1]))).text


async def tick(svc: GameService, seconds: float) -> TableView:
    await svc.clock.advance(seconds)  # type: ignore[attr-defined]
    await settle(svc)
    return await svc.table(CH)


async def test_leader_timeout_plays_lowest_non_trump_then_defender_takes(make_service, recorder):
    svc = await make_service(presenters=[recorder])
    table = await open_table(svc, ALICE, BOB)
    start = svc.clock.now()
    assert table.deadline == start + 60
    leader = table.to_act
    hand = await svc.hand(CH, USERS[leader])
    expected = lowest_non_trump(hand.cards)

    table = await tick(svc, 59.9)
    assert table.version == 0
    table = await tick(svc, 0.1)
    assert table.version == 1
    last = table.recent[-1]
    assert (last.seat, last.kind, last.text, last.auto) == (
        leader,
        "attack",
        f"attack {expected}",
        "timeout",
    )
    assert table.deadline == start + 120  # the defender's turn, absolute time
    assert [n[3] for n in recorder.notices("timeout")] == [USERS[leader]]

    defender = table.to_act
    table = await tick(svc, 60)
    last = table.recent[-1]
    assert (last.seat, last.kind, last.auto) == (defender, "take", "timeout")


async def test_attacker_in_throw_in_window_passes(make_service):
    svc = await make_service()
    channel = CH
    for attempt in range(60):
        channel = CH + attempt
        await svc.open_lobby(channel, GUILD, ALICE, "Alice")
        await svc.join(channel, BOB, "Bob")
        table = await svc.start(channel, ALICE)
        user = USERS[table.to_act]
        hand = await svc.hand(channel, user)
        table = await svc.act(channel, user, hand.legal[0].text, 0)
        user = USERS[table.to_act]
        hand = await svc.hand(channel, user)
        defend = next((a for a in hand.legal if a.kind == "defend"), None)
        if defend is None:
            continue
        table = await svc.act(channel, user, defend.text, 1)
        if table.waiting_for == "add":
            break
    else:
        raise AssertionError("no deal gave the attacker a throw-in window")
    adder = table.to_act
    await svc.clock.advance(60)  # type: ignore[attr-defined]
    await settle(svc)
    table = await svc.table(channel)
    assert table.version == 3
    last = table.recent[-1]
    assert (last.seat, last.kind, last.auto) == (adder, "pass", "timeout")


async def test_two_timeouts_in_a_row_put_a_player_on_autopilot(make_service, recorder):
    svc = await make_service(presenters=[recorder])
    await open_table(svc, ALICE, BOB)
    for _ in range(10):
        table = await tick(svc, 60)
        if recorder.notices("autopilot_on"):
            break
    on = recorder.notices("autopilot_on")
    assert len(on) == 1
    user = on[0][3]
    seat = 0 if user == ALICE else 1
    timed_out = [r.seat for r in table.recent if r.auto == "timeout"]
    assert timed_out.count(seat) >= 2
    assert table.seats[seat].autopilot

    # the autopilot plays that seat's turns without a deadline, as "autopilot"
    for _ in range(10):
        table = await svc.table(CH)
        if any(r.auto == "autopilot" for r in table.recent):
            break
        table = await tick(svc, 60)
    assert any(r.auto == "autopilot" and r.seat == seat for r in table.recent)
    if table.to_act == seat:  # pragma: no cover - the autopilot already moved
        assert table.deadline is None

    # asking for the hand brings the player back
    hand = await svc.hand(CH, user)
    await settle(svc)
    assert not hand.autopilot
    assert recorder.notices("autopilot_off")
    table = await svc.table(CH)
    assert not table.seats[seat].autopilot
    if table.to_act == seat:
        assert table.deadline == svc.clock.now() + 60


async def test_acting_resets_the_count_and_ends_autopilot(make_service, recorder):
    svc = await make_service(presenters=[recorder], ai_delay=5.0)
    table = await open_table(svc, ALICE, BOB)
    lead, other = table.to_act, 1 - table.to_act

    async def other_plays(table: TableView) -> TableView:
        while not table.finished and table.to_act == other:
            hand = await svc.hand(CH, USERS[other])
            table = await svc.act(CH, USERS[other], hand.legal[0].text, hand.version)
        assert table.to_act == lead
        return table

    table = await other_plays(await tick(svc, 60))  # lead times out once
    hand = await svc.hand(CH, USERS[lead])
    table = await other_plays(await svc.act(CH, USERS[lead], hand.legal[0].text, hand.version))
    table = await other_plays(await tick(svc, 60))  # once again, but not twice in a row
    assert not recorder.notices("autopilot_on")
    table = await tick(svc, 60)  # twice in a row
    assert [n[3] for n in recorder.notices("autopilot_on")] == [USERS[lead]]
    assert table.seats[lead].autopilot

    table = await other_plays(table)
    assert table.deadline is None  # the autopilot is about to move for lead
    await settle(svc)  # it decided and now waits the AI delay
    hand = await svc.hand(CH, USERS[other])  # someone else's press changes nothing
    assert (await svc.table(CH)).seats[lead].autopilot
    version = table.version
    game = svc.game_of(CH)
    assert game is not None
    move = game.legal_actions()[0].text  # without asking for the hand
    table = await svc.act(CH, USERS[lead], move, version)
    await settle(svc)
    assert not table.seats[lead].autopilot
    assert [n[3] for n in recorder.notices("autopilot_off")] == [USERS[lead]]
    await tick(svc, 5)  # the autopilot's pending move was dropped
    after = await svc.table(CH)
    assert [r.auto for r in after.recent].count("autopilot") == 0


async def test_ai_moves_after_the_delay(make_service):
    svc = await make_service(ai_delay=2.0)
    table = await open_table(svc, ALICE, ais=("beginner",))
    if table.to_act == 0:
        hand = await svc.hand(CH, ALICE)
        table = await svc.act(CH, ALICE, hand.legal[0].text, 0)
    assert table.to_act == 1 and table.deadline is None
    version = table.version
    await settle(svc)
    assert (await svc.table(CH)).version == version
    table = await tick(svc, 1.9)
    assert table.version == version
    table = await tick(svc, 0.1)
    assert table.version == version + 1
    assert table.recent[-1].seat == 1 and table.recent[-1].auto is None
