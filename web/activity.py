"""``POST /api/activity/session``: the Discord Activity's way in.

Inside Discord the page runs the Embedded App SDK, which authorizes the application and hands
the page an OAuth2 ``code``.  The page posts ``{"code", "instance_id", "channel_id",
"guild_id", "lang"}`` here (``instance_id``: the SDK's ``instanceId``); the server exchanges
the code at Discord (``POST {api}/oauth2/token`` with ``DISCORD_CLIENT_ID`` and
``DISCORD_CLIENT_SECRET``), asks Discord who the user is (``GET {api}/users/@me`` with that
access token: the user's id and locale come from Discord, not from the page), asks the
:class:`~web.activity_gate.ActivityGate` whether that user may open that channel's table from
that Activity instance (in it, the instance in that channel, a member of the server who can
view the channel: the page's ids are not trusted), finds the channel's game, and answers
``{"access_token", "token", "role", "user_id"}``: a player token when the user has a seat in
that game (and did not forfeit it), else a watcher token.  The page gives the access token to
the SDK's ``authenticate`` and the table token to its ``hello``.

Refusals are JSON ``{"error": "<sentence>", "reason": "<key>"}``, the sentence in the
player's language (their Discord locale once known, else the page's ``lang``; the keys and
sentences are :data:`web.strings.ACTIVITY_REFUSALS`): 400 for a malformed request, 401 when
Discord refuses the code, 403 for a page of another origin (a browser's ``Origin`` header
that is not the web table's or the Activity's) and for a user the gate refuses, 404 when the
channel has no game, 502 when Discord cannot be reached, 503 when the Activity is not
configured.  The code, the access token and the table token are never logged.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

from bot.errors import ServiceError
from bot.service import GameService
from web.activity_gate import REFUSALS, ActivityGate
from web.protocol import parse_json
from web.strings import ACTIVITY_REFUSALS
from web.tokens import Signer
from web.wording import catalog

__all__ = ["DISCORD_API", "ActivitySessions", "DiscordOAuth"]

log = logging.getLogger(__name__)

#: Discord's HTTP API (tests point the Activity at a fake one).
DISCORD_API = "https://discord.com/api/v10"
#: Seconds to wait for each Discord request.
DISCORD_TIMEOUT = 10.0
#: What an Activity instance id may look like (Discord's are like ``i-1234…-gc-5678…-9012…``).
INSTANCE_ID = re.compile(r"[A-Za-z0-9_.:-]{1,128}")


@dataclass(frozen=True, slots=True)
class DiscordOAuth:
    """The application's OAuth2 credentials and where Discord's API is."""

    client_id: str
    client_secret: str
    api: str = DISCORD_API


class _Refused(Exception):
    """A refusal: its status and its reason (a key of :data:`ACTIVITY_REFUSALS`)."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


def _snowflake(value: object) -> int:
    text = value if isinstance(value, str) else None
    if text is None or not text.isdigit() or not 0 < len(text) <= 20:
        raise _Refused(400, "bad_request")
    return int(text)


