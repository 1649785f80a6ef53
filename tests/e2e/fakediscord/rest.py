"""The fake's REST plumbing: routes declared on handlers, the request log, authorization,
forced rate limits (429) and Discord-style JSON errors."""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from aiohttp import web

from .core import FakeCore
from .models import ApiError

#: A route template's ``{name}`` or ``{name:regex}``.
_PLACEHOLDER = re.compile(r"\{(\w+)(?::([^}]+))?\}")
#: What a bare ``{name}`` matches: an id.
_ID = r"\d+"

Handler = Callable[..., Any]
#: The files of a multipart request: (field name, file name, content) each.
Files = list[tuple[str, str, bytes]]
#: A message body as a request gives it (JSON; None when it sent none).
Body = Mapping[str, Any] | None


@dataclass
class RequestRecord:
    """One REST request the fake received."""

    method: str
    path: str  # without the /api/v10 prefix
    query: dict[str, str]
    json: Any
    status: int = 0
    at: float = field(default_factory=time.monotonic)

    def __str__(self) -> str:
        return f"{self.method} {self.path} -> {self.status}"


@dataclass
class RateLimitRule:
    """A forced 429 (see FakeDiscord.force_429)."""

    pattern: re.Pattern[str]
    method: str | None
    retry_after: float
    remaining: int
    is_global: bool
    hits: int = 0

    def matches(self, method: str, path: str) -> bool:
        if self.remaining <= 0:
            return False
        if self.method is not None and self.method.upper() != method:
            return False
        return self.pattern.search(path) is not None


@dataclass
class Req:
    """A routed REST request, as its handler gets it (``params``: the path's named parts)."""

    method: str
    path: str
    query: Mapping[str, str]
    json: Any
    files: Files
    params: dict[str, str]
    record: RequestRecord
    #: The request's ``Authorization`` header ("" without one).
    authorization: str = ""


def route(methods: str, template: str) -> Callable[[Handler], Handler]:
    """Declare a REST handler for ``methods`` (space-separated) on the path ``template``
    (after ``/api/v10``): ``{name}`` matches an id, ``{name:regex}`` the regex; both reach
    the handler as ``req.params[name]``.  A handler may carry several routes."""
    pattern = re.compile(
        "^" + _PLACEHOLDER.sub(lambda m: f"(?P<{m[1]}>{m[2] or _ID})", template) + "$"
    )

    def deco(fn: Handler) -> Handler:
        routes = [*getattr(fn, "_fake_routes", ()), *((m, pattern) for m in methods.split())]
        fn._fake_routes = routes  # type: ignore[attr-defined]
        return fn

    return deco


def json_response(status: int, data: Any, headers: Mapping[str, str] | None = None) -> web.Response:
    hdrs = {"Content-Type": "application/json"}  # exactly this: discord.py compares for equality
    hdrs.update(headers or {})
    return web.Response(status=status, body=json.dumps(data).encode(), headers=hdrs)


