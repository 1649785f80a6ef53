"""Settings from the environment and ``.env`` (python-dotenv), validated with clear messages.

Values already in the process environment win over ``.env``.  :meth:`Settings.from_env`
raises :class:`bot.errors.ConfigError` listing every problem, one per line.

``DISCORD_TOKEN`` is the exception: it is read as it is and judged only by
:func:`token_problem`, when the bot is about to connect to Discord, so that terminal mode
(``durak-bot play``, which needs no token) runs whatever the token looks like.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from dotenv import dotenv_values

from apps.logs import LOG_FORMATS, configure_logging
from bot.errors import ConfigError
from bot.limits import DEFAULT_TIMEOUT, MAX_TIMEOUT, MIN_TIMEOUT
from bot.realm import WEB_REALM
from bot.shards import guild_filter, parse_shard_ids
from bot.storage.base import DEFAULT_DATABASE_TIMEOUT
from bot.storage.url import parse_database_url, redact_url, sqlite_url

__all__ = ["Settings", "public_url_problem", "token_problem"]

_LOG_LEVELS = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG")
DEFAULT_DATABASE_PATH = "durak.sqlite3"
DEFAULT_LOG_LEVEL = "INFO"
DEFAULT_AI_DELAY = 1.0
#: ``DATABASE_TIMEOUT``'s range, in seconds.
MIN_DATABASE_TIMEOUT, MAX_DATABASE_TIMEOUT = 0.5, 60.0
DEFAULT_WEB_HOST = "0.0.0.0"
DEFAULT_WEB_PORT = 8080
#: The shortest ``WEB_SECRET`` accepted.
MIN_WEB_SECRET = 16

# A bot token is three base64url segments joined by dots (user id, timestamp, HMAC).
_TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{16,}")


def token_problem(token: str | None, env_file: str | None = None) -> str | None:
    """One line saying what is wrong with ``token``, or ``None`` if it looks like a bot token.
    ``env_file`` is the ``.env`` file the settings were looked for in (named when the token is
    missing, since the bot reads the ``.env`` of its working directory).

    The only place the token is judged: ``durak-bot`` (Discord mode) prints this line and
    exits; terminal mode never asks."""
    if not token:
        if env_file is None:
            where = "put your bot's token in .env (see .env.example)"
        elif Path(env_file).is_file():
            where = f"put your bot's token in {env_file} (see .env.example)"
        else:
            where = (
                f"there is no {env_file} (the bot reads the .env of the directory it starts "
                "in): start it where its .env is, or put your bot's token there "
                "(see .env.example)"
            )
        return (
            f"DISCORD_TOKEN is not set: {where}, or run `durak-bot play` to play in the terminal."
        )
    if token.lower().startswith("bot "):
        return "DISCORD_TOKEN must be the bare token: remove the 'Bot ' prefix."
    if not _TOKEN_RE.fullmatch(token):
        return (
            "DISCORD_TOKEN does not look like a bot token (three dot-separated parts, "
            "no spaces): copy it again from the Developer Portal (Bot → Reset Token)."
        )
    return None


def public_url_problem(url: str) -> str | None:
    """What is wrong with ``PUBLIC_URL`` (an ``http(s)://host[:port][/path]`` address with
    no query or fragment), or ``None``."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "is not an http:// or https:// address (e.g. https://durak.example.org)"
    if parts.query or parts.fragment or "@" in parts.netloc:
        return "must be a plain address, without a query, a fragment or credentials"
    try:
        parts.port  # noqa: B018  (a malformed port raises)
    except ValueError:
        return "has an invalid port"
    return None


