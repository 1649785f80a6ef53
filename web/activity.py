"""``POST /api/activity/session``: the Discord Activity's way in.

Inside Discord the page runs the Embedded App SDK, which authorizes the application and hands
the page an OAuth2 ``code``.  The page posts ``{"code", "channel_id", "guild_id"}`` here; the
server exchanges the code at Discord (``POST {api}/oauth2/token`` with ``DISCORD_CLIENT_ID`` and
``DISCORD_CLIENT_SECRET``), asks Discord who the user is (``GET {api}/users/@me`` with that
access token: the user's id and locale come from Discord, not from the page), finds the
channel's game, and answers ``{"access_token", "token", "role", "user_id"}``: a player token
when the user has a seat in that game (and did not forfeit it), else a watcher token.  The page
gives the access token to the SDK's ``authenticate`` and the table token to its ``hello``.

Refusals are JSON ``{"error": "<English text>"}``: 400 for a malformed request, 401 when
Discord refuses the code, 403 for a page of another origin (a browser's ``Origin`` header
that is not the web table's or the Activity's), 404 when the channel has no game (or it is in
another server), 502 when Discord cannot be reached, 503 when the Activity is not configured.
The code, the access token and the table token are never logged.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import aiohttp
from aiohttp import web

from bot.errors import ServiceError
from bot.service import GameService
from web.tokens import Signer

__all__ = ["DISCORD_API", "ActivitySessions", "DiscordOAuth"]

log = logging.getLogger(__name__)

#: Discord's HTTP API (tests point the Activity at a fake one).
DISCORD_API = "https://discord.com/api/v10"
#: Seconds to wait for each Discord request.
DISCORD_TIMEOUT = 10.0


@dataclass(frozen=True, slots=True)
class DiscordOAuth:
    """The application's OAuth2 credentials and where Discord's API is."""

    client_id: str
    client_secret: str
    api: str = DISCORD_API


class _Refused(Exception):
    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status, self.text = status, text


def _snowflake(value: object, what: str) -> int:
    text = value if isinstance(value, str) else None
    if text is None or not text.isdigit() or not 0 < len(text) <= 20:
        raise _Refused(400, f"{what} must be a Discord id (a string of digits)")
    return int(text)


class ActivitySessions:
    """The ``/api/activity/session`` route (see the module docstring)."""

    def __init__(
        self,
        service: GameService,
        signer: Signer,
        oauth: DiscordOAuth | None,
        origins: frozenset[str] = frozenset(),
    ) -> None:
        self.service = service
        self.signer = signer
        self.oauth = oauth
        self.origins = origins
        self._http: aiohttp.ClientSession | None = None

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
        try:
            return web.json_response(await self._session(request))
        except _Refused as exc:
            return web.json_response({"error": exc.text}, status=exc.status)

    async def _session(self, request: web.Request) -> dict[str, Any]:
        oauth = self.oauth
        if oauth is None:
            raise _Refused(503, "the Discord Activity is not enabled on this bot")
        origin = request.headers.get("Origin")
        if origin is not None and origin not in self.origins:
            raise _Refused(403, "this page may not sign in from where it was loaded")
        try:
            body = await request.json()
        except ValueError:
            raise _Refused(400, "the body must be JSON") from None
        if not isinstance(body, dict):
            raise _Refused(400, "the body must be a JSON object")
        code = body.get("code")
        if not isinstance(code, str) or not 0 < len(code) <= 512:
            raise _Refused(400, "code is missing")
        channel_id = _snowflake(body.get("channel_id"), "channel_id")
        guild_id = _snowflake(body.get("guild_id"), "guild_id")
        access_token = await self._exchange(oauth, code)
        user = await self._user(oauth, access_token)
        user_id = _snowflake(user.get("id"), "the user's id")
        locale = user.get("locale") if isinstance(user.get("locale"), str) else None
        try:
            table = await self.service.table(channel_id)
        except ServiceError:
            raise _Refused(404, "there is no game in this channel") from None
        if table.guild_id != guild_id:
            raise _Refused(404, "there is no game in this channel")
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
            raise _Refused(401, "Discord did not accept the authorization code")
        return token

    async def _user(self, oauth: DiscordOAuth, access_token: str) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {access_token}"}
        return await self._call("GET", f"{oauth.api}/users/@me", headers=headers)

    async def _call(self, method: str, url: str, **kwargs: Any) -> dict[str, Any]:
        try:
            async with self._client().request(method, url, **kwargs) as response:
                if response.status in (400, 401, 403):
                    raise _Refused(401, "Discord did not accept the authorization code")
                if response.status >= 300:
                    log.warning("Discord answered %d to the Activity's %s", response.status, method)
                    raise _Refused(502, "Discord could not be reached: try again")
                answer = await response.json()
        except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
            log.warning("the Activity could not reach Discord: %s", type(exc).__name__)
            raise _Refused(502, "Discord could not be reached: try again") from None
        if not isinstance(answer, dict):
            raise _Refused(502, "Discord could not be reached: try again")
        return answer