class RestApi(FakeCore):
    """Serves REST requests: finds the handler a route declares on the fake (by name, so a
    test may replace ``fake.h_…``), checks the bot's token, logs every request."""

    API_PREFIX = "/api/v10"
    #: The paths a user's OAuth2 access token (``Bearer …``) may ask.
    BEARER_PATHS: ClassVar[frozenset[str]] = frozenset({"/users/@me"})
    #: (method, path regex, handler name) of every declared route, per class.
    _route_tables: ClassVar[dict[type, Sequence[tuple[str, re.Pattern[str], str]]]] = {}

    @property
    def rest_url(self) -> str:
        """Value for discord.http.Route.BASE."""
        return f"http://{self.host}:{self.port}{self.API_PREFIX}"

    @classmethod
    def _routes(cls) -> Sequence[tuple[str, re.Pattern[str], str]]:
        table = RestApi._route_tables.get(cls)
        if table is None:
            table = [
                (method, pattern, name)
                for klass in reversed(cls.__mro__)
                for name, fn in vars(klass).items()
                for method, pattern in getattr(fn, "_fake_routes", ())
            ]
            RestApi._route_tables[cls] = table
        return table

    async def _read_body(self, request: web.Request) -> tuple[Any, Files]:
        files: Files = []
        ctype = request.headers.get("Content-Type", "")
        if not request.can_read_body:
            return None, files
        if ctype.startswith("multipart/"):
            payload = None
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                data = await part.read()  # type: ignore[union-attr]
                if part.name == "payload_json":  # type: ignore[union-attr]
                    payload = json.loads(data.decode())
                else:
                    files.append((part.name or "", part.filename or "file", bytes(data)))  # type: ignore[union-attr]
            return payload, files
        raw = await request.read()
        if not raw:
            return None, files
        try:
            return json.loads(raw.decode()), files
        except ValueError:
            return raw.decode(errors="replace"), files

    async def _rest_handler(self, request: web.Request) -> web.StreamResponse:
        self._inflight += 1
        try:
            return await self._rest_inner(request)
        finally:
            self._inflight -= 1
            self._notify()

    async def _rest_inner(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        m = re.match(r"^/api/v\d+", path)
        if m:
            path = path[m.end() :]
        method = request.method
        body, files = await self._read_body(request)
        rec = RequestRecord(method, path, dict(request.query), body)
        self.requests.append(rec)

        for rule in self._rate_limits:
            if rule.matches(method, path):
                rule.remaining -= 1
                rule.hits += 1
                rec.status = 429
                return _too_many_requests(rule)

        handler_name, params = None, {}
        for rmethod, rx, name in self._routes():
            mm = rx.match(path)
            if mm and rmethod == method:
                handler_name, params = name, mm.groupdict()
                break
        if handler_name is None:
            self.unknown_routes.append(f"{method} {path}")
            rec.status = 404
            return json_response(404, {"message": "404: Not Found", "code": 0})

        authorization = request.headers.get("Authorization", "")
        is_token_route = path.startswith(("/interactions/", "/webhooks/", "/oauth2/token"))
        is_bearer = authorization.startswith("Bearer ") and path in self.BEARER_PATHS
        if not (is_token_route or is_bearer) and authorization != f"Bot {self.token}":
            rec.status = 401
            return json_response(401, {"message": "401: Unauthorized", "code": 0})

        req = Req(method, path, request.query, body, files, params, rec, authorization)
        try:
            status, data = await getattr(self._target(params), handler_name)(req)
        except ApiError as exc:
            rec.status = exc.status
            return json_response(exc.status, exc.body())
        rec.status = status
        if status == 204 or data is None:
            rec.status = 204
            return web.Response(status=204)
        return json_response(status, data)

    def requests_to(self, pattern: str, method: str | None = None) -> list[RequestRecord]:
        """Requests whose path (without /api/v10) matches regex `pattern` (and method, if given)."""
        rx = re.compile(pattern)
        return [
            r
            for r in self.requests
            if rx.search(r.path) and (method is None or r.method == method.upper())
        ]

    def force_429(
        self,
        route_pattern: str,
        retry_after: float = 0.1,
        count: int = 1,
        *,
        method: str | None = None,
        is_global: bool = False,
    ) -> RateLimitRule:
        """Answer the next `count` requests matching regex `route_pattern` with a retryable 429."""
        rule = RateLimitRule(re.compile(route_pattern), method, retry_after, count, is_global)
        self._rate_limits.append(rule)
        return rule

    def _invalid(self, what: str, errors: list[str]) -> ApiError:
        self.invalid_bodies.append(f"{what}: {'; '.join(errors)}")
        return ApiError(
            400,
            50035,
            "Invalid Form Body",
            {"_errors": [{"code": "FAKE", "message": e} for e in errors]},
        )

    def _check_guild(self, guild_id: str) -> None:
        if int(guild_id) != self.guild_id:
            raise ApiError(403, 50001, "Missing Access")

    def _check_app(self, app_id: str) -> None:
        if int(app_id) != self.application_id:
            raise ApiError(403, 50001, "Missing Access")


def _too_many_requests(rule: RateLimitRule) -> web.Response:
    """Discord's 429 for a forced rate limit, with its headers."""
    return json_response(
        429,
        {
            "message": "You are being rate limited.",
            "retry_after": rule.retry_after,
            "global": rule.is_global,
        },
        {
            "Via": "1.1 google",
            "Retry-After": str(math.ceil(rule.retry_after)),
            "X-RateLimit-Limit": "5",
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset": f"{time.time() + rule.retry_after:.3f}",
            "X-RateLimit-Reset-After": f"{rule.retry_after:.3f}",
            "X-RateLimit-Bucket": "fakediscord-forced",
            "X-RateLimit-Scope": "global" if rule.is_global else "user",
            **({"X-RateLimit-Global": "true"} if rule.is_global else {}),
        },
    )
