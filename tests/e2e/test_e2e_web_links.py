"""The web table from Discord: the links in hands and tables (only with ``PUBLIC_URL``), a game
played by one player on the page and another with Discord buttons, ``/durak play`` (Activity,
link, or "not enabled"), and the owner's sync keeping an Activity's Entry Point command."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from apps.config import Settings
from apps.discord_bot import create_bot
from web.tokens import Signer

from .durak_e2e import MakeHarness, buttons, poll, prefer
from .fakediscord import FakeDiscord, StoredMessage
from .fakediscord.models import walk_components
from .test_e2e_publish_commands import _global_puts
from .test_e2e_startup import _owner_message

pytestmark = pytest.mark.e2e

PUBLIC = "https://durak.example"
WEB = {"public_url": PUBLIC, "web_host": "127.0.0.1", "web_port": 0}
ACTIVITY = {**WEB, "discord_client_id": "4242", "discord_client_secret": "s3cret"}


def links(message: StoredMessage) -> list[tuple[str, str]]:
    """(label, url) of the message's link buttons (style 5)."""
    return [
        (str(c.get("label")), str(c["url"]))
        for c in walk_components(message.components)
        if c.get("type") == 2 and c.get("style") == 5
    ]


def token_of(url: str) -> str:
    assert url.startswith(PUBLIC + "/table#t="), url
    return url.split("#t=", 1)[1]


async def test_hands_and_tables_carry_their_links(harness: MakeHarness) -> None:
    h = harness(settings_extra=WEB)
    alice, bob = h.user("alice"), h.user("bob", locale="fr")
    table = await h.start_with_game(alice, join=[bob], ai=["beginner"], seats=3)
    signer: Signer = h.bot.web.parts.signer
    view = await h.table_view()
    for user in (alice, bob):
        hand = h.hand_message(user)
        assert hand is not None
        (label, url), *more = links(hand)
        assert not more and len(url) <= 512
        claims = signer.verify(token_of(url))
        assert (claims.kind, claims.user_id, claims.channel_id) == ("player", user.id, h.channel)
        assert claims.series_id == view.series_id
        assert label == ("Ouvrir la table" if user is bob else "Open the table")
    watch = links(h.table_message() or table)
    assert [label for label, _ in watch] == ["Watch"]
    claims = signer.verify(token_of(watch[0][1]))
    assert (claims.kind, claims.user_id) == ("watcher", None)
    h.fake.assert_clean()


async def test_without_public_url_no_message_has_a_link(harness: MakeHarness) -> None:
    h = harness()
    alice, bob = h.user("alice"), h.user("bob")
    await h.start_with_game(alice, join=[bob], seats=2)
    await h.play(prefer("attack", "defend", "pass", "take"))
    await h.idle()
    assert h.bot.web is None
    for m in h.fake.messages(h.channel, include_deleted=True):
        for version in m.versions:
            assert not [c for c in walk_components(version.components) if c.get("style") == 5]


async def test_a_page_and_discord_buttons_play_the_same_game(harness: MakeHarness) -> None:
    """Alice plays in the browser with the link of her hand; Bob with his Discord buttons."""
    h = harness(settings_extra=WEB)
    alice, bob = h.user("alice"), h.user("bob")
    await h.start_with_game(alice, join=[bob], seats=2)
    hand_msg = h.hand_message(alice)
    assert hand_msg is not None
    token = token_of(links(hand_msg)[0][1])
    port = h.bot.web.port
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(f"http://127.0.0.1:{port}/ws", headers={"Origin": PUBLIC}) as ws,
    ):
        await ws.send_str(json.dumps({"t": "hello", "token": token, "lang": "en"}))
        frames: list[dict[str, Any]] = []

        async def read() -> None:
            async for msg in ws:
                frames.append(json.loads(msg.data))

        reader = asyncio.create_task(read())
        moves = 0
        while moves < 12:
            view = await h.table_view()
            if view.finished:
                break
            seat = view.seats[view.to_act]
            if seat.user_id == alice.id:  # on the page: the newest hand frame
                hand = await poll(
                    lambda v=view: next(
                        (
                            f["hand"]
                            for f in reversed(frames)
                            if f["t"] == "hand" and f["hand"]["version"] == v.version
                        ),
                        None,
                    ),
                    what="Alice's hand on the page",
                )
                await ws.send_str(
                    json.dumps(
                        {
                            "t": "act",
                            "seq": moves,
                            "game": hand["game"],
                            "version": hand["version"],
                            "action": hand["legal"][0]["text"],
                        }
                    )
                )
                await poll(
                    lambda m=moves: any(
                        f["t"] == "result" and f["seq"] == m and f["ok"] for f in frames
                    ),
                    what="Alice's move accepted",
                )
                # Bob's Discord hand shows Alice's move (its buttons carry the new version)
                await h.idle()
            else:  # Bob presses a button of his Discord hand
                found = await h.turn()
                assert found is not None
                player, msg = found
                assert player.user is bob
                chosen = prefer("defend", "take", "attack", "pass")(player, buttons(msg), view)
                await h.press(bob, msg, chosen)
                # the page gets the table of Bob's move, pushed after it was stored
                await h.idle()
                after = await h.table_view()
                await poll(
                    lambda a=after: any(
                        f["t"] == "table" and f["table"]["version"] == a.version for f in frames
                    ),
                    what="Bob's move on Alice's page",
                )
            moves += 1
        assert moves >= 4
        await ws.close()
        await reader
    h.fake.assert_clean()


