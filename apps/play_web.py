"""``durak-bot play --web``: a game against AI seats in the browser, without Discord.

It starts the game service (a throwaway SQLite file unless ``--db``; AI seats think in a
thread, as in the terminal) and the web table on ``127.0.0.1`` (``--port``, default 8080, or
any free port when that one is taken), opens a lobby for the local player, "Player" (as the
terminal game names them: the table's lines name every player in the third person), against
``players - 1`` AI seats, deals, prints the page's address with the player's token in its
fragment and opens it in the browser (unless ``--no-browser``), then serves until Ctrl-C.

The service needs Discord-like ids for the game: the local game is channel
:data:`CHANNEL` in server :data:`GUILD`, and the player is user :data:`USER` (the ids the
terminal game uses).  With ``--db FILE`` a game left running in that file is resumed rather
than a new one dealt.  The page accepts sockets from ``http://127.0.0.1:<port>`` and
``http://localhost:<port>`` only.

Once a series is over (End series) the page offers a new game: it asks ``GET
/api/new-game`` whether this server deals one (only ``play --web`` answers), and ``POST
/api/new-game`` with its player token deals a new game with the same options
(:class:`NewGame`) and answers the new series' player token.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import socket
import tempfile
import webbrowser
from dataclasses import dataclass
from typing import TextIO

from aiohttp import web

from bot.ai_pool import ThreadAI
from bot.errors import ServiceError
from bot.limits import MAX_TIMEOUT
from bot.seating import LobbyOptions
from bot.service import ChannelPhase, GameService
from bot.storage import SqliteStorage
from present.messages import render_message
from rules_engine.ai import DEFAULT_AI_LEVEL
from rules_engine.messages import Message
from terminal.wording import TERMINAL_WORDING
from web.app import WebConfig, WebServer
from web.links import table_url
from web.protocol import browser_language, reader_catalog, sentence
from web.tokens import Signer, TokenError
from web.wording import catalog

__all__ = [
    "CHANNEL",
    "DEFAULT_PORT",
    "GUILD",
    "HOST",
    "NEW_GAME_PATH",
    "USER",
    "YOU",
    "LocalGame",
    "NewGame",
    "play_web",
]

#: The local game's channel, server and player ids, and the player's name.
CHANNEL, GUILD, USER = 1, 1, 1
YOU = "Player"
HOST = "127.0.0.1"
DEFAULT_PORT = 8080
#: Where the page asks for a new game (``play --web`` only).
NEW_GAME_PATH = "/api/new-game"
#: The largest body of a new game's request (a token and a language).
MAX_NEW_GAME_BODY = 2048

_NOT_YOURS = Message("this link is not valid: open the table again from the game")
_BAD_BODY = Message("the page sent a request the server does not understand")
_BAD_ORIGIN = Message("this page may not open the table from where it was loaded")


@dataclass(frozen=True, slots=True)
class LocalGame:
    """The local game's options: each new game is dealt with them."""

    players: int
    rules: str
    level: str
    turn_timeout: int

    async def deal(self, service: GameService) -> None:
        """Open the local player's lobby, fill it with AI seats and start the game
        (:exc:`ServiceError` when the service refuses)."""
        await service.open_lobby(
            CHANNEL,
            GUILD,
            USER,
            YOU,
            LobbyOptions(rules=self.rules, seats=self.players, turn_timeout=self.turn_timeout),
        )
        for _ in range(self.players - 1):
            await service.add_ai(CHANNEL, USER, self.level)
        await service.start(CHANNEL, USER)


class NewGame:
    """``GET`` and ``POST`` :data:`NEW_GAME_PATH`: a new local game once the series is over.

    ``GET`` answers ``{"new_game": true}`` (the page offers the button only where this route
    is).  ``POST {"token", "lang"}`` with the local player's token (of any series of this
    game, its page's ``Origin`` one of ``origins``) deals a new game with the game's options
    when none is running, and answers ``{"token"}``: the player token of the channel's
    series.  Refusals are ``{"error": "<sentence in the reader's language>"}``: 400 (a body
    that is not a JSON object with a text token), 403 (another origin, or not the local
    player's token), 409 (the service refused to deal)."""

    def __init__(
        self, service: GameService, signer: Signer, origins: frozenset[str], game: LocalGame
    ) -> None:
        self.service = service
        self.signer = signer
        self.origins = origins
        self.game = game
        self._dealing = asyncio.Lock()

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get(NEW_GAME_PATH, self.offered)
        app.router.add_post(NEW_GAME_PATH, self.new_game)

    async def offered(self, request: web.Request) -> web.Response:
        return web.json_response({"new_game": True})

    async def new_game(self, request: web.Request) -> web.Response:
        cat = catalog(browser_language(request))

        def refuse(status: int, message: Message) -> web.Response:
            return web.json_response({"error": sentence(cat, message)}, status=status)

        if request.headers.get("Origin") not in self.origins:
            return refuse(403, _BAD_ORIGIN)
        if (request.content_length or 0) > MAX_NEW_GAME_BODY:
            return refuse(400, _BAD_BODY)
        try:
            body = await request.json()
        except (ValueError, RecursionError):
            return refuse(400, _BAD_BODY)
        if not isinstance(body, dict) or not isinstance(body.get("token"), str):
            return refuse(400, _BAD_BODY)
        try:
            claims = self.signer.verify(body["token"])
        except TokenError as exc:
            cat = reader_catalog(body.get("lang"), cat)
            return refuse(403, exc.message)
        cat = reader_catalog(body.get("lang"), cat, claims.locale)
        if claims.kind != "player" or (claims.channel_id, claims.user_id) != (CHANNEL, USER):
            return refuse(403, _NOT_YOURS)
        try:
            async with self._dealing:  # two presses deal one game
                if self.service.state(CHANNEL) is ChannelPhase.NONE:
                    await self.game.deal(self.service)
                table = await self.service.table(CHANNEL)
        except ServiceError as exc:
            return refuse(409, exc.message)
        token = self.signer.player(CHANNEL, USER, table.series_id, claims.locale)
        return web.json_response({"token": token})


