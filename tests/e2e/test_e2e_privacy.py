"""Privacy through Discord (issue 22 item 19): ``/durak privacy`` shows a player what is
stored about them; ``/durak forget-me``, after a private confirmation only they may answer,
erases their name and id (their past seats read "a former player", the other player's stats
stay as they were), and is refused while they sit in a running game."""

from __future__ import annotations

from typing import Any

import pytest

from bot.service.privacy import FORGET_CONFIRM_SECONDS
from cogs.custom_ids import parse_forget_id

from .durak_e2e import EPHEMERAL, Harness, MakeHarness, prefer
from .fakediscord import InteractionRecord, SimUser, StoredMessage

pytestmark = pytest.mark.e2e

MESSAGE_COMPONENT = 3


async def _private_answer(h: Harness, user: SimUser, sub: str) -> StoredMessage:
    """``/durak <sub>`` by ``user``: its private answer."""
    rec = await h.slash(user, sub)
    await h.answered(rec)
    answer = rec.original_message
    assert answer is not None and answer.flags & EPHEMERAL and answer.visible_to == user.id
    return answer


async def _played_and_ended(h: Harness, alice: SimUser, bob: SimUser) -> list[str]:
    """Alice and Bob play one game to its end, then Bob presses End series; the players'
    display names, by seat."""
    await h.start_game(alice, join=[bob], rules="podkidnoy", seats=2)
    for user in (alice, bob):
        await h.show_hand(user)
    await h.play(prefer("defend", "attack", "pick", "pass", "take"))
    await h.idle()
    view = await h.table_view()
    assert view.finished
    final = h.table_message()
    assert final is not None
    end = next(c.custom_id for c in final.find_components() if c.custom_id.endswith(":endseries"))
    rec = await bob.press(final, end)
    await rec.wait_response()
    await h.idle()
    assert h.service.state(h.channel) == "none"
    return [s.name for s in view.seats]


def _forget_buttons(message: StoredMessage) -> dict[str, str]:
    """The confirmation's buttons: action -> custom id."""
    return {
        parse_forget_id(c.custom_id).action: c.custom_id
        for c in message.find_components()
        if c.custom_id and c.custom_id.startswith("durak:forget:")
    }


async def _press(h: Harness, user: SimUser, message: StoredMessage, custom_id: str) -> Any:
    rec = await user.press(message, custom_id)
    assert (await rec.wait_response()).type == 6  # an update of the private confirmation
    await h.idle()
    return rec


async def _press_unseen(h: Harness, user: SimUser, message: StoredMessage, custom_id: str) -> Any:
    """A press by ``user`` of a button on a message only someone else sees, as a client that
    sends a custom id it was never shown would (Discord's own client cannot)."""
    fake = h.fake
    data = {"custom_id": custom_id, "component_type": 2}
    channel = fake.channels[message.channel_id]
    record: InteractionRecord = await fake._deliver(
        fake._new_interaction(user, channel, MESSAGE_COMPONENT, data, message)
    )
    await record.wait_response()
    await h.idle()
    return record


