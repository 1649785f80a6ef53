"""The rooms' HTTP API (docs/WEB.md, "Rooms"): the options a room may have, creating a room,
and a guest sitting down.

- ``GET /api/rooms/setup?lang=fr``: the options (the same definitions as ``/durak new``:
  :mod:`bot.limits`, the offered AI levels) and the home page's strings;
- ``POST /api/rooms``: create a room (its host's name and options) → its slug, invite link
  and the host's guest token;
- ``POST /api/rooms/join``: a guest sits down → a guest token.

Limits per address (:mod:`web.rooms.limits`): rooms opened per hour and held open at once,
joins per minute.  A name that passes for an AI seat's is refused (:mod:`web.rooms.names`).

A refusal is ``{"error": "<a sentence in the reader's language>"}`` with its HTTP status.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from aiohttp import web

from bot.errors import ServiceError
from bot.limits import (
    DEFAULT_TIMEOUT,
    MAX_SEATS,
    MAX_TIMEOUT,
    MIN_SEATS,
    MIN_TIMEOUT,
    RULE_OPTIONS,
    RULE_PROFILES,
)
from bot.rooms import GUEST_NAME_MAX, NoRoom, RoomDirectory
from present.catalog import Catalog
from rules_engine.ai import OFFERED_LEVELS
from rules_engine.messages import Message
from web.protocol import BAD_FRAME, bad_origin, browser_language, parse_json, sentence
from web.rooms.limits import AddressCounts, RoomLimits, address_of
from web.rooms.names import check_not_ai
from web.strings import home_strings
from web.tokens import Signer
from web.wording import catalog

__all__ = ["RoomsApi"]

log = logging.getLogger(__name__)

_TOO_MANY_ROOMS = Message(
    "you have opened too many rooms in the last hour: wait a while before opening another"
)
_ALL_FULL = Message("too many rooms are open on this server right now: try again later")
_TOO_MANY_HELD = Message(
    "you have too many rooms open at once: finish or leave one before opening another"
)
_TOO_MANY_JOINS = Message("you have joined too many rooms just now: wait a minute and try again")


class RoomsApi:
    """The rooms' HTTP routes (see the module docstring); ``touched(channel)`` is told of
    every room opened or joined (its idle clock)."""

    def __init__(
        self,
        directory: RoomDirectory,
        signer: Signer,
        origins: frozenset[str],
        public_url: str,
        limits: RoomLimits,
        counts: AddressCounts,
        touched: Callable[[int], None],
    ) -> None:
        self.directory = directory
        self.signer = signer
        self.origins = origins
        self.public_url = public_url.rstrip("/")
        self.limits = limits
        self.counts = counts
        self.touched = touched

    async def setup(self, request: web.Request) -> web.Response:
        """``GET /api/rooms/setup``: the options of a room and the home page's strings."""
        cat = catalog(request.query.get("lang") or browser_language(request))
        return web.json_response(
            {
                "lang": cat.locale,
                "strings": home_strings(cat),
                "profiles": list(RULE_PROFILES),
                "options": {
                    name: list(values)
                    for name, values in RULE_OPTIONS.items()
                    if name
                    in ("transfer", "throw_in", "first_round_limit", "deck", "show_trump", "teams")
                },
                "seats": {"min": MIN_SEATS, "max": MAX_SEATS, "default": MAX_SEATS},
                "turn_timeout": {
                    "min": MIN_TIMEOUT,
                    "max": MAX_TIMEOUT,
                    "default": DEFAULT_TIMEOUT,
                },
                "levels": list(OFFERED_LEVELS),
                "name_max": GUEST_NAME_MAX,
            }
        )

    async def _body(self, request: web.Request) -> tuple[dict[str, Any], Catalog]:
        cat = catalog(browser_language(request))
        if request.headers.get("Origin") not in self.origins:
            raise _refusal(403, cat, bad_origin(self.public_url + "/"))
        try:
            body = parse_json(await request.read(), "a request body")
        except ValueError:
            raise _refusal(400, cat, BAD_FRAME) from None
        if not isinstance(body, dict):
            raise _refusal(400, cat, BAD_FRAME)
        lang = body.get("lang")
        if isinstance(lang, str):
            cat = catalog(lang[:16])
        return body, cat

    async def create(self, request: web.Request) -> web.Response:
        """``POST /api/rooms`` ``{"name", "lang", "options": {rules, transfer, throw_in,
        first_round_limit, turn_timeout, seats, deck, show_trump, teams}}`` → 201 ``{"room",
        "invite", "token"}`` (options that do not go together: 400 with the engine's
        sentence)."""
        body, cat = await self._body(request)
        options = body.get("options", {})
        if not isinstance(options, dict):
            raise _refusal(400, cat, BAD_FRAME)
        address = address_of(request, self.limits)
        try:
            open_rooms = await self.directory.rooms_open()
        except ServiceError as exc:
            raise _refusal(503, cat, exc.message) from None
        if self.counts.holds_too_many(address, open_rooms):
            raise _refusal(429, cat, _TOO_MANY_HELD)
        if len(open_rooms) >= self.limits.max_open:
            raise _refusal(503, cat, _ALL_FULL)
        if not self.counts.may_open_room(address):
            raise _refusal(429, cat, _TOO_MANY_ROOMS)
        try:
            check_not_ai(body.get("name"))
            room = await self.directory.create(body.get("name"), options)
        except ServiceError as exc:
            raise _refusal(400, cat, exc.message) from None
        self.counts.opened(address, room.channel_id)
        self.touched(room.channel_id)
        log.info("room %d opened", room.channel_id)
        return web.json_response(
            {
                "room": room.slug,
                "invite": f"{self.public_url}/room#{room.slug}",
                "token": self.signer.guest(room.channel_id, room.user_id),
            },
            status=201,
        )

    async def join(self, request: web.Request) -> web.Response:
        """``POST /api/rooms/join`` ``{"room", "name", "lang"}`` → ``{"token"}``."""
        body, cat = await self._body(request)
        if not self.counts.may_change_seat(address_of(request, self.limits)):
            raise _refusal(429, cat, _TOO_MANY_JOINS)
        try:
            check_not_ai(body.get("name"))
            room = await self.directory.join(body.get("room"), body.get("name"))
        except NoRoom as exc:
            raise _refusal(404, cat, exc.message) from None
        except ServiceError as exc:
            raise _refusal(409 if exc.code != "bad_option" else 400, cat, exc.message) from None
        self.touched(room.channel_id)
        return web.json_response({"token": self.signer.guest(room.channel_id, room.user_id)})


def _refusal(status: int, cat: Catalog, message: Message) -> web.HTTPException:
    """An HTTP refusal with ``{"error": <the reason, translated>}``."""
    body = json.dumps({"error": sentence(cat, message)}, ensure_ascii=False)
    return _STATUS[status](text=body, content_type="application/json")


_STATUS: dict[int, type[web.HTTPException]] = {
    400: web.HTTPBadRequest,
    403: web.HTTPForbidden,
    404: web.HTTPNotFound,
    409: web.HTTPConflict,
    429: web.HTTPTooManyRequests,
    503: web.HTTPServiceUnavailable,
}
