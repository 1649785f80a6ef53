"""Signed table tokens: who may open which table, as a player or a watcher, until when.

A token is ``<payload>.<mac>``: the payload is a compact JSON object, base64url without
padding; the MAC is HMAC-SHA256 of the payload's base64url text under the server's secret
(base64url, 32 bytes).  Fields of the payload (:class:`Claims`):

- ``v``: 1, the format; ``k``: ``p`` (a player), ``w`` (a watcher) or ``g`` (a room's guest:
  ``c`` and ``u`` only, for as long as the room lasts, :mod:`web.rooms`);
- ``c``: the channel; ``s``: the series a player token is for (it stays valid for that
  series' rematches, not for a later series in the channel); ``u``: the player's user id;
- ``l``: the reader's locale, if known (Discord's); ``x``: expiry, Unix seconds;
- ``n``: a random nonce, so that two tokens are never the same text.

A token is only ever carried in a URL *fragment* (``/table#t=…``) and in the page's ``hello``
frame: never in a path or a query, so that no access log, proxy log or ``Referer`` holds one.

The secret is ``WEB_SECRET``, or one generated once and kept in the database
(:func:`load_secret`, ``bot_meta`` key :data:`SECRET_KEY`), so that links survive a restart.
Revocation (a forfeit, a kick) is not in the token: the server checks the player's seat on
every frame (:mod:`web.sockets`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass
from typing import Literal

from bot.storage import Storage
from rules_engine.messages import Message

__all__ = [
    "GUEST_TTL",
    "INVALID_LINK",
    "PLAYER_TTL",
    "SECRET_KEY",
    "WATCHER_TTL",
    "Claims",
    "Signer",
    "TokenError",
    "load_secret",
]

#: How long a token opens its table, in seconds.
PLAYER_TTL = 12 * 3600
WATCHER_TTL = 12 * 3600
#: How long a room's guest token lasts (the room closes long before, when idle).
GUEST_TTL = 7 * 24 * 3600
#: The ``bot_meta`` key of the generated secret (used when ``WEB_SECRET`` is not set).
SECRET_KEY = "web_secret"
#: Tokens longer than this are refused before any work (a real one is about 200 characters).
MAX_TOKEN_LENGTH = 512

Kind = Literal["player", "watcher", "guest"]


class TokenError(Exception):
    """A token that does not open a table: ``message`` says why, for the page."""

    def __init__(self, message: Message) -> None:
        super().__init__(message.key)
        self.message = message


#: Why a link does not open a table (also said of a valid link that is not the reader's).
INVALID_LINK = Message("this link is not valid: open the table again from the game")
_EXPIRED = Message("this link has expired: open the table again from the game")


@dataclass(frozen=True, slots=True)
class Claims:
    """What a valid token says (see the module docstring)."""

    kind: Kind
    channel_id: int
    expires: float
    user_id: int | None = None
    series_id: int | None = None
    locale: str | None = None


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Signer:
    """Issues and verifies tokens with one secret (at least 16 bytes)."""

    def __init__(self, secret: bytes) -> None:
        if len(secret) < 16:
            raise ValueError("the token secret must be at least 16 bytes")
        self._key = hashlib.sha256(b"durak-web-token\0" + secret).digest()

    def _mac(self, payload: str) -> str:
        return _b64(hmac.new(self._key, payload.encode("ascii"), hashlib.sha256).digest())

    def _sign(self, fields: dict[str, object]) -> str:
        fields["n"] = secrets.token_hex(4)
        raw = json.dumps(fields, separators=(",", ":"), ensure_ascii=True).encode("ascii")
        payload = _b64(raw)
        return f"{payload}.{self._mac(payload)}"

    def player(
        self,
        channel_id: int,
        user_id: int,
        series_id: int,
        locale: str | None = None,
        *,
        now: float | None = None,
        ttl: float = PLAYER_TTL,
    ) -> str:
        """A token that opens ``channel_id``'s table as ``user_id``, while series
        ``series_id`` lasts and for ``ttl`` seconds."""
        expires = int((time.time() if now is None else now) + ttl)
        fields: dict[str, object] = {
            "v": 1,
            "k": "p",
            "c": channel_id,
            "s": series_id,
            "u": user_id,
            "x": expires,
        }
        if locale:
            fields["l"] = locale[:16]
        return self._sign(fields)

    def watcher(
        self,
        channel_id: int,
        locale: str | None = None,
        *,
        now: float | None = None,
        ttl: float = WATCHER_TTL,
    ) -> str:
        """A token that shows ``channel_id``'s table without a hand, for ``ttl`` seconds."""
        expires = int((time.time() if now is None else now) + ttl)
        fields: dict[str, object] = {"v": 1, "k": "w", "c": channel_id, "x": expires}
        if locale:
            fields["l"] = locale[:16]
        return self._sign(fields)

    def guest(
        self, channel_id: int, user_id: int, *, now: float | None = None, ttl: float = GUEST_TTL
    ) -> str:
        """A room guest's token: ``user_id`` in the room ``channel_id``, for ``ttl`` seconds
        (kept by the guest's browser, so a reload finds the same seat)."""
        expires = int((time.time() if now is None else now) + ttl)
        return self._sign({"v": 1, "k": "g", "c": channel_id, "u": user_id, "x": expires})

    def verify(self, token: object, *, now: float | None = None) -> Claims:
        """The claims of ``token``; :class:`TokenError` if it is malformed, forged or
        expired."""
        if (
            not isinstance(token, str)
            or not 0 < len(token) <= MAX_TOKEN_LENGTH
            or not token.isascii()
        ):
            raise TokenError(INVALID_LINK)
        payload, dot, mac = token.partition(".")
        if not dot or not hmac.compare_digest(mac, self._mac(payload)):
            raise TokenError(INVALID_LINK)
        try:
            fields = json.loads(_unb64(payload))
        except (ValueError, binascii.Error, UnicodeDecodeError):
            raise TokenError(INVALID_LINK) from None
        claims = _claims(fields)
        if claims.expires <= (time.time() if now is None else now):
            raise TokenError(_EXPIRED)
        return claims


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TokenError(INVALID_LINK)
    return value


def _claims(fields: object) -> Claims:
    """The claims of a signed payload (signed by us, but checked all the same)."""
    if not isinstance(fields, dict) or fields.get("v") != 1:
        raise TokenError(INVALID_LINK)
    kind = fields.get("k")
    locale = fields.get("l")
    if locale is not None and not isinstance(locale, str):
        raise TokenError(INVALID_LINK)
    if kind == "p":
        return Claims(
            "player",
            _int(fields.get("c")),
            _int(fields.get("x")),
            user_id=_int(fields.get("u")),
            series_id=_int(fields.get("s")),
            locale=locale,
        )
    if kind == "g":
        return Claims(
            "guest", _int(fields.get("c")), _int(fields.get("x")), user_id=_int(fields.get("u"))
        )
    if kind == "w":
        return Claims("watcher", _int(fields.get("c")), _int(fields.get("x")), locale=locale)
    raise TokenError(INVALID_LINK)


async def load_secret(storage: Storage, configured: str | None) -> bytes:
    """The token secret: ``WEB_SECRET`` if set, else the one kept in the database (made and
    stored once, at the first start with the web table; when two processes start at once,
    the first one stored is the one both use)."""
    if configured:
        return configured.encode("utf-8")
    stored = await storage.get_meta(SECRET_KEY)
    if stored:
        return stored.encode("ascii")
    kept = await storage.set_meta_once(SECRET_KEY, secrets.token_urlsafe(32), time.time())
    return kept.encode("ascii")