async def play_web(
    players: int = 2,
    rules: str = "podkidnoy",
    level: str = DEFAULT_AI_LEVEL,
    *,
    out: TextIO,
    port: int | None = None,
    db_path: str | None = None,
    ai_delay: float = 0.4,
    turn_timeout: int = MAX_TIMEOUT,
    seed: int | None = None,
    open_browser: bool = True,
) -> int:
    """Serve one local game in the browser until cancelled (Ctrl-C).  Returns an exit code
    (2 when the game cannot be opened or the port is taken)."""
    tmp: tempfile.TemporaryDirectory[str] | None = None
    if db_path is None:
        tmp = tempfile.TemporaryDirectory(prefix="durak-web-")
        db_path = os.path.join(tmp.name, "play.sqlite3")
    seeds = iter(range(seed, seed + 1_000_000)) if seed is not None else None
    ai = ThreadAI()
    service = GameService(
        SqliteStorage(db_path),
        ai=ai,
        ai_delay=ai_delay,
        turn_timeout=turn_timeout,
        seed_source=(lambda: next(seeds)) if seeds else None,
    )
    server: WebServer | None = None
    game = LocalGame(players, rules, level, turn_timeout)
    try:
        await service.restore()
        server = await _start_server(service, port, out, game)
        if server is None:
            return 2
        series_id = await _open_game(service, game, out)
        if series_id is None:
            return 2
        assert server.port is not None
        base = f"http://{HOST}:{server.port}"
        token = server.parts.signer.player(CHANNEL, USER, series_id, None)
        url = table_url(base, token)
        out.write(
            f"Durak in your browser ({players} seats: you and {players - 1} {level} AI).\n"
            f"Open {url}\nCtrl-C stops the game.\n"
        )
        out.flush()
        if open_browser:
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(None, webbrowser.open, url)
        await asyncio.Event().wait()  # until cancelled
        return 0
    except asyncio.CancelledError:
        with contextlib.suppress(ServiceError):
            await service.stop(CHANNEL, USER)
        raise
    finally:
        if server is not None:
            await server.stop()
        await service.close()
        await ai.close()
        if tmp is not None:
            tmp.cleanup()


async def _start_server(
    service: GameService, port: int | None, out: TextIO, game: LocalGame
) -> WebServer | None:
    """The web table on 127.0.0.1 (with :class:`NewGame`): on ``port``, or on 8080 falling
    back to any free port."""
    tries = [port] if port is not None else [DEFAULT_PORT, 0]
    for candidate in tries:
        server = await _try_port(service, candidate, game)
        if server is not None:
            return server
    out.write(f"port {port} is taken: choose another with --port\n")
    out.flush()
    return None


async def _try_port(service: GameService, port: int, game: LocalGame) -> WebServer | None:
    signer = Signer(secrets.token_bytes(32))
    # Origins name the port, which is only known once listening on port 0: start on the
    # given port, and for 0 find a free one first.
    if port == 0:
        port = _free_port()
    config = WebConfig(
        public_url=f"http://{HOST}:{port}",
        host=HOST,
        port=port,
        extra_origins=frozenset({f"http://localhost:{port}"}),
        access_log=False,
    )
    server = WebServer(service, signer, config)
    NewGame(service, signer, config.origins, game).add_routes(server.app)
    try:
        await server.start()
    except OSError:
        service.remove_presenter(server.parts.presenter)
        return None
    return server


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


async def _open_game(service: GameService, game: LocalGame, out: TextIO) -> int | None:
    """Deal the local game (or keep the one resumed from ``--db``); its series id."""
    try:
        if service.state(CHANNEL) is ChannelPhase.NONE:
            await game.deal(service)
        table = await service.table(CHANNEL)
    except ServiceError as exc:
        out.write(f"error: {render_message(exc.message, wording=TERMINAL_WORDING)}\n")
        out.flush()
        return None
    return table.series_id
