"""``durak-bot forget USER_ID``: the operator's ``/durak forget-me`` for a Discord user who
asks by other means (the same erasure, :meth:`bot.storage.Storage.forget_player`).

It opens the database itself, so a SQLite file must not be held by a running bot (stop it
first: the file is refused while it is in use); on PostgreSQL it runs beside the bots.  Like
the command, it is refused, erasing nothing, while the user is in a lobby, or in a series or
game that has not ended.
"""

from __future__ import annotations

import asyncio

from bot.errors import PlayerInPlay
from bot.player_records import PrivacyView
from bot.service.options import MAX_ID
from bot.storage import StorageError, create_storage

__all__ = ["ForgetRefused", "forget_user"]


class ForgetRefused(Exception):
    """Nothing was erased; ``str(exc)`` is one line saying why."""


def forget_user(url: str, user_id: int) -> str:
    """Erase ``user_id`` from the database of ``url`` (``DATABASE_URL``).  Returns one line
    saying what was erased; raises :class:`ForgetRefused`."""
    if not 1 <= user_id <= MAX_ID:
        raise ForgetRefused(f"{user_id} is not a Discord user id (a whole number from 1)")
    try:
        erased = asyncio.run(_forget(url, user_id))
    except PlayerInPlay as exc:
        channels = ", ".join(str(c) for c in exc.details.get("channels", ()))
        raise ForgetRefused(
            f"user {user_id} is in a lobby, or a series or game that has not ended"
            + (f" (channel {channels})" if channels else "")
            + ": nothing was erased; try again once it has ended"
        ) from exc
    except (StorageError, ValueError) as exc:
        raise ForgetRefused(str(exc)) from exc
    return _summary(user_id, erased)


async def _forget(url: str, user_id: int) -> PrivacyView:
    storage = create_storage(url)
    try:
        await storage.open()
        return await storage.forget_player(user_id)
    finally:
        await storage.close()


def _summary(user_id: int, erased: PrivacyView) -> str:
    if erased.empty:
        return f"nothing is stored about user {user_id}: nothing to erase"
    return (
        f"erased user {user_id}: {len(erased.names)} name(s), {erased.games} game(s) in "
        f"{len(erased.servers)} server(s), {erased.ratings} rating(s)"
    )
