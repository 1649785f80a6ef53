"""Smoke tests: the real discord.py client against the fake Discord server (tests/e2e/fakediscord).

The bot here is a throwaway: one app-command group ``/demo`` and a persistent DynamicItem button.
"""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands

try:
    from fakediscord import (
        CommandNotRegisteredError,
        FakeDiscord,
        FakeDiscordError,
        NotVisibleError,
        pytest_plugin,
    )
except ImportError:  # pragma: no cover - if tests/ and tests/e2e/ become packages
    from tests.e2e.fakediscord import (  # type: ignore[no-redef]
        CommandNotRegisteredError,
        FakeDiscord,
        FakeDiscordError,
        NotVisibleError,
        pytest_plugin,
    )

pytestmark = pytest.mark.e2e
fake_discord = pytest_plugin.fake_discord  # the reusable fixture


class Counter(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"demo:(?P<n>[0-9]+)"):
    """Persistent counter button: works on messages sent before a restart."""

    def __init__(self, n: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=f"Count {n}", style=discord.ButtonStyle.primary, custom_id=f"demo:{n}"
            )
        )
        self.n = n

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any
    ) -> Counter:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        interaction.client.handled.append(self.n)
        view = discord.ui.View(timeout=None)
        view.add_item(Counter(self.n + 1))
        await interaction.response.edit_message(content=f"count {self.n + 1}", view=view)


class Picker(discord.ui.View):
    @discord.ui.select(
        custom_id="pick",
        options=[discord.SelectOption(label=s, value=s) for s in ("spades", "hearts")],
    )
    async def pick(
        self, interaction: discord.Interaction[Any], select: discord.ui.Select[Any]
    ) -> None:
        await interaction.response.edit_message(content=f"picked {select.values[0]}", view=None)


class AskModal(discord.ui.Modal, title="Your name"):
    name: discord.ui.TextInput[Any] = discord.ui.TextInput(label="Name", custom_id="name")

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(
            f"nice to meet you, {self.name.value}", ephemeral=True
        )