@dataclass(eq=False)
class ActivitySessions:
    """The ``/api/activity/session`` route (see the module docstring).  Without ``oauth`` or
    without ``gate`` there is no Activity (503)."""

    service: GameService
    signer: Signer
    oauth: DiscordOAuth | None
    origins: frozenset[str] = frozenset()
    gate: ActivityGate | None = None
    _http: aiohttp.ClientSession | None = field(default=None, init=False)

    async def close(self) -> None:
        """Close the HTTP client (at the web server's end)."""
        if self._http is not None:
            await self._http.close()
            self._http = None

    def _client(self) -> aiohttp.ClientSession:
        if self._http is None or self._http.closed:
            self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=DISCORD_TIMEOUT))
        return self._http

    async def handle(self, request: web.Request) -> web.Response:
        """``POST /api/activity/session``."""
        said: list[str | None] = [None]  # the player's language, once known
        try:
            return web.json_response(await self._session(request, said))
        except _Refused as exc:
            words = catalog(said[0]).gettext(ACTIVITY_REFUSALS[exc.reason])
            return web.json_response({"error": words, "reason": exc.reason}, status=exc.status)

    async def _session(self, request: web.Request, said: list[str | None]) -> dict[str, Any]:
        oauth, gate = self.oauth, self.gate
        if oauth is None or gate is None:
            raise _Refused(503, "not_enabled")
        origin = request.headers.get("Origin")
        if origin is not None and origin not in self.origins:
            raise _Refused(403, "origin")
        try:
            # not JSON, or nested too deep to read: refused, one log line at most
            body = parse_json(await request.read(), "a sign-in body")
        except ValueError:
            raise _Refused(400, "bad_request") from None
        if not isinstance(body, dict):
            raise _Refused(400, "bad_request")
        lang = body.get("lang")
        if isinstance(lang, str) and len(lang) <= 35:
            said[0] = lang
        code = body.get("code")
        if not isinstance(code, str) or not 0 < len(code) <= 512:
            raise _Refused(400, "bad_request")
        instance_id = body.get("instance_id")
        if not isinstance(instance_id, str) or not INSTANCE_ID.fullmatch(instance_id):
            raise _Refused(400, "bad_request")
        channel_id = _snowflake(body.get("channel_id"))
        guild_id = _snowflake(body.get("guild_id"))
        access_token = await self._exchange(oauth, code)
        user = await self._user(oauth, access_token)
        user_id = _snowflake(user.get("id"))
        locale = user.get("locale") if isinstance(user.get("locale"), str) else None
        if locale is not None:
            said[0] = locale
        answer = await gate.admit(instance_id, user_id, channel_id, guild_id)
        if answer == "unavailable":
            raise _Refused(502, "discord_down")
        if answer in REFUSALS:
            log.info("an Activity session for channel %d refused: %s", channel_id, answer)
            raise _Refused(403, answer)
        if answer != "admitted":  # pragma: no cover - the gate answers one of its words
            raise _Refused(502, "discord_down")
        try:
            table = await self.service.table(channel_id)
        except ServiceError:
            raise _Refused(404, "no_game") from None
        if table.guild_id != guild_id:
            raise _Refused(404, "no_game")
        seat = next((s for s in table.seats if s.user_id == user_id), None)
        if seat is not None and not seat.forfeited:
            token = self.signer.player(channel_id, user_id, table.series_id, locale)
            role = "player"
        else:
            token = self.signer.watcher(channel_id, locale)
            role = "watcher"
        log.info("an Activity session opened channel %d as a %s", channel_id, role)
        return {
            "access_token": access_token,
            "token": token,
            "role": role,
            "user_id": str(user_id),
        }

    async def _exchange(self, oauth: DiscordOAuth, code: str) -> str:
        data = {
            "client_id": oauth.client_id,
            "client_secret": oauth.client_secret,
            "grant_type": "authorization_code",
            "code": code,
        }
        answer = await self._call("POST", f"{oauth.api}/oauth2/token", data=data)
        token = answer.get("access_token")
        if not isinstance(token, str) or not token:
            raise _Refused(401, "code_refused")
        return token

    async def _user(self, oauth: DiscordOAuth, access_token: str) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {access_token}"}
        return await self._call("GET", f"{oauth.api}/users/@me", headers=headers)

    async def _call(self, method: str, url: str, **kwargs: Any) -> dict[str, Any]:
        try:
            async with self._client().request(method, url, **kwargs) as response:
                if response.status in (400, 401, 403):
                    raise _Refused(401, "code_refused")
                if response.status >= 300:
                    log.warning("Discord answered %d to the Activity's %s", response.status, method)
                    raise _Refused(502, "discord_down")
                answer = await response.json()
        except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
            log.warning("the Activity could not reach Discord: %s", type(exc).__name__)
            raise _Refused(502, "discord_down") from None
        if not isinstance(answer, dict):
            raise _Refused(502, "discord_down")
        return answer
