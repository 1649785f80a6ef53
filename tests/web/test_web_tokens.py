"""Signed table tokens, the secret kept in the database, and the links Discord carries."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from apps.config import Settings
from bot.errors import ConfigError
from bot.storage import SqliteStorage
from web.links import TableLinks
from web.tokens import PLAYER_TTL, SECRET_KEY, Signer, TokenError, load_secret

SIGNER = Signer(b"sixteen bytes at least, surely")


def test_a_player_token_says_who_where_and_until_when() -> None:
    token = SIGNER.player(123456789012345678, 987654321098765432, 7, "es-ES", now=1000.0)
    claims = SIGNER.verify(token, now=1001.0)
    assert (claims.kind, claims.channel_id, claims.user_id, claims.series_id) == (
        "player",
        123456789012345678,
        987654321098765432,
        7,
    )
    assert claims.locale == "es-ES" and claims.expires == 1000 + PLAYER_TTL
    assert len(token) < 250


def test_a_watcher_token_has_no_user() -> None:
    claims = SIGNER.verify(SIGNER.watcher(5, now=0.0), now=1.0)
    assert (claims.kind, claims.user_id, claims.series_id, claims.locale) == (
        "watcher",
        None,
        None,
        None,
    )


def test_two_tokens_are_never_the_same_text() -> None:
    assert SIGNER.player(1, 2, 3, now=0.0) != SIGNER.player(1, 2, 3, now=0.0)


def test_expiry() -> None:
    token = SIGNER.watcher(5, now=0.0, ttl=60)
    SIGNER.verify(token, now=59.0)
    with pytest.raises(TokenError) as err:
        SIGNER.verify(token, now=60.0)
    assert err.value.message.key.startswith("this link has expired")


def _flip(text: str, i: int) -> str:
    return text[:i] + ("A" if text[i] != "A" else "B") + text[i + 1 :]


@pytest.mark.parametrize("where", [0, 10, -5, -1])
def test_any_changed_character_is_refused(where: int) -> None:
    token = SIGNER.player(1, 2, 3, now=0.0)
    with pytest.raises(TokenError):
        SIGNER.verify(_flip(token, where % len(token)), now=1.0)


def test_another_secret_refuses_the_token() -> None:
    token = SIGNER.player(1, 2, 3)
    with pytest.raises(TokenError):
        Signer(b"another secret, sixteen+ bytes").verify(token)


@pytest.mark.parametrize("bad", [None, 5, "", "a.b", "a" * 600, "x.y.z", "€.€"])
def test_malformed_tokens_are_refused(bad: object) -> None:
    with pytest.raises(TokenError):
        SIGNER.verify(bad)


def test_a_short_secret_is_refused() -> None:
    with pytest.raises(ValueError):
        Signer(b"short")


async def test_the_secret_is_made_once_and_kept_in_the_database(tmp_path: Path) -> None:
    storage = SqliteStorage(tmp_path / "db.sqlite3")
    await storage.open()
    try:
        first = await load_secret(storage, None)
        assert len(first) >= 32 and await storage.get_meta(SECRET_KEY) == first.decode()
        assert await load_secret(storage, None) == first
        assert await load_secret(storage, "configured-secret-value") == b"configured-secret-value"
    finally:
        await storage.close()


async def test_two_processes_starting_at_once_use_the_same_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both read "no secret yet"; the other process stores its secret first: this one keeps
    that one instead of replacing it (which would void the other's links)."""
    storage = SqliteStorage(tmp_path / "db.sqlite3")
    await storage.open()
    try:
        await storage.set_meta(SECRET_KEY, "the-other-process-secret-value-0123456789", 1.0)

        async def not_yet(key: str) -> str | None:
            return None  # what this process read before the other one wrote

        monkeypatch.setattr(storage, "get_meta", not_yet)
        assert await load_secret(storage, None) == b"the-other-process-secret-value-0123456789"
    finally:
        await storage.close()


def test_links_are_reused_until_half_their_life_and_fit_a_discord_button() -> None:
    now = [0.0]
    links = TableLinks("https://durak.example/", SIGNER, lambda: now[0])
    first = links.player(123456789012345678, 987654321098765432, 42, "fr")
    assert first.startswith("https://durak.example/table#t=") and len(first) <= 512
    assert links.player(123456789012345678, 987654321098765432, 42, "fr") == first
    assert links.player(123456789012345678, 987654321098765432, 43, "fr") != first
    now[0] = PLAYER_TTL / 2 + 1
    assert links.player(123456789012345678, 987654321098765432, 42, "fr") != first
    watch = links.watcher(123456789012345678)
    assert SIGNER.verify(watch.split("#t=")[1], now=now[0]).kind == "watcher"


# ------------------------------------------------------------------------------ settings
def test_web_settings_are_read_and_checked() -> None:
    s = Settings.from_env(
        {
            "PUBLIC_URL": "https://durak.example/",
            "WEB_PORT": "9000",
            "WEB_HOST": "127.0.0.1",
            "WEB_SECRET": "x" * 32,
            "DISCORD_CLIENT_ID": "1234",
            "DISCORD_CLIENT_SECRET": "abc",
        },
        dotenv_path=None,
    )
    assert (s.public_url, s.web_port, s.web_host) == ("https://durak.example", 9000, "127.0.0.1")
    assert s.activity_enabled
    assert "abc" not in repr(s) and "x" * 32 not in repr(s)
    default = Settings.from_env({}, dotenv_path=None)
    assert (default.public_url, default.web_host, default.web_port) == (None, "0.0.0.0", 8080)
    assert not default.activity_enabled


@pytest.mark.parametrize(
    ("env", "problem"),
    [
        ({"PUBLIC_URL": "durak.example"}, "PUBLIC_URL"),
        ({"PUBLIC_URL": "https://durak.example/?t=1"}, "PUBLIC_URL"),
        ({"WEB_PORT": "70000"}, "WEB_PORT"),
        ({"WEB_SECRET": "short"}, "WEB_SECRET"),
        ({"PUBLIC_URL": "https://d.example", "DISCORD_CLIENT_ID": "1"}, "go together"),
        ({"DISCORD_CLIENT_ID": "1", "DISCORD_CLIENT_SECRET": "s"}, "needs PUBLIC_URL"),
        (
            {
                "PUBLIC_URL": "https://d.example",
                "DISCORD_CLIENT_ID": "app",
                "DISCORD_CLIENT_SECRET": "s",
            },
            "digits",
        ),
    ],
)
def test_bad_web_settings_are_named(env: dict[str, str], problem: str) -> None:
    with pytest.raises(ConfigError) as err:
        Settings.from_env(env, dotenv_path=None)
    assert problem in str(err.value)


def test_the_web_table_imports_no_discord() -> None:
    """The web adapter and the catalogues it shares with Discord work without discord.py."""
    code = (
        "import sys, web.app, apps.play_web, apps.web_bench, present.catalog, present.names; "
        "assert 'discord' not in sys.modules, sorted(m for m in sys.modules if 'discord' in m)"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[2])