async def test_privacy_then_forget_me_erases_the_player_and_keeps_the_others(
    harness: MakeHarness,
) -> None:
    h = harness(seeds=[11])
    alice, bob = await h.start_with_members("alice", "bob")
    names = await _played_and_ended(h, alice, bob)
    alice_name, bob_name = names
    bob_stats = (await _private_answer(h, bob, "stats")).text()

    # /durak privacy: her id, her name, her game, her result and rating in this server
    shown = (await _private_answer(h, alice, "privacy")).text()
    assert f"Your Discord user id: `{alice.id}`" in shown and f"**{alice_name}**" in shown
    assert "Seated in 1 game" in shown and "1 finished game counted in your stats" in shown
    assert "Rating in podkidnoy" in shown and "1 series you sat in or hosted" in shown

    # /durak forget-me: a private warning with Erase and Cancel
    confirm = await _private_answer(h, alice, "forget-me")
    assert "Erase everything the Durak bot stores about you?" in confirm.text()
    assert "Stored now: 1 game, 1 server, 1 rating." in confirm.text()
    buttons = _forget_buttons(confirm)
    assert set(buttons) == {"confirm", "cancel"}
    assert parse_forget_id(buttons["confirm"]).user_id == alice.id

    # Erase: done, and the confirmation has no buttons left
    rec = await _press(h, alice, confirm, buttons["confirm"])
    assert not rec.followups
    assert "Done: your name and Discord id were erased" in confirm.text()
    assert not _forget_buttons(confirm)
    assert "Nothing: no game, series, result or rating of yours is stored." in (
        (await _private_answer(h, alice, "privacy")).text()
    )

    # Bob's history and replay name her seat "a former player"; his stats are unchanged
    history = await _private_answer(h, bob, "history")
    assert "a former player" in history.text() and alice_name not in history.text()
    assert bob_name in history.text()
    replay_button = next(c for c in history.custom_ids if c.startswith("durak:replay:"))
    rec = await bob.press(history, replay_button)
    await rec.wait_response()
    replay = await rec.wait_original(predicate=lambda m: bool(m.embeds))
    await h.idle()
    assert "a former player" in replay.text() and alice_name not in replay.text()
    assert (await _private_answer(h, bob, "stats")).text() == bob_stats
    board = (await _private_answer(h, bob, "leaderboard")).text()
    assert alice_name not in board
    rec = await h.slash(bob, "stats", user=alice)
    await h.answered(rec)
    assert rec.original_message is not None
    assert "has not finished a game here yet" in rec.original_message.text()


async def test_forget_me_is_refused_while_seated_in_a_running_game(
    harness: MakeHarness,
) -> None:
    h = harness(seeds=[11])
    alice, bob = await h.start_with_members("alice", "bob")
    await h.start_game(alice, join=[bob], seats=2)
    before = await h.db_state()
    refusal = await _private_answer(h, alice, "forget-me")
    assert "You are in a lobby or a game that has not ended in" in refusal.text()
    assert f"<#{h.channel}>" in refusal.text() and not refusal.custom_ids
    assert await h.db_state() == before
    assert h.service.state(h.channel) == "playing"


async def test_cancel_changes_nothing(harness: MakeHarness) -> None:
    h = harness(seeds=[11])
    alice, bob = await h.start_with_members("alice", "bob")
    await _played_and_ended(h, alice, bob)
    shown = (await _private_answer(h, alice, "privacy")).text()
    before = await h.db_state()
    confirm = await _private_answer(h, alice, "forget-me")
    rec = await _press(h, alice, confirm, _forget_buttons(confirm)["cancel"])
    assert not rec.followups and "Nothing was erased." in confirm.text()
    assert not _forget_buttons(confirm)
    assert await h.db_state() == before
    assert (await _private_answer(h, alice, "privacy")).text() == shown


async def test_only_the_asker_may_confirm_and_only_in_time(harness: MakeHarness) -> None:
    h = harness(seeds=[11])
    alice, bob = await h.start_with_members("alice", "bob")
    await _played_and_ended(h, alice, bob)
    before = await h.db_state()
    confirm = await _private_answer(h, alice, "forget-me")
    asked = confirm.text()
    buttons = _forget_buttons(confirm)

    # Bob presses Alice's Erase (and Cancel): refused privately, her confirmation untouched
    for action in ("confirm", "cancel"):
        rec = await _press_unseen(h, bob, confirm, buttons[action])
        (refusal,) = await rec.wait_followups()
        assert refusal.flags & EPHEMERAL and refusal.visible_to == bob.id
        assert "Only the player who asked can answer this" in refusal.text()
    assert confirm.text() == asked and _forget_buttons(confirm) == buttons
    assert await h.db_state() == before

    # too late: the confirmation says so, loses its buttons, and nothing is erased
    await h.clock.advance(FORGET_CONFIRM_SECONDS + 1)
    rec = await _press(h, alice, confirm, buttons["confirm"])
    assert not rec.followups and "This confirmation has expired" in confirm.text()
    assert not _forget_buttons(confirm)
    assert await h.db_state() == before
    assert "Seated in 1 game" in (await _private_answer(h, alice, "privacy")).text()
