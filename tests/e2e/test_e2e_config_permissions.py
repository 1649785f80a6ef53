"""``/durak config`` and the bot's own permissions against the fake Discord: settings need
Manage Server and are used by ``/durak new``; a channel where the bot may not post gets a
private refusal naming what is missing and stays free; a table the bot can no longer edit is
told to the host privately and the game waits until ``/durak table`` works again."""

from __future__ import annotations

import discord
import pytest

from .durak_e2e import EPHEMERAL, Harness, MakeHarness, buttons, poll
from .fakediscord import InteractionRecord

pytestmark = pytest.mark.e2e


async def private_answer(h: Harness, rec: InteractionRecord) -> str:
    """The private answer of a slash command (its deferred response, edited)."""
    await h.answered(rec)
    msg = rec.original_message
    assert msg is not None and not msg.deleted, rec.describe()
    assert msg.flags & EPHEMERAL and msg.visible_to == rec.user.id
    return msg.text()


async def settings_rows(h: Harness) -> list[tuple[int, str]]:
    """The server's stored settings, as ``(guild id, JSON)`` rows (none if never saved)."""
    settings = await h.storage.load_server_config(h.fake.guild_id)
    return [] if settings is None else [(h.fake.guild_id, settings)]


async def test_config_needs_manage_server_and_new_lobbies_use_it(harness: MakeHarness) -> None:
    h = harness()
    fake = h.fake
    games = fake.add_channel("games")
    admin = h.user("admin", permissions=discord.Permissions(manage_guild=True))
    odile = h.user("odile", locale="fr", permissions=discord.Permissions(manage_guild=True))
    alice = h.user("alice", locale="fr")
    await h.start()

    # only Manage Server may look or change
    for options in ({}, {"turn_timeout": 30}):
        refused = await private_answer(h, await h.slash(alice, "config", **options))
        assert refused.startswith("⚠️") and "Gérer le serveur" in refused
    shown = await private_answer(h, await h.slash(odile, "config"))
    assert "Réglages du serveur" in shown and "tous les salons" in shown
    assert await settings_rows(h) == []

    # a bad value: a clear private message naming the setting, nothing stored
    refused = await private_answer(h, await h.slash(admin, "config", turn_timeout=5))
    assert refused.startswith("⚠️") and "`turn_timeout`" in refused and "600" in refused
    refused = await private_answer(h, await h.slash(odile, "config", turn_timeout=601))
    assert "`temps_par_tour`" in refused and "“601”" in refused  # in her language
    assert await settings_rows(h) == []

    saved = await private_answer(
        h,
        await h.slash(admin, "config", profile="perevodnoy", turn_timeout=120, add_channel=games),
    )
    assert "Settings saved" in saved and f"<#{games.id}>" in saved and "120" in saved
    assert len(await settings_rows(h)) == 1

    # /durak new in a channel that is not allowed: refused privately, naming the allowed one
    before = await h.db_state()
    text = await private_answer(h, await h.slash(alice, "new"))
    assert text.startswith("⚠️") and f"<#{games.id}>" in text
    assert await h.db_state() == before and h.service.state(h.channel) == "none"
    assert h.lobby_message() is None

    # in the allowed channel, the server's defaults apply to options not given
    rec = await alice.slash(games.id, "durak", subcommand="new", options={})
    await h.answered(rec)
    lobby = await fake.wait_for_message(games.id, lambda m: "durak:lobby:" in str(m.custom_ids))
    text = lobby.text()
    assert "perevodnoy" in text and "120 s" in text
    assert h.service.state(games.id) == "lobby"

    # removing the last channel allows every channel again
    saved = await private_answer(h, await h.slash(admin, "config", remove_channel=games))
    assert "every channel" in saved
    await h.open_lobby(alice)


async def test_help_is_private_and_in_the_callers_language(harness: MakeHarness) -> None:
    h = harness()
    users = {
        "en": h.user("ann"),
        "es": h.user("bea", locale="es-ES"),
        "fr": h.user("cle", locale="fr"),
    }
    await h.start()
    titles = {"en": "Durak — help", "es": "Durak — ayuda", "fr": "Durak — aide"}
    for lang, user in users.items():
        rec = await h.slash(user, "help")
        await h.answered(rec)
        msg = rec.original_message
        assert msg is not None and msg.visible_to == user.id and msg.flags & EPHEMERAL
        assert msg.embeds and msg.embeds[0]["title"] == titles[lang]
    assert all(m.visible_to is not None for m in h.fake.messages(h.channel))


