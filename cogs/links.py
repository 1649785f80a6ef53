"""The web table's links, as the Discord adapter asks for them.

The web table (:mod:`web`, when ``PUBLIC_URL`` is set) gives the Discord presenter an object of
this shape (:class:`web.links.TableLinks`); without it no link is ever rendered, so a player
never gets a link that cannot work.  The renderers stay pure: they are handed the link.
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["TableLinks"]


class TableLinks(Protocol):
    """Makes the addresses of the web table (each ≤ 512 characters, Discord's URL limit)."""

    def player(self, channel_id: int, user_id: int, series_id: int, locale: str | None) -> str:
        """``user_id``'s personal link to the table of their seat in series ``series_id``."""
        ...

    def watcher(self, channel_id: int, locale: str | None = None) -> str:
        """The channel's Watch link (the table without a hand)."""
        ...
