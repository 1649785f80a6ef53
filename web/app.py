"""The web table's aiohttp application and its server, in the bot's own process and loop.

:func:`create_app` builds the application over a running :class:`~bot.service.GameService`:

- ``GET /table``: the page, in the reader's language (:mod:`web.pages`); ``GET /static/{path}``:
  its files (:mod:`web.static_files`);
- ``GET /ws``: one WebSocket per page (:mod:`web.sockets`), fed by the
  :class:`~web.presenter.WebPresenter`, which it registers with the service;
- ``POST /api/activity/session``: the Discord Activity's sign-in (:mod:`web.activity`);
- ``GET /healthz``: ``ok``;
- ``GET /``, ``GET /room``, ``/api/rooms…``, ``GET /ws/room``: rooms without Discord
  (:mod:`web.rooms`).

Every response carries the security headers of :func:`security_headers` (a
Content-Security-Policy without inline script or style; framing only by this application's
Activity inside Discord, when there is one) and a ``Server`` header that names no software
version; a body or frame that is not JSON, or is nested too deep to read, is refused (400)
and logged at most once every few seconds.  Tokens travel only in URL fragments and WebSocket
frames, and the access log writes paths without their query (:mod:`web.http_server`).

:class:`WebServer` starts and stops it on ``WEB_HOST:WEB_PORT`` (:class:`WebConfig`), its
connections capped and timed out (:class:`~web.http_server.ServerLimits`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from aiohttp import web

from bot.service import GameService
from web.activity import ActivitySessions, DiscordOAuth
from web.activity_gate import ActivityGate
from web.http_server import ConnectionGuard, GuardedSite, ServerLimits, open_files_allowed
from web.links import TableLinks
from web.pages import TEMPLATES_DIR, Pages
from web.presenter import WebPresenter
from web.rooms import RoomHub, RoomLimits
from web.rooms.limits import network_of
from web.sockets import SocketHandler
from web.static_files import STATIC_DIR, StaticFiles
from web.tokens import Signer

__all__ = [
    "SERVER_NAME",
    "WebConfig",
    "WebServer",
    "create_app",
    "csp",
    "origin_of",
    "security_headers",
]

log = logging.getLogger(__name__)
#: The access log (one INFO line per request: :class:`web.http_server.AccessLog`).
ACCESS_LOG = logging.getLogger("web.access")
#: The ``Server`` header of every answer (aiohttp would name itself and its version).
SERVER_NAME = "durak-bot"


def csp(client_id: str | None = None) -> str:
    """The page's Content-Security-Policy: its own scripts, styles and images only; framed
    only by this application's Activity inside Discord (``client_id``: the application's
    id; ``None``: no Activity, framed by nothing but itself)."""
    ancestors = "'self'"
    if client_id is not None:
        ancestors += f" https://discord.com https://{client_id}.discordsays.com"
    return (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        f"connect-src 'self'; frame-ancestors {ancestors}; base-uri 'none'; form-action 'self'"
    )


def security_headers(client_id: str | None = None) -> dict[str, str]:
    """The headers every answer carries (``client_id``: see :func:`csp`)."""
    return {
        "Content-Security-Policy": csp(client_id),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Server": SERVER_NAME,
    }


#: The largest request body accepted (the Activity's sign-in is a few hundred bytes).
MAX_BODY = 16 * 1024


def origin_of(url: str) -> str:
    """The origin (``scheme://host[:port]``) of an absolute URL, as browsers send it."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{url!r} is not an http(s) address")
    default = {"http": 80, "https": 443}[parts.scheme]
    host = parts.hostname
    if ":" in host:  # IPv6
        host = f"[{host}]"
    port = "" if parts.port in (None, default) else f":{parts.port}"
    return f"{parts.scheme}://{host}{port}"


@dataclass(frozen=True, slots=True)
class WebConfig:
    """Where the web table listens and who may open it.

    ``public_url``: the address players reach (``PUBLIC_URL``; its origin may open sockets);
    ``extra_origins``: more origins allowed (``play --web``: the local addresses);
    ``oauth``: the Activity's credentials (``None``: no Activity);
    ``static_dir``: the pages' files; ``templates_dir``: their HTML (:mod:`web.pages`)."""

    public_url: str
    host: str = "0.0.0.0"
    port: int = 8080
    oauth: DiscordOAuth | None = None
    extra_origins: frozenset[str] = frozenset()
    static_dir: Path = STATIC_DIR
    templates_dir: Path = TEMPLATES_DIR
    access_log: bool = True
    #: The rooms' abuse limits (:mod:`web.rooms.limits`).
    room_limits: RoomLimits = field(default_factory=RoomLimits)
    #: The connections' limits and what the access log names (:mod:`web.http_server`).
    server_limits: ServerLimits = field(default_factory=ServerLimits)

    @property
    def headers(self) -> dict[str, str]:
        """The security headers of every answer (:func:`security_headers`)."""
        return security_headers(self.oauth.client_id if self.oauth is not None else None)

    @property
    def origins(self) -> frozenset[str]:
        """The ``Origin`` values a page may connect from: ``PUBLIC_URL``'s, the extra ones,
        and the Activity's (``https://<client id>.discordsays.com``)."""
        allowed = {origin_of(self.public_url), *self.extra_origins}
        if self.oauth is not None:
            allowed.add(f"https://{self.oauth.client_id}.discordsays.com")
        return frozenset(allowed)


@dataclass(eq=False)
class WebParts:
    """What one application is made of (tests reach into it)."""

    presenter: WebPresenter
    sockets: SocketHandler
    activity: ActivitySessions
    static: StaticFiles
    pages: Pages
    links: TableLinks
    signer: Signer
    service: GameService
    config: WebConfig
    rooms: RoomHub


PARTS = web.AppKey("durak_web", WebParts)


async def _healthz(request: web.Request) -> web.Response:
    return web.Response(text="ok")


def create_app(
    service: GameService, signer: Signer, config: WebConfig, gate: ActivityGate | None = None
) -> web.Application:
    """The web table's application (see the module docstring).  Its presenter is registered
    with ``service`` now and removed when the application shuts down.  ``gate``: who may open
    a table through the Activity (with ``config.oauth``; without either, no Activity)."""
    presenter = WebPresenter(service.clock.now)
    static = StaticFiles(config.static_dir)
    pages = Pages(config.templates_dir)
    parts = WebParts(
        presenter=presenter,
        sockets=SocketHandler(service, presenter, signer, config.origins),
        activity=ActivitySessions(service, signer, config.oauth, config.origins, gate),
        static=static,
        pages=pages,
        links=TableLinks(config.public_url, signer),
        signer=signer,
        service=service,
        config=config,
        rooms=RoomHub(service, signer, config.origins, config.public_url, config.room_limits),
    )
    app = web.Application(client_max_size=MAX_BODY)
    app[PARTS] = parts
    headers = config.headers

    async def _security_headers(request: web.Request, response: web.StreamResponse) -> None:
        for name, value in headers.items():
            response.headers.setdefault(name, value)
        response.headers["Server"] = SERVER_NAME

    app.on_response_prepare.append(_security_headers)
    app.router.add_get("/table", pages.handler("table"))
    app.router.add_get("/static/{path:.+}", static.static)
    app.router.add_get("/ws", parts.rooms.limit_sockets(parts.sockets.handle))
    app.router.add_post("/api/activity/session", parts.activity.handle)
    app.router.add_get("/healthz", _healthz)
    parts.rooms.add_routes(app, pages.handler)
    service.add_presenter(presenter)

    async def _shutdown(app: web.Application) -> None:
        service.remove_presenter(presenter)
        for conn in presenter.pages():
            await conn.ws.close(code=1001)
        await parts.activity.close()

    app.on_shutdown.append(_shutdown)
    return app


class WebServer:
    """The application listening on ``config.host:config.port`` (port 0: any free one)."""

    def __init__(
        self,
        service: GameService,
        signer: Signer,
        config: WebConfig,
        gate: ActivityGate | None = None,
    ) -> None:
        self.config = config
        self.app = create_app(service, signer, config, gate)
        self._runner: web.AppRunner | None = None
        self.port: int | None = None
        #: The connections' counts (once started).
        self.guard: ConnectionGuard | None = None

    @property
    def parts(self) -> WebParts:
        return self.app[PARTS]

    @property
    def links(self) -> TableLinks:
        """The links of ``PUBLIC_URL`` (for the Discord messages)."""
        return self.parts.links

    async def start(self) -> None:
        """Listen (raises ``OSError`` when the address is taken)."""
        config = self.config
        runner = web.AppRunner(self.app, handle_signals=False, shutdown_timeout=2.0)
        await runner.setup()
        limits = config.room_limits
        guard = ConnectionGuard(
            config.server_limits,
            None if limits.forwarded_for else (lambda peer: network_of(peer, limits)),
            open_files_allowed(),
        )
        self.guard = guard
        headers = config.headers
        site = GuardedSite(
            runner,
            config.host,
            config.port,
            guard,
            lambda: headers,
            ACCESS_LOG if config.access_log else None,
        )
        try:
            await site.start()
        except OSError:
            await runner.cleanup()
            raise
        self._runner = runner
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1] if sockets else self.config.port
        log.info("web table listening on %s:%d", self.config.host, self.port)

    async def stop(self) -> None:
        """Close every page and stop listening."""
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()
