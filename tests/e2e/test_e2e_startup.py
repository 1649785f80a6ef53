"""Startup: the token checks of ``durak-bot``, the sharded client, languages, and the
owner-only global sync."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import discord
import pytest
from discord.backoff import ExponentialBackoff
from discord.ext import commands
from discord.gateway import DiscordWebSocket

from apps import discord_bot as discord_app
from apps.config import Settings
from apps.discord_bot import ShardedDurakBot, create_bot
from cogs.i18n import COMMANDS, catalog

from .bot_process import VALID_LOOKING_TOKEN, bot_is_up, bot_process
from .durak_e2e import MakeHarness, buttons, is_hand
from .fakediscord import FakeDiscord

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]


# ``python -m apps`` with discord.py's REST base pointed at ``sys.argv[1]``: the real entry point,
# talking to a loopback address instead of discord.com (no traffic leaves the machine).
RUN_BOT_AT = (
    "import runpy, sys, discord.http; discord.http.Route.BASE = sys.argv.pop(1); "
    "runpy.run_module('apps', run_name='__main__', alter_sys=True)"
)
LOG_RECORD = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ (DEBUG|INFO) ")


def _bot_env(tmp_path: Path, token: str | None, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISCORD_TOKEN", "DEV_GUILD_ID", "LOG_LEVEL")
    }
    env["DATABASE_PATH"] = str(tmp_path / "durak.sqlite3")
    env["PYTHONPATH"] = str(ROOT)
    if token is not None:
        env["DISCORD_TOKEN"] = token
    env.update(extra)
    return env


async def _run_bot_at(rest_base: str, env: dict[str, str], cwd: Path) -> tuple[int, str]:
    """Run the entry point in a subprocess without blocking this loop (the fake serves it)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        RUN_BOT_AT,
        rest_base,
        cwd=cwd,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, err.decode()


def _problem_lines(stderr: str) -> list[str]:
    """stderr without blank lines and without the INFO/DEBUG log records of a normal start."""
    return [line for line in stderr.splitlines() if line.strip() and not LOG_RECORD.match(line)]