@dataclass(frozen=True, slots=True)
class Settings:
    """Runtime configuration.  See ``.env.example`` for every variable."""

    database_path: str = DEFAULT_DATABASE_PATH
    #: ``DATABASE_URL`` as given (``sqlite:///…`` or ``postgresql://…``); None: the SQLite file
    #: ``database_path``.  Use :attr:`storage_url`.
    database_url: str | None = None
    #: ``DATABASE_TIMEOUT``: seconds a request waits for the database before the player is
    #: told to try again (see :class:`bot.storage.sql_store.SqlStore`).
    database_timeout: float = DEFAULT_DATABASE_TIMEOUT
    discord_token: str | None = None
    dev_guild_id: int | None = None
    log_level: str = DEFAULT_LOG_LEVEL
    #: ``LOG_FORMAT``: ``text`` or ``json`` (one JSON object per line; see :mod:`apps.logs`).
    log_format: str = "text"
    turn_timeout: int = DEFAULT_TIMEOUT
    ai_delay: float = DEFAULT_AI_DELAY
    #: ``SHARD_COUNT``: gateway shards of the whole bot (None: one connection, every server).
    shard_count: int | None = None
    #: ``SHARD_IDS``: the shards this process holds (None: all ``shard_count`` of them).
    shard_ids: tuple[int, ...] | None = None
    #: ``AI_WORKERS``: AI worker processes (None: cores − 1, at least 1).
    ai_workers: int | None = None
    #: The ``.env`` file the settings were looked for in, as an absolute path (None: none).
    env_file: str | None = None
    #: ``PUBLIC_URL``: where players reach the web table (``https://durak.example.org``);
    #: ``None``: no web table, and no link to one is ever given.
    public_url: str | None = None
    #: ``WEB_HOST`` / ``WEB_PORT``: where the web table listens (behind a reverse proxy).
    web_host: str = DEFAULT_WEB_HOST
    web_port: int = DEFAULT_WEB_PORT
    #: ``WEB_SECRET``: signs the table links (None: one is generated and kept in the database).
    web_secret: str | None = None
    #: ``DISCORD_CLIENT_ID`` / ``DISCORD_CLIENT_SECRET``: the application's OAuth2 credentials,
    #: for the Discord Activity (both or neither).
    discord_client_id: str | None = None
    discord_client_secret: str | None = None
    #: Every value read (the environment over ``.env``), for the settings of other parts
    #: (the rooms' limits: :class:`web.rooms.limits.RoomLimits`).
    values: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_env(
        cls,
        environ: Mapping[str, str] | None = None,
        dotenv_path: str | os.PathLike[str] | None = ".env",
    ) -> Settings:
        """Read ``DATABASE_URL``, ``DATABASE_PATH``, ``DATABASE_TIMEOUT``, ``DISCORD_TOKEN``,
        ``DEV_GUILD_ID``, ``LOG_LEVEL``, ``LOG_FORMAT``, ``TURN_TIMEOUT``, ``AI_DELAY``,
        ``SHARD_COUNT``, ``SHARD_IDS``, ``AI_WORKERS``, ``PUBLIC_URL``, ``WEB_HOST``,
        ``WEB_PORT``, ``WEB_SECRET``, ``DISCORD_CLIENT_ID``, ``DISCORD_CLIENT_SECRET`` from
        ``environ`` (default ``os.environ``) over the values in ``dotenv_path`` (ignored if
        missing or None)."""
        values: dict[str, str] = {}
        if dotenv_path is not None and Path(dotenv_path).is_file():
            values.update({k: v for k, v in dotenv_values(dotenv_path).items() if v is not None})
        values.update(os.environ if environ is None else environ)

        problems: list[str] = []

        def text(name: str) -> str | None:
            raw = values.get(name)
            if raw is None:
                return None
            raw = raw.strip()
            return raw or None

        def integer(name: str, lo: int, hi: int | None) -> int | None:
            raw = text(name)
            if raw is None:
                return None
            try:
                value = int(raw)
            except ValueError:
                problems.append(f"{name}={raw!r} is not a whole number")
                return None
            if value < lo or (hi is not None and value > hi):
                span = f"{lo}–{hi}" if hi is not None else f"≥ {lo}"
                problems.append(f"{name}={value} is out of range ({span})")
                return None
            return value

        database_path = text("DATABASE_PATH") or DEFAULT_DATABASE_PATH
        database_url = text("DATABASE_URL")  # wins over DATABASE_PATH
        if database_url is not None:
            try:
                target = parse_database_url(database_url)
            except ValueError as exc:
                problems.append(f"DATABASE_URL: {exc}")
            else:
                if target.backend == "sqlite":
                    database_path = target.location
        database_timeout = DEFAULT_DATABASE_TIMEOUT
        raw_timeout = text("DATABASE_TIMEOUT")
        if raw_timeout is not None:
            try:
                database_timeout = float(raw_timeout)
            except ValueError:
                problems.append(f"DATABASE_TIMEOUT={raw_timeout!r} is not a number of seconds")
            else:
                if not MIN_DATABASE_TIMEOUT <= database_timeout <= MAX_DATABASE_TIMEOUT:
                    problems.append(
                        f"DATABASE_TIMEOUT={raw_timeout} is out of range "
                        f"({MIN_DATABASE_TIMEOUT:g}–{MAX_DATABASE_TIMEOUT:g} seconds)"
                    )
        token = text("DISCORD_TOKEN")  # judged by token_problem() when it is needed
        dev_guild = integer("DEV_GUILD_ID", 1, None)
        level = (text("LOG_LEVEL") or DEFAULT_LOG_LEVEL).upper()
        if level not in _LOG_LEVELS:
            problems.append(f"LOG_LEVEL={level!r} is not one of {', '.join(_LOG_LEVELS)}")
        log_format = (text("LOG_FORMAT") or "text").lower()
        if log_format not in LOG_FORMATS:
            problems.append(f"LOG_FORMAT={log_format!r} is not one of {', '.join(LOG_FORMATS)}")
        turn_timeout = integer("TURN_TIMEOUT", MIN_TIMEOUT, MAX_TIMEOUT)
        ai_delay = DEFAULT_AI_DELAY
        raw_delay = text("AI_DELAY")
        if raw_delay is not None:
            try:
                ai_delay = float(raw_delay)
                if not 0 <= ai_delay <= 30:
                    problems.append(f"AI_DELAY={raw_delay} is out of range (0–30 seconds)")
            except ValueError:
                problems.append(f"AI_DELAY={raw_delay!r} is not a number of seconds")
        shards = integer("SHARD_COUNT", 1, None)
        ai_workers = integer("AI_WORKERS", 1, None)
        shard_ids: tuple[int, ...] | None = None
        raw_ids = text("SHARD_IDS")
        if raw_ids is not None:
            if shards is None:
                if text("SHARD_COUNT") is None:
                    problems.append(
                        f"SHARD_IDS={raw_ids!r} needs SHARD_COUNT (the bot's total number of "
                        "shards, the same in every process)"
                    )
            else:
                try:
                    shard_ids = parse_shard_ids(raw_ids, shards)
                except ValueError as exc:
                    problems.append(f"SHARD_IDS: {exc}")
        public_url = text("PUBLIC_URL")
        if public_url is not None:
            problem = public_url_problem(public_url)
            if problem is not None:
                problems.append(f"PUBLIC_URL={public_url!r} {problem}")
            public_url = public_url.rstrip("/")
        web_port = integer("WEB_PORT", 1, 65535)
        web_host = text("WEB_HOST") or DEFAULT_WEB_HOST
        web_secret = text("WEB_SECRET")
        if web_secret is not None and len(web_secret) < MIN_WEB_SECRET:
            problems.append(
                f"WEB_SECRET is too short ({len(web_secret)} characters; at least "
                f"{MIN_WEB_SECRET}): use a long random value, e.g. `openssl rand -hex 32`"
            )
        client_id = text("DISCORD_CLIENT_ID")
        client_secret = text("DISCORD_CLIENT_SECRET")
        if client_id is not None and not client_id.isdigit():
            problems.append(
                f"DISCORD_CLIENT_ID={client_id!r} is not an application id (digits only)"
            )
        if (client_id is None) != (client_secret is None):
            problems.append(
                "DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET go together: set both (for the "
                "Discord Activity) or neither"
            )
        if client_id is not None and public_url is None:
            problems.append(
                "DISCORD_CLIENT_ID is set but PUBLIC_URL is not: the Activity is the web table "
                "inside Discord, so it needs PUBLIC_URL"
            )
        db_parent = Path(database_path).expanduser().parent
        if database_path != ":memory:" and db_parent.exists() and not db_parent.is_dir():
            problems.append(f"DATABASE_PATH={database_path!r}: {db_parent} is not a directory")
        if problems:
            raise ConfigError(problems)
        return cls(
            database_path=database_path,
            database_url=database_url,
            database_timeout=database_timeout,
            discord_token=token,
            dev_guild_id=dev_guild,
            log_level=level,
            log_format=log_format,
            turn_timeout=turn_timeout if turn_timeout is not None else DEFAULT_TIMEOUT,
            ai_delay=ai_delay,
            shard_count=shards,
            shard_ids=shard_ids,
            ai_workers=ai_workers,
            env_file=None if dotenv_path is None else str(Path(dotenv_path).absolute()),
            public_url=public_url,
            web_host=web_host,
            web_port=web_port if web_port is not None else DEFAULT_WEB_PORT,
            web_secret=web_secret,
            discord_client_id=client_id,
            discord_client_secret=client_secret,
            values=dict(values),
        )

    def guild_filter(self) -> Callable[[int], bool] | None:
        """Which servers this process serves (those on its shards), or ``None``: all."""
        if self.shard_count is None or self.shard_ids is None:
            return None
        return guild_filter(self.shard_count, self.shard_ids)

    def served_guilds(self, *, discord: bool = True) -> Callable[[int], bool]:
        """The servers this process serves, whose games it restores and may run the timers
        and AI turns of: the rooms' realm when it serves the web (``PUBLIC_URL`` set, or
        ``durak-bot web``: ``discord=False``), and the Discord servers on its shards (all
        when ``SHARD_IDS`` is not set) when it connects to Discord."""
        shards = self.guild_filter() if discord else None
        rooms = self.public_url is not None or not discord

        def include(guild_id: int) -> bool:
            if guild_id == WEB_REALM:
                return rooms
            return discord and (shards is None or shards(guild_id))

        return include

    @property
    def activity_enabled(self) -> bool:
        """Whether the Discord Activity is set up (client id and secret, and a web table)."""
        return bool(self.public_url and self.discord_client_id and self.discord_client_secret)

    @property
    def storage_url(self) -> str:
        """The database to use: ``DATABASE_URL`` if set, else the SQLite file
        ``DATABASE_PATH`` (default ``sqlite:///durak.sqlite3``)."""
        return self.database_url or sqlite_url(self.database_path)

    def configure_logging(self, *, quiet: bool = False) -> None:
        """Root logging at ``LOG_LEVEL`` (``quiet``: at least WARNING, for the terminal) to
        standard error, in ``LOG_FORMAT`` (:func:`apps.logs.configure_logging`)."""
        level = getattr(logging, self.log_level)
        configure_logging(max(level, logging.WARNING) if quiet else level, self.log_format)

    def __repr__(self) -> str:  # never print the token
        token = "set" if self.discord_token else "unset"
        return (
            f"Settings(database_path={self.database_path!r}, "
            f"database_url={redact_url(self.database_url or '')!r}, "
            f"database_timeout={self.database_timeout:g}, discord_token=<{token}>, "
            f"dev_guild_id={self.dev_guild_id}, log_level={self.log_level!r}, "
            f"log_format={self.log_format!r}, "
            f"turn_timeout={self.turn_timeout}, ai_delay={self.ai_delay}, "
            f"shard_count={self.shard_count}, shard_ids={self.shard_ids}, "
            f"ai_workers={self.ai_workers}, public_url={self.public_url!r}, "
            f"web={self.web_host}:{self.web_port}, "
            f"web_secret=<{'set' if self.web_secret else 'unset'}>, "
            f"discord_client_id={self.discord_client_id!r}, "
            f"discord_client_secret=<{'set' if self.discord_client_secret else 'unset'}>)"
        )