async def test_missing_send_messages_is_named_and_opens_nothing(harness: MakeHarness) -> None:
    h = harness()
    fake = h.fake
    alice, bea = h.user("alice"), h.user("bea", locale="es-ES")
    await h.start()
    fake.deny_bot(h.channel, send_messages=True)
    before = await h.db_state()
    text = await private_answer(h, await h.slash(alice, "new"))
    assert text.startswith("⚠️") and "Send Messages" in text
    assert "View Channel" not in text and "Embed Links" not in text
    text = await private_answer(h, await h.slash(bea, "new", seats=2))
    assert "Enviar mensajes" in text
    assert await h.db_state() == before and h.service.state(h.channel) == "none"
    assert not [m for m in fake.messages(h.channel) if m.visible_to is None]
    assert not fake.requests_to(rf"/channels/{h.channel}/messages$", "POST")

    fake.allow_bot(h.channel)  # the channel was never taken: a lobby opens at once
    await h.open_lobby(alice)


async def test_a_failed_table_edit_pauses_the_game_until_table_works(harness: MakeHarness) -> None:
    h = harness(seeds=[3])
    fake = h.fake
    alice, bob = h.user("alice"), h.user("bob")
    await h.start_with_game(alice, join=[bob], seats=2)
    # the token of the press that posted the table has expired, so the bot token edits it;
    # the host's hand comes back through a fresh press
    fake.advance_clock(16 * 60)
    await h.show_hand(alice)
    found = await h.turn()
    assert found is not None
    player, hand = found

    fake.deny_bot(h.channel, view_channel=True)  # a moderator hides the channel from the bot
    view = await h.table_view()
    choice = next(b for b in buttons(hand) if b.is_game_action)
    await h.press(player.user, hand, choice)
    await h.idle()
    moved = await h.table_view()
    assert moved.version == view.version + 1
    assert h.service.timers_paused(h.channel)

    # the host is told privately, once, naming the channel
    def warnings() -> list[str]:
        return [
            m.content
            for m in fake.messages(h.channel)
            if m.visible_to == alice.id
            and m.content.startswith("⚠️")
            and "/durak table" in m.content
        ]

    await poll(warnings, what="the host's private warning")
    assert len(warnings()) == 1 and f"<#{h.channel}>" in warnings()[0]
    assert not [m for m in fake.messages(h.channel) if m.visible_to == bob.id and m.content]

    # nothing times out while nobody can see the table
    await h.clock.advance(10 * h.turn_timeout)
    await h.idle()
    assert (await h.table_view()).version == moved.version
    assert h.service.timers_paused(h.channel)

    # /durak table while the bot still may not post: a private refusal, still paused
    text = await private_answer(h, await h.slash(bob, "table"))
    assert "View Channel" in text and h.service.timers_paused(h.channel)

    fake.allow_bot(h.channel)
    rec = await h.slash(bob, "table")
    await h.answered(rec)
    assert not h.service.timers_paused(h.channel)
    table = await h.wait_table()
    assert table.visible_to is None and not table.deleted
    resumed = await h.table_view()
    assert resumed.deadline is not None and resumed.deadline > h.clock.now()


async def test_a_lobby_that_cannot_be_posted_is_closed_and_the_host_told(
    harness: MakeHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The permissions change between the check and the post (Discord's ``app_permissions``
    said yes): the lobby, which nobody could see, is closed and its host told privately."""
    from cogs.durak_commands import DurakCog

    h = harness()
    fake = h.fake
    bea = h.user("bea", locale="es-ES")
    await h.start()
    monkeypatch.setattr(DurakCog, "missing_permissions", staticmethod(lambda interaction: []))
    fake.deny_bot(h.channel, send_messages=True)
    rec = await h.slash(bea, "new")
    await h.answered(rec)
    await poll(lambda: h.service.state(h.channel) == "none", what="the lobby to close")
    await h.idle()
    assert (await h.storage.load_state()).lobbies == []
    warnings = [
        m.content
        for m in fake.messages(h.channel)
        if m.visible_to == bea.id and m.content.startswith("⚠️")
    ]
    assert len(warnings) == 1 and "No pude publicar la sala" in warnings[0]
    assert f"<#{h.channel}>" in warnings[0]
    assert not [m for m in fake.messages(h.channel) if m.visible_to is None]

    fake.allow_bot(h.channel)  # the channel is free: a new lobby opens and is seen
    await h.open_lobby(bea)