class DemoBot(commands.Bot):
    def __init__(self, guild_id: int) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            guild_ready_timeout=0.05,
        )
        self.guild_id = guild_id
        self.handled: list[int] = []
        self.seen: list[discord.Interaction[Any]] = []
        self.errors: list[Exception] = []
        group = app_commands.Group(name="demo", description="Demo commands")

        @group.command(name="hello", description="Say hello privately")
        async def hello(
            interaction: discord.Interaction[Any],
            name: str,
            times: int = 1,
            loud: bool = False,
            friend: discord.Member | None = None,
        ) -> None:
            self.seen.append(interaction)
            text = " ".join([f"hello {name}"] * times) + (f" and {friend.name}" if friend else "")
            await interaction.response.send_message(text.upper() if loud else text, ephemeral=True)

        @group.command(name="board", description="Post a public counter")
        async def board(interaction: discord.Interaction[Any]) -> None:
            view = discord.ui.View(timeout=None)
            view.add_item(Counter(0))
            await interaction.response.send_message("count 0", view=view)

        @group.command(name="slow", description="Deferred answer with a followup")
        async def slow(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.defer(thinking=True)
            await interaction.edit_original_response(content="done")
            await interaction.followup.send("follow", ephemeral=True)
            await interaction.edit_original_response(content="done, edited")

        @group.command(name="pick", description="Private select menu")
        async def pick(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_message("pick a suit", view=Picker(), ephemeral=True)

        @group.command(name="ask", description="Open a modal")
        async def ask(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_modal(AskModal())

        @group.command(name="late", description="Answers after a delay")
        async def late(interaction: discord.Interaction[Any]) -> None:
            await asyncio.sleep(0.3)  # a real delay: past the deadline the test sets (0.2 s)
            try:
                await interaction.response.send_message("too late")
            except discord.NotFound as exc:
                self.errors.append(exc)

        self.tree.add_command(group, guild=discord.Object(guild_id))

    async def setup_hook(self) -> None:
        self.add_dynamic_items(Counter)
        await self.tree.sync(guild=discord.Object(self.guild_id))


@pytest.fixture
async def bot(fake_discord: FakeDiscord) -> DemoBot:
    demo = DemoBot(fake_discord.guild_id)
    await fake_discord.start_bot(demo)  # stopped by the fake_discord fixture
    return demo


async def test_login_ready_guild_and_sync(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    fake = fake_discord
    assert bot.is_ready() and bot.user is not None and bot.user.id == fake.bot_user_id
    guild = bot.get_guild(fake.guild_id)
    assert guild is not None and guild.name == fake.guild_name
    assert [c.name for c in guild.text_channels] == ["general"]
    assert guild.me is not None and guild.me.guild_permissions.send_messages
    cmd = fake.command("demo")
    assert cmd is not None and cmd["guild_id"] == str(fake.guild_id)
    assert {o["name"] for o in cmd["options"]} == {"hello", "board", "slow", "pick", "ask", "late"}
    assert fake.requests_to(r"/applications/\d+/guilds/\d+/commands$", "PUT")
    assert [e.name for e in fake.gateway_log if e.direction == "recv" and e.op == 2] == ["IDENTIFY"]
    async with (
        aiohttp.ClientSession() as session,
        session.get(
            fake.rest_url + "/users/@me", headers={"Authorization": f"Bot {fake.token}"}
        ) as resp,
    ):
        assert resp.headers["Content-Type"] == "application/json"
    # a channel added later reaches the running bot
    extra = fake.add_channel("durak-2")
    await fake.wait_until(lambda: bot.get_channel(extra.id) is not None, 2, "CHANNEL_CREATE")


async def test_the_gateway_barrier_returns_once_the_bot_read_every_event(
    fake_discord: FakeDiscord, bot: DemoBot
) -> None:
    fake = fake_discord
    extra = fake.add_channel("durak-3")
    role = fake.add_role("latecomers")
    await fake.gateway_barrier()  # no waiting on the bot's state: it has read both events
    guild = bot.get_guild(fake.guild_id)
    assert guild is not None and guild.get_role(role) is not None
    assert bot.get_channel(extra.id) is not None
    beat = [e for e in fake.gateway_log if e.direction == "recv" and e.op == 1][-1]
    assert beat.seq == fake.sessions[0].seq  # the heartbeat acknowledged the last dispatch


async def test_slash_ephemeral_and_visibility(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    fake = fake_discord
    alice, bob = fake.add_user("alice"), fake.add_user("bob", locale="fr")
    rec = await alice.slash(
        fake.channel_id,
        "demo",
        subcommand="hello",
        options={"name": "Al", "times": 2, "loud": True, "friend": bob},
    )
    cb = await rec.wait_response()
    assert cb.type == 4 and cb.accepted and cb.latency < 3.0
    msg = rec.original_message
    assert msg is not None and msg.ephemeral and msg.visible_to == alice.id
    assert msg.content == "HELLO AL HELLO AL AND BOB"
    assert bot.seen[-1].locale == discord.Locale.american_english
    assert fake.last_message(fake.channel_id, visible_to=alice) is msg
    assert fake.last_message(fake.channel_id, visible_to=bob) is None
    assert any("HELLO AL" in v.text() for v in fake.visible_messages(alice))
    assert not any("HELLO AL" in v.text() for v in fake.visible_messages(bob))
    with pytest.raises(NotVisibleError):
        await bob.press(msg, "anything")
    channel = bot.get_channel(fake.channel_id)
    assert isinstance(channel, discord.TextChannel)
    with pytest.raises(discord.NotFound) as err:  # ephemeral messages are not in the channel API
        await channel.fetch_message(msg.id)
    assert err.value.code == 10008
    with pytest.raises(CommandNotRegisteredError):
        await alice.slash(fake.channel_id, "nope")
    with pytest.raises(CommandNotRegisteredError):
        await alice.slash(fake.channel_id, "demo", subcommand="hello", options={"nam": "x"})
    with pytest.raises(FakeDiscordError):
        await alice.slash(fake.channel_id, "demo", subcommand="hello", options={"times": 1})


async def test_dynamic_button_edit_and_second_bot_process(
    fake_discord: FakeDiscord, bot: DemoBot
) -> None:
    fake = fake_discord
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    rec = await alice.slash(fake.channel_id, "demo", subcommand="board")
    board = await rec.wait_original()
    assert not board.ephemeral and fake.find_components(board) == [("demo:0", "Count 0", False, 1)]

    press = await bob.press(board, "demo:0")  # anyone can press a public message
    cb = await press.wait_response()
    assert cb.type == 7 and cb.accepted and bot.handled == [0]
    assert board.content == "count 1" and board.custom_ids == ["demo:1"]
    assert [v.content for v in board.versions] == ["count 0", "count 1"]

    # "restart": a new client object on the same fake handles buttons sent by the first one
    await fake.stop_bot(bot)
    bot2 = await fake.start_bot(DemoBot(fake.guild_id))
    assert isinstance(bot2, DemoBot)
    press2 = await alice.press(board, "demo:1")
    assert (await press2.wait_response()).type == 7
    assert bot2.handled == [1] and board.content == "count 2"
    assert len(fake.sessions) == 2 and press2.session_id == fake.sessions[1].id


async def test_select_on_own_ephemeral_and_modal(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    fake = fake_discord
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    rec = await alice.slash(fake.channel_id, "demo", subcommand="pick")
    msg = await rec.wait_original()
    assert msg.ephemeral
    with pytest.raises(NotVisibleError):
        await bob.select(msg, "pick", ["hearts"])
    sel = await alice.select(msg, "pick", ["hearts"])
    assert (await sel.wait_response()).type == 7
    assert msg.content == "picked hearts" and msg.components == []

    ask = await alice.slash(fake.channel_id, "demo", subcommand="ask")
    assert (await ask.wait_response()).type == 9 and ask.modal is not None
    sub = await alice.modal_submit(ask, {"name": "Alice"})
    reply = await sub.wait_original()
    assert reply.content == "nice to meet you, Alice" and reply.visible_to == alice.id


async def test_defer_followup_and_edit_original(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    fake = fake_discord
    alice = fake.add_user("alice")
    rec = await alice.slash(fake.channel_id, "demo", subcommand="slow")
    assert (await rec.wait_response()).type == 5
    original = await rec.wait_original(predicate=lambda m: m.content == "done, edited")
    assert [v.content for v in original.versions] == ["", "done", "done, edited"]
    assert original.history[0].flags & 128  # the "thinking" version
    (follow,) = await rec.wait_followups(1)
    assert follow.content == "follow" and follow.visible_to == alice.id


async def test_token_expiry_gives_50027_and_bot_survives(
    fake_discord: FakeDiscord, bot: DemoBot
) -> None:
    fake = fake_discord
    alice = fake.add_user("alice")
    rec = await alice.slash(fake.channel_id, "demo", subcommand="hello", options={"name": "a"})
    await rec.wait_response()
    fake.advance_clock(16 * 60)
    with pytest.raises(discord.HTTPException) as err:
        await bot.seen[-1].edit_original_response(content="much later")
    assert err.value.status == 401 and err.value.code == 50027
    assert fake.expired_token_uses
    again = await alice.slash(fake.channel_id, "demo", subcommand="hello", options={"name": "b"})
    assert (await again.wait_response()).accepted


async def test_forced_429_is_retried(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    fake = fake_discord
    rule = fake.force_429(r"^/channels/\d+/messages$", retry_after=0.1, method="POST")
    channel = bot.get_channel(fake.channel_id)
    assert isinstance(channel, discord.TextChannel)
    sent = await channel.send("after a 429")
    assert rule.hits == 1
    assert [r.status for r in fake.requests_to(r"^/channels/\d+/messages$", "POST")] == [429, 200]
    stored = fake.get_message(sent.id)
    assert stored is not None and stored.content == "after a 429" and stored.created_by == "channel"


async def test_drop_gateway_resume(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    fake = fake_discord
    alice = fake.add_user("alice")
    await fake.drop_gateway()
    assert fake.resume_count == 1 and len(fake.sessions) == 1
    rec = await alice.slash(fake.channel_id, "demo", subcommand="hello", options={"name": "x"})
    assert (await rec.wait_response()).accepted
    # an interaction dispatched while the socket is down is replayed after RESUME
    await fake.drop_gateway(wait_resume=False)
    assert not fake.sessions[0].connected
    missed = await alice.slash(fake.channel_id, "demo", subcommand="hello", options={"name": "y"})
    assert (await missed.wait_response()).accepted
    assert fake.resume_count == 2


async def test_checks_can_fail(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    fake = fake_discord
    fake.assert_clean()
    with pytest.raises(discord.NotFound):
        await bot.http.request(discord.http.Route("GET", "/nowhere/{x}", x=1))
    with pytest.raises(AssertionError, match=r"unknown route: GET /nowhere/1"):
        fake.assert_clean()
    fake.reset_checks()

    fake.ack_deadline = 0.2  # /demo late answers after 0.3 s
    alice = fake.add_user("alice")
    rec = await alice.slash(fake.channel_id, "demo", subcommand="late")
    cb = await rec.wait_response()
    assert cb.status == 404 and cb.code == 10062 and rec.late
    await fake.wait_until(lambda: bool(bot.errors), 2)
    assert isinstance(bot.errors[0], discord.NotFound) and bot.errors[0].code == 10062
    with pytest.raises(AssertionError, match="late acknowledgement"):
        fake.assert_clean()
    fake.reset_checks()

    # a button nobody handles leaves the interaction unanswered
    channel = bot.get_channel(fake.channel_id)
    assert isinstance(channel, discord.TextChannel)
    view = discord.ui.View()
    view.add_item(discord.ui.Button(label="orphan", custom_id="orphan"))
    sent = await channel.send("no handler", view=view)
    orphan = await alice.press(sent, "orphan")
    await fake.settle()  # returns once the 0.2 s deadline passed: any answer now is too late
    assert not orphan.callbacks
    with pytest.raises(AssertionError, match="unanswered interaction"):
        fake.assert_clean()
    fake.reset_checks()
    fake.assert_clean()
