"""``durak-bot web``: the game service and the web server only, without Discord: rooms.

It opens the storage (``DATABASE_URL``, as the bot), restores the rooms' lobbies and games,
and serves the home page, rooms and their tables on ``--host``/``--port`` (default
``WEB_HOST``/``WEB_PORT``) until Ctrl-C.  ``PUBLIC_URL`` is the address people reach (the
invite links are made of it; behind a TLS reverse proxy: README, "Rooms in the browser");
without it, ``http://<host>:<port>``.  The token secret is ``WEB_SECRET`` or the one kept in
the database; the rooms' limits come from the environment (:class:`web.rooms.limits.RoomLimits`).
"""

from __future__ import annotations

import asyncio
from typing import TextIO

from apps.config import Settings
from bot.ai_pool import AIPool
from bot.service import GameService
from bot.storage import create_storage
from web.app import WebConfig, WebServer
from web.rooms import RoomLimits
from web.tokens import Signer, load_secret

__all__ = ["serve_rooms"]


async def serve_rooms(
    settings: Settings, limits: RoomLimits, *, host: str, port: int, out: TextIO
) -> int:
    """Serve until cancelled; 2 when the address is taken."""
    storage = create_storage(settings.storage_url)
    service = GameService(
        storage,
        turn_timeout=settings.turn_timeout,
        ai_delay=settings.ai_delay,
        ai=AIPool(settings.ai_workers),
    )
    server: WebServer | None = None
    try:
        await service.restore()
        public = settings.public_url or f"http://{host}:{port}"
        extra = frozenset({f"http://localhost:{port}"}) if settings.public_url is None else None
        config = WebConfig(
            public_url=public,
            host=host,
            port=port,
            room_limits=limits,
            extra_origins=extra or frozenset(),
        )
        server = WebServer(service, Signer(await load_secret(storage, settings.web_secret)), config)
        try:
            await server.start()
        except OSError as exc:
            out.write(f"cannot listen on {host}:{port}: {exc.strerror or exc}\n")
            out.flush()
            service.remove_presenter(server.parts.presenter)
            server = None
            return 2
        out.write(f"Durak rooms at {public.rstrip('/')}/ (listening on {host}:{server.port})\n")
        out.flush()
        await asyncio.Event().wait()
        return 0
    finally:
        if server is not None:
            await server.stop()
        await service.close()
