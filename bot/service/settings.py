"""The server-settings store (``/durak config``): read once per guild, cached, changed under a
per-guild lock.

With several processes, a guild's commands, games and settings are all served by the process
holding its shard, so this process's cache is the only writer of the guild's settings.  The
cache keeps at most :data:`CACHED_GUILDS` guilds beyond those with a lobby or game here (the
least recently used are read again when next needed).
"""

from __future__ import annotations

import collections
import json
import logging
from collections.abc import Callable

from bot.clock import Clock
from bot.errors import BadOption, NotManager
from bot.server_config import ConfigProblem, ServerConfig
from bot.service.channels import KeyedLocks
from bot.service.commit import storage_errors
from bot.service.options import checked_ids, parse_channel_id
from bot.storage import Storage

__all__ = ["CACHED_GUILDS", "SettingsStore"]

log = logging.getLogger(__name__)

CACHED_GUILDS = 1024


class SettingsStore:
    """Server settings by guild, as stored.

    :param in_use: whether a guild has a lobby or game in this process (its settings stay
        cached: code under a channel's lock reads them without waiting).
    """

    def __init__(
        self, storage: Storage, clock: Clock, turn_timeout: int, in_use: Callable[[int], bool]
    ) -> None:
        self.storage = storage
        self.clock = clock
        self.turn_timeout = turn_timeout
        self._in_use = in_use
        self._cache: collections.OrderedDict[int, ServerConfig] = collections.OrderedDict()
        self._locks = KeyedLocks()

    def __len__(self) -> int:
        return len(self._cache)

    @checked_ids
    async def server_config(self, guild_id: int) -> ServerConfig:
        """The server's settings (``/durak config``): stored ones, else the defaults (with this
        service's turn timeout)."""
        config = self._cache.get(guild_id)
        if config is None:
            return await self.load(guild_id)
        self._cache.move_to_end(guild_id)
        return config

    async def load(self, guild_id: int) -> ServerConfig:
        """Read the server's settings from storage (and cache them)."""
        with storage_errors():
            text = await self.storage.load_server_config(guild_id)
        config = ServerConfig().with_changes(turn_timeout=self.turn_timeout)
        if text is not None:
            try:
                config = ServerConfig.from_json(json.loads(text))
            except (ValueError, TypeError) as exc:  # ConfigProblem is a ValueError
                # A stored document this code cannot read: keep serving with the defaults
                # rather than refusing every /durak new of the server; the admin can set again.
                log.error(
                    "server settings of guild %d are unreadable (%s): defaults", guild_id, exc
                )
        self._keep(guild_id, config)
        return config

    def _keep(self, guild_id: int, config: ServerConfig) -> None:
        self._cache[guild_id] = config
        self._cache.move_to_end(guild_id)
        if len(self._cache) <= CACHED_GUILDS:
            return
        for old in list(self._cache):
            if len(self._cache) <= CACHED_GUILDS:
                break
            if old != guild_id and not self._in_use(old):
                del self._cache[old]

    def count_ai_games_now(self, guild_id: int) -> bool:
        """Whether games with AI seats count for the server's ratings, without waiting (for
        code under a channel's lock): a game's server had its settings read when its lobby
        opened or at restore, and they stay cached while it has a game; an unknown guild
        counts as the default (no)."""
        config = self._cache.get(guild_id)
        return config.count_ai_games if config is not None else False

    @checked_ids
    async def set_server_config(
        self, /, guild_id: int, requester_id: int, *, manage_guild: bool, **changes: object
    ) -> ServerConfig:
        """Change the server's settings (``manage_guild``: the requester has Manage Server,
        else :class:`NotManager`).  ``changes``: raw values of the settings of
        :data:`bot.server_config.SETTINGS` (``None`` = unchanged, ``"default"`` resets), plus
        ``add_channel`` / ``remove_channel`` (a channel id) to allow games in one more channel
        or one fewer.  Every value is checked (:meth:`ServerConfig.with_changes`): a bad one
        raises :class:`BadOption` with the problem's message (``details['setting']`` names it)
        and nothing is stored.  Returns the new settings, stored before they apply."""
        if not manage_guild:
            raise NotManager()
        add = changes.pop("add_channel", None)
        remove = changes.pop("remove_channel", None)
        async with self._locks.hold(guild_id):
            current = await self.server_config(guild_id)
            try:
                config = current.with_changes(**changes)
                if add is not None:
                    config = config.with_channel(parse_channel_id(add), True)
                if remove is not None:
                    config = config.with_channel(parse_channel_id(remove), False)
            except ConfigProblem as problem:
                raise BadOption(problem.message, setting=problem.setting) from None
            if config != current:
                with storage_errors():
                    await self.storage.save_server_config(
                        guild_id, json.dumps(config.to_json()), self.clock.now()
                    )
                self._keep(guild_id, config)
                log.info("guild %d settings changed by user %d", guild_id, requester_id)
        return config

    async def count_ai_games(self, guild_id: int) -> bool:
        """Whether games with AI seats count for the server's ratings (default: no)."""
        return (await self.server_config(guild_id)).count_ai_games
