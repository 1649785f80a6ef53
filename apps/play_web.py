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
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import socket
import tempfile
import webbrowser
from typing import TextIO

from bot.ai_pool import ThreadAI
from bot.errors import ServiceError
from bot.limits import MAX_TIMEOUT
from bot.seating import LobbyOptions
from bot.service import ChannelPhase, GameService
from bot.storage import SqliteStorage
from present.messages import render_message
from rules_engine.ai import DEFAULT_AI_LEVEL
from terminal.wording import TERMINAL_WORDING
from web.app import WebConfig, WebServer
from web.links import table_url
from web.tokens import Signer

__all__ = ["CHANNEL", "DEFAULT_PORT", "GUILD", "HOST", "USER", "YOU", "play_web"]

#: The local game's channel, server and player ids, and the player's name.
CHANNEL, GUILD, USER = 1, 1, 1
YOU = "Player"
HOST = "127.0.0.1"
DEFAULT_PORT = 8080


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
    try:
        await service.restore()
        server = await _start_server(service, port, out)
        if server is None:
            return 2
        series_id = await _open_game(service, players, rules, level, turn_timeout, out)
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


async def _start_server(service: GameService, port: int | None, out: TextIO) -> WebServer | None:
    """The web table on 127.0.0.1: on ``port``, or on 8080 falling back to any free port."""
    tries = [port] if port is not None else [DEFAULT_PORT, 0]
    for candidate in tries:
        server = await _try_port(service, candidate)
        if server is not None:
            return server
    out.write(f"port {port} is taken: choose another with --port\n")
    out.flush()
    return None


async def _try_port(service: GameService, port: int) -> WebServer | None:
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


async def _open_game(
    service: GameService, players: int, rules: str, level: str, turn_timeout: int, out: TextIO
) -> int | None:
    """Deal the local game (or keep the one resumed from ``--db``); its series id."""
    if service.state(CHANNEL) is ChannelPhase.NONE:
        try:
            await service.open_lobby(
                CHANNEL,
                GUILD,
                USER,
                YOU,
                LobbyOptions(rules=rules, seats=players, turn_timeout=turn_timeout),
            )
            for _ in range(players - 1):
                await service.add_ai(CHANNEL, USER, level)
            await service.start(CHANNEL, USER)
        except ServiceError as exc:
            out.write(f"error: {render_message(exc.message, wording=TERMINAL_WORDING)}\n")
            out.flush()
            return None
    try:
        table = await service.table(CHANNEL)
    except ServiceError as exc:
        out.write(f"error: {render_message(exc.message, wording=TERMINAL_WORDING)}\n")
        out.flush()
        return None
    return table.series_id
