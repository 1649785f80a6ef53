"""The addresses of the web table that Discord messages carry: a player's personal link and
the channel's Watch link (``<PUBLIC_URL>/table#t=<token>``).

Links are kept and reused until half their life has gone, so that a message rendered again
with the same link is the same message (the Discord presenter skips edits that change
nothing) and Discord's 512-character limit on a URL button is never near (a link is about 250
characters).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from web.tokens import PLAYER_TTL, WATCHER_TTL, Signer

__all__ = ["MAX_LINKS", "TableLinks", "table_url"]

#: Links kept for reuse (beyond this many, the oldest go).
MAX_LINKS = 10_000


def table_url(public_url: str, token: str) -> str:
    """The page's address with ``token`` in its fragment."""
    return f"{public_url.rstrip('/')}/table#t={token}"


class TableLinks:
    """Makes (and reuses) the links of one public address (see the module docstring)."""

    def __init__(
        self, public_url: str, signer: Signer, now: Callable[[], float] = time.time
    ) -> None:
        self.public_url = public_url.rstrip("/")
        self._signer = signer
        self._now = now
        self._kept: dict[tuple[object, ...], tuple[str, float]] = {}

    def _reuse(self, key: tuple[object, ...], ttl: float, make: Callable[[], str]) -> str:
        now = self._now()
        kept = self._kept.get(key)
        if kept is not None and kept[1] - now > ttl / 2:
            return kept[0]
        url = table_url(self.public_url, make())
        self._kept.pop(key, None)
        while len(self._kept) >= MAX_LINKS:
            del self._kept[next(iter(self._kept))]
        self._kept[key] = (url, now + ttl)
        return url

    def player(self, channel_id: int, user_id: int, series_id: int, locale: str | None) -> str:
        """The personal link of ``user_id``, seated in ``channel_id``'s series ``series_id``."""
        return self._reuse(
            ("p", channel_id, user_id, series_id, locale),
            PLAYER_TTL,
            lambda: self._signer.player(channel_id, user_id, series_id, locale, now=self._now()),
        )

    def watcher(self, channel_id: int, locale: str | None = None) -> str:
        """The channel's Watch link (the table without a hand)."""
        return self._reuse(
            ("w", channel_id, locale),
            WATCHER_TTL,
            lambda: self._signer.watcher(channel_id, locale, now=self._now()),
        )