async def test_durak_play_says_when_there_is_no_web_table(harness: MakeHarness) -> None:
    h = harness()
    alice, bob = h.user("alice", locale="es-ES"), h.user("bob")
    await h.start_with_game(alice, join=[bob], seats=2)
    rec = await h.slash(alice, "play")
    await h.answered(rec)
    answer = rec.original_message
    assert answer is not None and answer.ephemeral
    assert "PUBLIC_URL" in answer.content and "no está activada" in answer.content
    assert not links(answer)


async def test_durak_play_answers_with_the_link(harness: MakeHarness) -> None:
    h = harness(settings_extra=WEB)
    alice, bob, olga = h.user("alice"), h.user("bob"), h.user("olga")
    await h.start_with_game(alice, join=[bob], seats=2)
    signer: Signer = h.bot.web.parts.signer
    for user, kind in ((alice, "player"), (olga, "watcher")):
        rec = await h.slash(user, "play")
        await h.answered(rec)
        answer = rec.original_message
        assert answer is not None and answer.ephemeral and answer.visible_to == user.id
        (_, url), *_ = links(answer)
        claims = signer.verify(token_of(url))
        assert claims.kind == kind
        assert claims.user_id == (alice.id if kind == "player" else None)


async def test_durak_play_launches_the_activity(harness: MakeHarness) -> None:
    h = harness(settings_extra=ACTIVITY)
    h.fake.enable_activities()
    alice, bob = h.user("alice"), h.user("bob")
    await h.start_with_game(alice, join=[bob], seats=2)
    rec = await h.slash(alice, "play")
    assert rec.callbacks[0].type == 12 and rec.callbacks[0].status in (200, 204)
    await h.idle()
    h.fake.assert_clean()


async def test_durak_play_falls_back_to_the_link_when_discord_refuses(
    harness: MakeHarness,
) -> None:
    """The Activity is configured, but the application has no Activity: the link instead."""
    h = harness(settings_extra=ACTIVITY)
    alice, bob = h.user("alice"), h.user("bob")
    await h.start_with_game(alice, join=[bob], seats=2)
    rec = await alice.slash(h.channel, "durak", subcommand="play", options={})
    await poll(lambda: len(rec.callbacks) >= 2, what="the fallback answer")
    assert rec.callbacks[0].type == 12 and rec.callbacks[0].code == 50234
    assert rec.callbacks[1].type == 5
    await h.answered(rec)
    assert rec.original_message is not None and links(rec.original_message)
    h.fake.reset_checks()  # the refused launch is the point of this test


async def _start_and_stop(fake: FakeDiscord, db: Path) -> None:
    bot = create_bot(Settings(database_path=str(db), ai_delay=0.0), guild_ready_timeout=0.05)
    await fake.start_bot(bot)
    await fake.settle()
    await fake.stop_bot(bot)


async def test_publishing_keeps_the_activitys_entry_point(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    entry = fake.enable_activities()
    await _start_and_stop(fake, tmp_path / "durak.sqlite3")
    assert _global_puts(fake) == 1
    kinds = {(c["name"], c["type"]) for c in fake.commands if not c.get("guild_id")}
    assert kinds == {("durak", 1), ("launch", 4)}
    kept = next(c for c in fake.commands if c["type"] == 4)
    assert kept["id"] == entry["id"]


async def test_the_owners_sync_keeps_the_entry_point(harness: MakeHarness) -> None:
    h = harness()
    fake = h.fake
    fake.enable_activities()
    await h.start()
    await fake.dispatch("MESSAGE_CREATE", _owner_message(fake, f"<@{fake.bot_user_id}> sync"))
    reply = await fake.wait_for_message(fake.channel_id, lambda m: "ync" in m.content)
    assert reply.content.startswith("Synced 2 command(s)")
    assert {c["type"] for c in fake.commands if not c.get("guild_id")} == {1, 4}


async def test_a_web_port_in_use_leaves_the_bot_playing_without_links(
    harness: MakeHarness, caplog: pytest.LogCaptureFixture
) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        h = harness(settings_extra={**WEB, "web_port": port})
        alice, bob = h.user("alice"), h.user("bob")
        await h.start_with_game(alice, join=[bob], seats=2)
        assert h.bot.web is None
        hand = h.hand_message(alice)
        assert hand is not None and not links(hand)
        assert not links(h.table_message() or hand)
    assert any(r.levelname == "ERROR" and "cannot listen" in r.getMessage() for r in caplog.records)