def _refused_at_start(cwd: Path, env: dict[str, str]) -> str:
    """Run ``durak-bot`` in ``cwd``; it must exit with 2 and print one line: returned."""
    proc = subprocess.run(
        [sys.executable, "-m", "apps"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    return lines[0]


@pytest.mark.parametrize(
    "token, hint",
    [
        (None, "is not set"),
        ("not-a-token-but-long-enough", "does not look like a bot token"),
        ("Bot " + VALID_LOOKING_TOKEN, "remove the 'Bot ' prefix"),
        ("Bot a.b.c", "remove the 'Bot ' prefix"),
    ],
)
def test_missing_or_malformed_token_is_one_clear_line(
    tmp_path: Path, token: str | None, hint: str
) -> None:
    line = _refused_at_start(tmp_path, _bot_env(tmp_path, token))
    assert line.startswith("DISCORD_TOKEN") and hint in line


@pytest.mark.parametrize("with_env_file", [False, True])
def test_a_missing_token_names_the_env_file_looked_for(tmp_path: Path, with_env_file: bool) -> None:
    """Started from another directory, the bot says which ``.env`` it read (or looked for)."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if with_env_file:
        (elsewhere / ".env").write_text("LOG_LEVEL=INFO\n", encoding="utf-8")
    line = _refused_at_start(elsewhere, _bot_env(tmp_path, None))
    assert line.startswith("DISCORD_TOKEN is not set")
    assert str(elsewhere.resolve() / ".env") in line or str(elsewhere / ".env") in line
    assert ("there is no" in line) is not with_env_file


@pytest.mark.parametrize("token", ["Bot a.b.c", "short", None])
def test_terminal_mode_needs_no_valid_token(tmp_path: Path, token: str | None) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "apps", "play", "--seed", "1", "--ai-delay", "0"],
        cwd=tmp_path,
        env=_bot_env(tmp_path, token),
        input="q\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Game stopped." in proc.stdout
    assert proc.stderr == ""


async def test_no_network_at_first_start_is_one_line(tmp_path: Path) -> None:
    # A bound socket that never listens: connecting to it is refused at once, as an unreachable
    # discord.com is (DNS failure and refused connections raise the same aiohttp error).
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as closed:
        closed.bind(("127.0.0.1", 0))
        base = f"http://127.0.0.1:{closed.getsockname()[1]}/api/v10"
        started = time.monotonic()
        code, err = await _run_bot_at(base, _bot_env(tmp_path, VALID_LOOKING_TOKEN), tmp_path)
        quiet_code, quiet_err = await _run_bot_at(
            base, _bot_env(tmp_path, VALID_LOOKING_TOKEN, LOG_LEVEL="WARNING"), tmp_path
        )
    assert time.monotonic() - started < 30  # gives up at once, no retry loop at first start
    assert code == quiet_code == 1
    assert "Traceback" not in err
    assert "voice" not in err.lower()  # discord.py's PyNaCl/davey warnings are switched off
    lines = _problem_lines(err)
    assert len(lines) == 1, err
    assert lines[0].startswith("Cannot reach Discord (") and "127.0.0.1" in lines[0]
    assert quiet_err.splitlines() == lines  # at LOG_LEVEL=WARNING it is the only line


async def test_json_logs_are_one_object_per_line(tmp_path: Path) -> None:
    """``LOG_FORMAT=json``: every log record of a real start (the bot's and discord.py's) is one
    JSON object on one line; only the final problem line is plain text."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as closed:
        closed.bind(("127.0.0.1", 0))
        base = f"http://127.0.0.1:{closed.getsockname()[1]}/api/v10"
        env = _bot_env(tmp_path, VALID_LOOKING_TOKEN, LOG_FORMAT="json", LOG_LEVEL="DEBUG")
        code, err = await _run_bot_at(base, env, tmp_path)
    assert code == 1
    *records, problem = [line for line in err.splitlines() if line.strip()]
    assert problem.startswith("Cannot reach Discord (")
    assert records, err
    loggers = set()
    for line in records:
        record = json.loads(line)
        assert set(record) == {"time", "level", "logger", "message", "exception"}, line
        assert record["level"] in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
        assert isinstance(record["message"], str)
        loggers.add(record["logger"])
    assert any(name.startswith("bot.") for name in loggers), loggers
    assert any(name.startswith("discord") for name in loggers), loggers


class _FailingBot:
    def __init__(self, error: BaseException) -> None:
        self.error = error

    def run(self, token: str, **_: Any) -> None:
        raise self.error


@pytest.mark.parametrize(
    "error",
    [
        socket.gaierror(-2, "Name or service not known"),
        ConnectionRefusedError(111, "Connection refused"),
        discord.GatewayNotFound(),
        TimeoutError(),
    ],
)
def test_only_network_errors_read_as_no_network(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    error: BaseException,
    tmp_path: Path,
) -> None:
    monkeypatch.setattr(discord_app, "create_bot", lambda settings: _FailingBot(error))
    assert discord_app.run(_settings_in(tmp_path)) == 1
    err = capsys.readouterr().err
    assert err.startswith("Cannot reach Discord (") and len(err.splitlines()) == 1


def test_a_local_os_error_is_not_blamed_on_the_network(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    error = PermissionError(13, "Permission denied", "/var/lib/durak.sqlite3")
    monkeypatch.setattr(discord_app, "create_bot", lambda settings: _FailingBot(error))
    with pytest.raises(PermissionError):
        discord_app.run(_settings_in(tmp_path))


def _settings_in(tmp_path: Path) -> Settings:
    """A well-formed token and a database in ``tmp_path`` (``run`` checks it is usable)."""
    return Settings(discord_token=VALID_LOOKING_TOKEN, database_path=str(tmp_path / "db.sqlite3"))


async def test_a_token_discord_rejects_is_one_clear_line(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    # the fake answers 401 to any token but its own
    code, err = await _run_bot_at(
        fake_discord.rest_url, _bot_env(tmp_path, VALID_LOOKING_TOKEN), tmp_path
    )
    assert code == 2
    assert "Traceback" not in err and "voice" not in err.lower()
    lines = _problem_lines(err)
    assert len(lines) == 1, err
    assert "DISCORD_TOKEN" in lines[0] and "401" in lines[0]


def test_the_bot_asks_only_for_the_intents_it_needs(tmp_path: Path) -> None:
    bot = create_bot(Settings(database_path=str(tmp_path / "durak.sqlite3")))
    assert bot.intents == discord.Intents(guilds=True, guild_messages=True)
    assert not bot.intents.message_content and not bot.intents.members


async def test_a_connection_lost_after_start_is_retried_with_backoff(
    harness: MakeHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once running, a dropped gateway whose reconnects fail (no network for a while) is retried
    with discord.py's capped exponential backoff, and the bot resumes; it never exits."""
    h = harness()
    fake = h.fake
    await h.start()
    real_from_client = DiscordWebSocket.from_client.__func__  # type: ignore[attr-defined]
    outage = {"failures_left": 3}

    async def unreachable_for_a_while(
        cls: type[DiscordWebSocket], client: discord.Client, **params: Any
    ) -> DiscordWebSocket:
        if outage["failures_left"]:
            outage["failures_left"] -= 1
            raise OSError(errno.ENETUNREACH, "Network is unreachable")
        return await real_from_client(cls, client, **params)  # type: ignore[no-any-return]

    delays: list[tuple[int, float]] = []
    real_delay = ExponentialBackoff.delay

    def recorded_delay(self: ExponentialBackoff[bool]) -> float:
        delays.append((self._exp + 1, real_delay(self)))  # the exponent this delay uses
        return 0.01  # keep the test fast; the real delay was recorded

    monkeypatch.setattr(DiscordWebSocket, "from_client", classmethod(unreachable_for_a_while))
    monkeypatch.setattr(ExponentialBackoff, "delay", recorded_delay)
    await fake.drop_gateway(timeout=15)  # waits for the RESUME after the outage
    assert outage["failures_left"] == 0
    assert [exp for exp, _ in delays] == [1, 2, 3]  # growing: up to 2, 4, 8 seconds
    assert all(0 <= delay <= 2**exp for exp, delay in delays)
    assert ExponentialBackoff()._max == 10  # capped: never more than 2**10 s between tries
    assert h.bot.is_ready() and not h.bot.is_closed()


async def test_sharded_bot_plays(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    settings = Settings(
        database_path=str(tmp_path / "durak.sqlite3"),
        dev_guild_id=fake.guild_id,
        shard_count=1,
        ai_delay=0.0,
    )
    bot = create_bot(settings, guild_ready_timeout=0.05)
    assert isinstance(bot, ShardedDurakBot) and isinstance(bot, commands.AutoShardedBot)
    assert bot.shard_count == 1
    await fake.start_bot(bot)
    alice = fake.add_user("alice")
    rec = await alice.slash(fake.channel_id, "durak", subcommand="new", options={"seats": 2})
    assert (await rec.wait_response()).accepted
    lobby = await fake.wait_for_message(
        fake.channel_id, lambda m: any("lobby" in c for c in m.custom_ids)
    )
    assert lobby.visible_to is None
    assert [e.name for e in fake.gateway_log if e.direction == "recv" and e.op == 2]
    await fake.settle()
    await fake.stop_bot(bot)


async def test_languages_user_then_server(harness: MakeHarness) -> None:
    h = harness(seeds=[2])
    fake = h.fake
    alice, pierre = h.user("alice"), h.user("pierre", locale="fr")
    lucia = h.user("lucia", locale="es-ES")
    await h.start()
    # command names and descriptions are localised
    cmd = fake.command("durak")
    assert cmd is not None
    fr, es = catalog("fr"), catalog("es")
    desc = cmd.get("description_localizations") or {}
    assert desc.get("fr") == fr.pgettext("cmd", COMMANDS["durak"]) != COMMANDS["durak"]
    assert desc.get("es-ES") == es.pgettext("cmd", COMMANDS["durak"])

    await h.start_game(alice, join=[pierre], ai=["beginner"], seats=3)
    table = h.table_message()
    assert table is not None and "Show my hand" in table.text()  # the server's language
    hand = await h.show_hand(pierre)
    assert is_hand(hand.current) and hand.embeds[0]["title"].startswith("Votre main")
    rec = await h.slash(lucia, "hand")  # not seated: refused in Spanish
    await h.answered(rec)
    msg = rec.original_message
    assert msg is not None and msg.ephemeral
    assert "no tienes asiento" in msg.content.lower()
    assert buttons(hand)


def _owner_message(fake: FakeDiscord, content: str) -> dict[str, object]:
    owner = {
        "id": str(fake.owner_id),
        "username": "owner",
        "discriminator": "0",
        "avatar": None,
        "global_name": "Owner",
        "public_flags": 0,
    }
    return {
        "id": str(int(time.time() * 1000) << 22),
        "channel_id": str(fake.channel_id),
        "guild_id": str(fake.guild_id),
        "author": owner,
        "content": content,
        "timestamp": "2025-01-01T00:00:00+00:00",
        "edited_timestamp": None,
        "tts": False,
        "mention_everyone": False,
        "mentions": [],
        "mention_roles": [],
        "attachments": [],
        "embeds": [],
        "components": [],
        "pinned": False,
        "type": 0,
        "flags": 0,
    }


async def test_owner_sync_command(harness: MakeHarness) -> None:
    h = harness()
    fake = h.fake
    await h.start()
    assert all(c.get("guild_id") for c in fake.commands)  # never a global sync on start
    await fake.dispatch("MESSAGE_CREATE", _owner_message(fake, f"<@{fake.bot_user_id}> sync"))
    await fake.wait_until(
        lambda: any(not c.get("guild_id") for c in fake.commands), 5, "a global sync"
    )
    reply = await fake.wait_for_message(fake.channel_id, lambda m: "Synced" in m.content)
    assert reply.visible_to is None
    assert any(c["name"] == "durak" and not c.get("guild_id") for c in fake.commands)
    assert isinstance(h.bot.tree, discord.app_commands.CommandTree)


@pytest.mark.parametrize("words", ["sync heer", "sync here please"])
async def test_owner_sync_with_an_unknown_scope_is_refused(
    harness: MakeHarness, words: str
) -> None:
    h = harness()
    fake = h.fake
    await h.start()
    before = [dict(c) for c in fake.commands]
    await fake.dispatch("MESSAGE_CREATE", _owner_message(fake, f"<@{fake.bot_user_id}> {words}"))
    reply = await fake.wait_for_message(
        fake.channel_id, lambda m: "Unknown sync scope" in m.content
    )
    assert "nothing was synced" in reply.content and "sync clear" in reply.content
    await fake.settle()
    assert [dict(c) for c in fake.commands] == before  # no global sync, no guild sync


async def test_sigterm_stops_the_bot_gracefully_keeping_each_turns_time(tmp_path: Path) -> None:
    """A service manager's stop (SIGTERM) closes the bot as Ctrl-C does: exit 0, and each
    waiting turn's time left is stored (``remaining``), so the restart re-arms exactly that
    instead of what the crash path gives."""
    async with FakeDiscord(token=VALID_LOOKING_TOKEN) as fake:
        env = _bot_env(tmp_path, VALID_LOOKING_TOKEN, DEV_GUILD_ID=str(fake.guild_id), AI_DELAY="0")
        async with bot_process(
            fake, tmp_path, env, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE
        ) as proc:
            await bot_is_up(fake, proc, 60)
            assert fake.command("durak") is not None  # synced before it connected
            alice, bob = fake.add_user("alice"), fake.add_user("bob")
            for user, sub, options, done in (
                (alice, "new", {"seats": 2}, "SELECT COUNT(*) FROM lobbies"),
                (bob, "join", {}, "SELECT COUNT(*) FROM lobbies WHERE data LIKE '%Bob%'"),
                (alice, "start", {}, "SELECT COUNT(*) FROM live_games"),
            ):
                rec = await user.slash(fake.channel_id, "durak", subcommand=sub, options=options)
                assert (await rec.wait_response()).accepted
                async with asyncio.timeout(20):  # the bot stores it (another process's file)
                    while _count(tmp_path / "durak.sqlite3", done) == 0:
                        await asyncio.sleep(0.05)
            # the bot is done starting the game: its table is posted, nothing is in flight
            await fake.wait_for_message(
                fake.channel_id,
                lambda m: m.visible_to is None and any(b.verb == "hand" for b in buttons(m)),
                timeout=20,
            )
            await fake.settle()
            proc.send_signal(signal.SIGTERM)
            _out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    con = sqlite3.connect(tmp_path / "durak.sqlite3")
    try:
        ((meta,),) = con.execute("SELECT meta FROM live_games").fetchall()
    finally:
        con.close()
    remaining = json.loads(meta)["remaining"]
    assert remaining is not None and 0 < remaining < 60


def _count(path: Path, query: str) -> int:
    """The number a ``SELECT COUNT(*)`` reads from the bot's SQLite file (0 before it exists)."""
    if not path.exists():
        return 0
    con = sqlite3.connect(path)
    try:
        return int(con.execute(query).fetchone()[0])
    except sqlite3.OperationalError:  # no such table yet
        return 0
    finally:
        con.close()
