"""Discord gateway shards: which process serves which servers.

Discord puts server (guild) ``g`` on shard ``(g >> 22) % shard_count``; a process that holds
shards ``SHARD_IDS`` (of ``SHARD_COUNT``) receives the events of those servers only, so it
restores and serves only their games (:func:`guild_filter`).  Stats, leaderboards and history
are database queries: any process answers them for any server.

``SHARD_IDS`` is a list of ids and ranges: ``0-3``, ``0,2``, ``5``, ``0-1,4``.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["guild_filter", "parse_shard_ids", "shard_of"]


def shard_of(guild_id: int, shard_count: int) -> int:
    """The shard Discord puts ``guild_id`` on (``(guild_id >> 22) % shard_count``)."""
    if shard_count < 1:
        raise ValueError("shard_count must be at least 1")
    return (guild_id >> 22) % shard_count


def parse_shard_ids(text: str, shard_count: int) -> tuple[int, ...]:
    """The sorted shard ids of ``text`` (``0-3``, ``0,2``, ``5``).  Raises ``ValueError`` with
    one line saying what is wrong: not a number, a reversed range, an id ≥ ``shard_count``,
    an id given twice, or nothing at all."""
    ids: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            raise ValueError(f"{text!r} has an empty item: write ids like 0-3 or 0,2")
        lo_text, dash, hi_text = part.partition("-")
        try:
            lo = int(lo_text)
            hi = int(hi_text) if dash else lo
        except ValueError:
            raise ValueError(
                f"{part!r} is not a shard id or a range of them (like 3 or 0-3)"
            ) from None
        if lo < 0:
            raise ValueError(f"{part!r}: shard ids start at 0")
        if hi < lo:
            raise ValueError(f"{part!r} is a reversed range: write {hi}-{lo}")
        if hi >= shard_count:
            raise ValueError(
                f"shard {hi} does not exist with SHARD_COUNT={shard_count} "
                f"(ids are 0–{shard_count - 1})"
            )
        ids.extend(range(lo, hi + 1))
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise ValueError(f"shard {', '.join(map(str, twice))} is listed twice")
    return tuple(sorted(ids))


def guild_filter(shard_count: int, shard_ids: tuple[int, ...]) -> Callable[[int], bool]:
    """``include(guild_id)``: whether the guild is on one of ``shard_ids``."""
    held = frozenset(shard_ids)

    def include(guild_id: int) -> bool:
        return shard_of(guild_id, shard_count) in held

    return include
