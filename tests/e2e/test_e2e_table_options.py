"""The table options through the fake Discord (issue 30): a show-trump game where a player
presses "Show 9♦" in the hand and the table says who showed it; a 2×2 lobby where a player
switches team, played to the end with each seat's team on the table and the losing team
named; a combination the engine refuses, answered privately."""

from __future__ import annotations

import pytest

from cogs.render.text import card_md
from rules_engine.cards import parse_card

from .durak_e2e import EPHEMERAL, MakeHarness, buttons, poll, prefer

pytestmark = pytest.mark.e2e


async def test_a_trump_shown_from_the_hand_and_on_the_table(harness: MakeHarness) -> None:
    h = harness(seeds=[3])
    alice, bob = h.user("alice"), h.user("bob")
    await h.start_with_game(
        alice, join=[bob], ai=["beginner"], rules="perevodnoy", show_trump=True, seats=3
    )
    choose = prefer("show", "defend", "attack", "pick", "pass", "take")
    # play until a human presses Show: the hand named it by its card
    for _ in range(500):
        found = await h.turn()
        assert found is not None, "the game ended before a human could show a trump"
        player, hand = found
        view = await h.table_view()
        offered = [b for b in buttons(hand) if b.is_game_action or b.verb == "pick"]
        choice = choose(player, offered, view)
        if choice.verb == "show":
            break
        await h.press(player.user, hand, choice)
        await poll(lambda v=view.version: h._moved(v), what="the move")
    card = choice.argument
    assert card is not None
    assert f"Show {card}" in {c.label for c in hand.find_components()}
    await h.press(player.user, hand, choice)
    await poll(lambda v=view.version: h._moved(v), what="the show")
    await h.idle()
    # the table says who showed which trump (and the card stays in the shower's hand)
    after = await h.table_view()
    name = next(s.name for s in after.seats if s.user_id == player.user.id)
    shown = f"**{name}** showed {card_md(parse_card(card))}"
    await poll(lambda: shown in h.last_table().text(), what="the shown trump on the table")
    if not after.finished and after.round_shown:  # the round is still open: the 👁️ line
        assert f"👁️ {shown}" in h.last_table().embeds[0]["description"]
    # only this player's own presses take cards from their hand: the shown card is still there
    hand_view = await h.service.hand(h.channel, player.user.id)
    assert card in [c.text for c in hand_view.cards]
    await h.play(choose)
    await h.idle()
    view = await h.table_view()
    assert view.finished and view.rules.show_trump
    record = await h.finished_game(view.game_id)
    assert any(a.split()[1:] == ["show", card] for a in record["actions"])


async def test_a_two_against_two_game_with_a_team_switch(harness: MakeHarness) -> None:
    h = harness(seeds=[5])
    alice, bob = h.user("alice"), h.user("bob")
    await h.start()
    lobby = await h.open_lobby(alice, teams="2x2")
    fields = lobby.embeds[0]["fields"]
    assert [f["name"] for f in fields] == ["🟦 Team 1 (1/2)", "🟧 Team 2 (0/2)"]
    await h.lobby_press(bob, "join")  # to the smaller team
    assert "Bob" in h.lobby_message().embeds[0]["fields"][1]["value"]
    await h.lobby_press(bob, "switch")
    fields = h.lobby_message().embeds[0]["fields"]
    assert fields[0]["name"] == "🟦 Team 1 (2/2)" and "Bob" in fields[0]["value"]
    for _ in range(2):
        await h.lobby_press(alice, "addai", ["beginner"])
    await h.lobby_press(alice, "start")
    view = await h.table_view()
    # Alice and Bob play together: the even seats
    assert [s.user_id for s in view.seats][0::2] == [alice.id, bob.id]
    table = await h.wait_table()
    players = table.embeds[0]["fields"][0]["value"].splitlines()
    assert [line.split()[1] for line in players] == ["🟦", "🟧", "🟦", "🟧"]
    assert "🟦 Team " in table.embeds[0]["description"]
    for user in (alice, bob):
        await h.show_hand(user)
    await h.play(prefer("defend", "attack", "pick", "pass", "take"))
    await h.idle()
    view = await h.table_view()
    assert view.finished and view.outcome is not None
    over = h.last_table().embeds[0]["description"].splitlines()[0]
    if view.outcome.losers:  # a team lost together: both its players are named
        assert len(view.outcome.losers) == 2
        for seat in view.outcome.losers:
            assert view.seats[seat].name in over


async def test_a_combination_the_engine_refuses_is_answered_privately(
    harness: MakeHarness,
) -> None:
    h = harness(seeds=[1])
    alice = h.user("alice")
    await h.start()
    rec = await h.slash(alice, "new", rules="perevodnoy", teams="2x2")
    await h.answered(rec)
    answer = rec.messages[-1]
    assert answer.flags & EPHEMERAL
    assert "teams '2x2' are played without transfers: turn transfer off" in answer.text().lower()
    assert h.lobby_message() is None
    assert h.service.state(h.channel) == "none"
