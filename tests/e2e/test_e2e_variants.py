"""Perevodnoy with a transfer, and a five-player classic game with a throw-in by a player who
is not the defender's neighbour: every human move pressed in a private hand."""

from __future__ import annotations

import pytest

from tests import storage_helpers as stored

from .durak_e2e import MakeHarness, prefer, replay_steps

pytestmark = pytest.mark.e2e


async def test_perevodnoy_with_a_transfer(harness: MakeHarness) -> None:
    h = harness(seeds=[3])
    alice, bob = h.user("alice"), h.user("bob")
    await h.start_with_game(alice, join=[bob], ai=["beginner"], rules="perevodnoy", seats=3)
    pressed: list[str] = []

    base = prefer("transfer", "defend", "attack", "pick", "pass", "take")

    def choose(player, offered, view):  # type: ignore[no-untyped-def]
        choice = base(player, offered, view)
        pressed.append(choice.action)
        return choice

    await h.play(choose)
    await h.idle()
    view = await h.table_view()
    assert view.finished
    record = await h.finished_game(view.game_id)
    transfers = [a for a in record["actions"] if a.split()[1] == "transfer"]
    assert transfers, record["actions"]
    assert any(a.startswith("transfer") for a in pressed)  # a human pressed Transfer
    assert record["result"] in ("loss", "draw")

    # End series: the standings are final and the game-over buttons go away
    final = h.table_message()
    assert final is not None
    end = next(
        c.custom_id for c in h.fake.find_components(final) if c.custom_id.endswith(":endseries")
    )
    rec = await bob.press(final, end)
    assert (await rec.wait_response()).type == 6
    await h.idle()
    assert not rec.followups
    series = await stored.series(h.storage, view.series_id)
    assert (series.active, series.games) == (False, 1)
    assert final.components == []
    assert h.service.state(h.channel) == "none"


async def test_five_player_classic_with_a_non_neighbour_throw_in(harness: MakeHarness) -> None:
    h = harness(seeds=[11])
    alice, bob, carol = h.user("alice"), h.user("bob"), h.user("carol")
    await h.start_with_game(
        alice, join=[bob, carol], ai=["beginner", "beginner"], rules="classic", seats=5
    )
    await h.play(prefer("defend", "attack", "pick", "pass", "take"))
    await h.idle()
    view = await h.table_view()
    assert view.finished and len(view.seats) == 5
    record = await h.finished_game(view.game_id)
    throw_ins = []
    for game, text in replay_steps(record):
        seat, kind = int(text.split()[0]), text.split()[1]
        if kind != "attack" or not game.table_attacks:
            continue  # not a throw-in: the round's opening attack
        d = game.defender
        if seat not in (game.next_active(d), game.previous_active(d)):
            throw_ins.append(text)
    assert throw_ins, "no throw-in by a non-neighbour of the defender"
