"""Fair play through Discord (README.md, "Fair play"): a player leaves a running game with the
table's Leave button and its private confirmation, the AI plays their seat to the end and the
forfeit shows in /durak stats; a stop vote passes when both players press Stop."""

from __future__ import annotations

import pytest

from tests import storage_helpers as stored

from .durak_e2e import EPHEMERAL, Harness, MakeHarness, buttons, poll, prefer

pytestmark = pytest.mark.e2e


async def _forfeits(h: Harness) -> list[tuple[int, int, str]]:
    """``(user, seat, reason)`` of each forfeit stored for the channel's game."""
    game_id = (await h.table_view()).game_id
    return [(f.user_id, f.seat, f.reason) for f in await h.storage.forfeits_of_game(game_id)]


async def test_a_player_leaves_with_a_confirmation_and_the_ai_plays_on(
    harness: MakeHarness,
) -> None:
    h = harness(seeds=[11])
    fake = h.fake
    alice, bob = h.user("alice"), h.user("bob", locale="fr")  # Bob reads French
    await h.start()
    table = await h.start_game(alice, join=[bob], seats=2)
    await h.show_hand(alice)
    leave = next(b for b in buttons(table) if b.verb == "leave")

    # Leave answers privately with a confirmation; nothing is recorded yet
    rec = await h.press(bob, table, leave)
    assert rec.response_type == 5
    confirm = await rec.wait_original(predicate=lambda m: bool(m.custom_ids))
    await h.idle()
    assert confirm.flags & EPHEMERAL and confirm.visible_to == bob.id
    assert "forfait" in confirm.text() and "l’IA joue votre place" in confirm.text()
    assert "forfeit" not in confirm.text()  # no English reaches a French player
    (forfeit,) = buttons(confirm)
    assert forfeit.verb == "forfeit" and forfeit.game_id == leave.game_id
    assert await _forfeits(h) == []
    assert h.service.state(h.channel) == "playing"

    # "Leave and forfeit": recorded at once, the table shows the seat played by the AI
    rec = await h.press(bob, confirm, forfeit)
    assert rec.response_type == 6
    await h.idle()
    assert await _forfeits(h) == [(bob.id, 1, "leave")]
    assert "Vous avez quitté la partie" in confirm.text() and not confirm.custom_ids
    assert any("left the game: a forfeit" in m.text() for m in fake.messages(h.channel))
    live = await poll(h.table_message, what="the table")
    assert "Bob" in live.text() and "left: the AI plays" in live.text()
    assert "seat 1" not in live.text()

    # Bob cannot come back: his hand is refused privately
    rec = await h.slash(bob, "hand")
    await h.answered(rec)
    assert "vous ne pouvez pas y revenir" in rec.original_message.text()

    # Alice plays on against the AI to the end
    await h.play(prefer("defend", "attack", "pick", "pass", "take"))
    await h.idle()
    view = await h.table_view()
    assert view.finished
    losses = (await stored.series(h.storage, view.series_id)).losses
    assert losses == [int(0 in view.outcome.losers), 1]  # Bob's forfeit counts once, durak or not

    rec = await h.slash(alice, "stats", user=bob)
    await h.answered(rec)
    stats = rec.original_message.text()
    assert "1 game" in stats and "1 loss" in stats and "1 forfeit" in stats, stats


async def test_a_stop_vote_passes_when_both_players_press_stop(harness: MakeHarness) -> None:
    h = harness(seeds=[3])
    fake = h.fake
    alice, bob, carol = await h.start_with_members("alice", "bob", "carol")
    await h.start_game(alice, join=[bob], seats=2)

    # Alice opens the vote with /durak stop: the table shows Stop? 1/2, the game goes on
    rec = await h.slash(alice, "stop")
    await h.answered(rec)
    table = await poll(
        lambda: (m := h.table_message()) is not None and "Stop? 1/2" in m.text() and m,
        what="the vote on the table",
    )
    assert h.service.state(h.channel) == "playing"
    assert any("asks to stop the game" in m.text() for m in fake.messages(h.channel))
    stop = next(b for b in buttons(table) if b.verb == "stop")
    assert any(b.verb == "keep" for b in buttons(table))

    # someone without a seat has no vote: a private refusal, nothing changes
    rec = await h.press(carol, table, stop)
    await h.idle()
    (refusal,) = rec.followups
    assert refusal.visible_to == carol.id and refusal.flags & EPHEMERAL
    assert "Only the players seated at this game can vote" in refusal.text()
    assert h.service.state(h.channel) == "playing"

    # Alice presses Stop again: her yes counts once, and she is told so (privately)
    rec = await h.press(alice, table, stop)
    await h.idle()
    (again,) = rec.followups
    assert again.visible_to == alice.id and again.flags & EPHEMERAL
    assert "already voted to stop this game" in again.text() and "1/2" in again.text()
    assert (await h.table_view()).stop_vote == (1, 2)

    # Bob presses Stop too: every player agreed, the game is stopped with no result
    rec = await h.press(bob, table, stop)
    assert rec.response_type == 6
    await h.idle()
    assert not rec.followups
    assert h.service.state(h.channel) == "none"
    assert await stored.results(h.storage, fake.guild_id) == [("aborted", None)]
    (ended,) = await stored.ended_games(h.storage, fake.guild_id)
    assert await h.storage.game_results(ended.game_id) == []
    assert "The game was stopped" in h.last_table().text()
    assert any("Every player agreed to stop" in m.text() for m in fake.messages(h.channel))


async def test_kick_from_a_lobby_by_the_host_and_from_a_game_by_manage_channel(
    harness: MakeHarness,
) -> None:
    h = harness(seeds=[5])
    fake = h.fake
    alice, bob, carol = h.user("alice"), h.user("bob"), h.user("carol")
    mod = h.user("mod", manage_channels=True)
    await h.start()
    await h.open_lobby(alice, seats=4)
    await h.lobby_press(bob, "join")
    await h.lobby_press(carol, "join")
    await h.lobby_press(alice, "addai", ["casual"])

    # the host frees Carol's seat, then the AI seat by its number
    rec = await h.slash(alice, "kick", user=carol)
    await h.answered(rec)
    rec = await h.slash(alice, "kick", seat=3)
    await h.answered(rec)
    lobby = await h.service.lobby(h.channel)
    assert [s.user_id for s in lobby.seats] == [alice.id, bob.id]
    assert any("Carol was removed from the lobby" in m.text() for m in fake.messages(h.channel))

    await h.lobby_press(alice, "start")
    await h.wait_table()
    await h.show_hand(alice)
    # in a running game the host may not kick: a private refusal, nothing recorded
    rec = await h.slash(alice, "kick", user=bob)
    await h.answered(rec)
    assert "Manage Channel" in rec.original_message.text()
    assert await _forfeits(h) == []
    # Manage Channel may: Bob forfeits and the AI plays his seat
    rec = await h.slash(mod, "kick", user=bob)
    await h.answered(rec)
    assert [(user, reason) for user, _, reason in await _forfeits(h)] == [(bob.id, "kick")]
    assert any("Bob was removed from the game" in m.text() for m in fake.messages(h.channel))
    await h.play(prefer("defend", "attack", "pick", "pass", "take"))
    assert (await h.table_view()).finished
