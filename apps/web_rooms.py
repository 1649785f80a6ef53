"""``durak-bot web``: the game service and the web server only, without Discord: rooms.

It opens the storage (``DATABASE_URL``, as the bot), restores the rooms' lobbies and games,
and serves the home page, rooms and their tables on ``--host``/``--port`` (default
``WEB_HOST``/``WEB_PORT``) until Ctrl-C.  ``PUBLIC_URL`` is the address people reach (the
invite links are made of it; behind a TLS reverse proxy: README, "Rooms in the browser").
Without it, the address printed is one that opens on this machine (``http://127.0.0.1:<port>``
when the server listens on every address), and pages may connect from each loopback alias of
the port (``127.0.0.1``, ``localhost``, ``[::1]``): :func:`local_addresses`.  The token secret
is ``WEB_SECRET`` or the one kept in the database; the rooms' and the connections' limits come
from the environment (:class:`web.rooms.limits.RoomLimits`,
:class:`web.http_server.ServerLimits`).
"""

from __future__ import annotations

import asyncio
from typing import TextIO

from apps.config import Settings
from bot.ai_pool import AIPool
from bot.service import GameService
from bot.storage import create_storage
from web.app import WebConfig, WebServer
from web.http_server import ServerLimits
from web.rooms import RoomLimits
from web.tokens import Signer, load_secret

__all__ = ["local_addresses", "serve_rooms"]

#: Hosts that mean "every address of this machine".
_EVERY_ADDRESS = ("", "0.0.0.0", "::", "[::]")
_LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


def local_addresses(host: str, port: int) -> tuple[str, frozenset[str]]:
    """Without ``PUBLIC_URL``: the address to print for a server listening on
    ``host:port``, and the origins its pages may connect from (see the module docstring)."""
    if host in _EVERY_ADDRESS or host in _LOOPBACK:
        aliases = frozenset(f"http://{name}:{port}" for name in ("127.0.0.1", "localhost", "[::1]"))
        return f"http://127.0.0.1:{port}", aliases
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}", frozenset({f"http://{shown}:{port}"})


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
        include_guild=settings.served_guilds(discord=False),
    )
    server: WebServer | None = None
    try:
        try:
            server_limits = ServerLimits.from_env(settings.values)
        except ValueError as exc:
            out.write(f"{exc}\n")
            out.flush()
            return 2
        await service.restore()
        if settings.public_url is None:
            public, extra = local_addresses(host, port)
        else:
            public, extra = settings.public_url, frozenset()
        config = WebConfig(
            public_url=public,
            host=host,
            port=port,
            room_limits=limits,
            server_limits=server_limits,
            extra_origins=extra,
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
