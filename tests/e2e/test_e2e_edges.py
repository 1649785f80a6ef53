"""Edges through Discord (issue 22, items 9 and 10): a refused press on an old lobby message
does not make it the lobby message; stats are titled with the display name; a player removed
by a moderator is told so.  (A second Stop press of one's own vote: test_e2e_fair_play.)"""

from __future__ import annotations

import pytest

from .durak_e2e import EPHEMERAL, MakeHarness, buttons, poll

pytestmark = pytest.mark.e2e


async def test_a_refused_press_on_an_old_lobby_message_does_not_adopt_it(
    harness: MakeHarness,
) -> None:
    """Before: the press adopted the message it was pressed on before it was refused, so the
    next lobby was written into that old message, far up the channel."""
    h = harness()
    alice, bob = await h.start_with_members("alice", "bob")
    old = await h.open_lobby(alice, seats=2)
    await h.restart()  # the new process does not know which message is the lobby's
    rec = await h.slash(alice, "stop")  # closes the lobby; the old message keeps its buttons
    await h.answered(rec)
    assert h.service.state(h.channel) == "none"
    join = f"durak:lobby:{h.channel}:join"
    assert join in old.custom_ids

    rec = await bob.press(old, join)  # no lobby any more: refused privately
    cb = await rec.wait_response()
    assert cb.accepted
    await h.idle()
    (refusal,) = rec.followups
    assert refusal.visible_to == bob.id and refusal.flags & EPHEMERAL
    assert "no open lobby" in refusal.text()

    versions = len(old.versions)
    await h.open_lobby(alice, seats=2)
    new = h.lobby_message()
    assert new is not None and new.id != old.id  # a new lobby is a new message
    assert len(old.versions) == versions  # the old one is left as it was


async def test_an_accepted_press_on_a_lobby_message_after_a_restart_adopts_it(
    harness: MakeHarness,
) -> None:
    h = harness()
    alice, bob = await h.start_with_members("alice", "bob")
    lobby = await h.open_lobby(alice, seats=3)
    await h.restart()
    count = len(h.fake.messages(h.channel))
    await h.lobby_press(bob, "join")
    await poll(lambda: "bob" in lobby.text().lower(), what="the lobby edited in place")
    assert h.lobby_message() is lobby and len(h.fake.messages(h.channel)) == count


async def test_stats_of_a_player_without_games_are_titled_with_their_name(
    harness: MakeHarness,
) -> None:
    """Before: ``Durak stats — <their raw user id>``."""
    h = harness()
    alice, dave = await h.start_with_members("alice", "dave the brave")
    for who, options in ((dave, {}), (alice, {"user": dave})):
        rec = await h.slash(who, "stats", **options)
        await h.answered(rec)
        text = rec.original_message.text()
        assert "Durak stats — Dave The Brave" in text, text  # the fake's global name
        assert str(dave.id) not in text.split("\n")[0]


async def test_a_kicked_player_is_told_a_moderator_removed_them(harness: MakeHarness) -> None:
    """Before: "You left this game (a forfeit)"."""
    h = harness(seeds=[5])
    alice, bob, carol = h.user("alice"), h.user("bob"), h.user("carol", locale="fr")
    mod = h.user("mod", manage_channels=True)
    await h.start()
    table = await h.start_game(alice, join=[bob, carol], seats=3)
    for user in (bob, carol):
        rec = await h.slash(mod, "kick", user=user)
        await h.answered(rec)
    hand_button = next(b for b in buttons(table) if b.verb == "hand")
    for user, expected in (
        (bob, "A member with Manage Channel removed you from this game"),
        (carol, "Un membre avec Gérer les salons vous a retiré de cette partie"),
    ):
        for rec in (await h.slash(user, "hand"), await h.press(user, table, hand_button)):
            await h.answered(rec)
            text = rec.original_message.text()
            assert expected in text, text
            assert "You left" not in text and "Vous avez quitté" not in text
