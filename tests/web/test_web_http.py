"""The web table's HTTP side: the page and its files, security headers, health, and the
Discord Activity's sign-in against a fake Discord."""

from __future__ import annotations

import gzip
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from web.activity import DiscordOAuth
from web.activity_gate import GateAnswer
from web.app import WebConfig, csp, origin_of
from web.pages import PLACEHOLDER, SHELL
from web.static_files import StaticFiles
from web.strings import ACTIVITY_REFUSALS
from web.wording import catalog

from .conftest import ALICE, BOB, CAROL, CH, GUILD, ScriptedGate, WebTable, make_table


async def test_every_response_carries_the_security_headers(table: WebTable) -> None:
    for path in ("/table", "/healthz", "/static/nothing.js", "/nowhere"):
        resp = await table.client.get(path)
        assert resp.headers["Content-Security-Policy"] == csp(), path
        assert resp.headers["X-Content-Type-Options"] == "nosniff"
        assert resp.headers["Referrer-Policy"] == "no-referrer"
    assert "'unsafe-inline'" not in csp() and "script-src 'self'" in csp()


async def test_healthz(table: WebTable) -> None:
    resp = await table.client.get("/healthz")
    assert resp.status == 200 and await resp.text() == "ok"


async def test_without_the_page_table_is_a_placeholder_without_script(tmp_path: Path) -> None:
    t = await make_table(tmp_path, templates_dir=tmp_path / "nothing")
    try:
        resp = await t.client.get("/table")
        assert resp.status == 200 and await resp.read() == PLACEHOLDER
        assert b"<script" not in PLACEHOLDER and b"style" not in PLACEHOLDER
    finally:
        await t.close()


@pytest.fixture
async def static_table(tmp_path: Path) -> AsyncIterator[WebTable]:
    root = tmp_path / "static"
    (root / "js").mkdir(parents=True)
    (root / "js" / "app.js").write_text("export const x = 1;\n" * 100)
    (root / ".secret").write_text("hidden")
    (tmp_path / "outside.txt").write_text("outside")
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / SHELL).write_text("<!doctype html><title>T</title><body>{{body}}</body>")
    (templates / "table.html").write_text('<p data-s="take"></p>' * 100)
    t = await make_table(tmp_path, static_dir=root, templates_dir=templates)
    yield t
    await t.close()


async def test_static_files_are_served_gzipped_with_etags(static_table: WebTable) -> None:
    client = static_table.client
    resp = await client.get("/static/js/app.js", headers={"Accept-Encoding": "gzip"})
    assert resp.status == 200
    assert resp.headers["Content-Type"].startswith("text/javascript")
    assert resp.headers["Content-Encoding"] == "gzip"
    assert (await resp.text()).startswith("export const x")  # the client unzips it
    etag = resp.headers["ETag"]
    again = await client.get("/static/js/app.js", headers={"If-None-Match": etag})
    assert again.status == 304
    page = await client.get("/table", headers={"Accept-Language": "fr"})
    assert page.status == 200 and "<title>T</title>" in await page.text()
    assert page.headers["Content-Type"].startswith("text/html")
    assert page.headers["Content-Language"] == "fr" and "<p data-s" in await page.text()
    assert "Accept-Language" in page.headers["Vary"]
    # the page is made once per language, and revalidates as a static file does
    again = await client.get(
        "/table", headers={"Accept-Language": "fr", "If-None-Match": page.headers["ETag"]}
    )
    assert again.status == 304
    english = await client.get("/table", headers={"Accept-Language": "en"})
    assert english.headers["ETag"] != page.headers["ETag"]


@pytest.mark.parametrize(
    "path",
    ["/static/../outside.txt", "/static/%2e%2e/outside.txt", "/static/.secret", "/static/js"],
)
async def test_nothing_outside_the_static_files_is_served(
    static_table: WebTable, path: str
) -> None:
    resp = await static_table.client.get(path)
    assert resp.status == 404


def test_compressed_sizes_count_what_a_browser_downloads(tmp_path: Path) -> None:
    (tmp_path / "a.js").write_text("let a = 1;\n" * 500)
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "sdk.js").write_text("x" * 1000)
    sizes = StaticFiles(tmp_path).compressed_sizes(exclude=("vendor/",))
    assert sizes == {"a.js": len(gzip.compress(("let a = 1;\n" * 500).encode(), 9, mtime=0))}


def test_origins_are_written_as_browsers_send_them() -> None:
    assert origin_of("https://durak.example/") == "https://durak.example"
    assert origin_of("https://durak.example:443/x") == "https://durak.example"
    assert origin_of("http://127.0.0.1:8080") == "http://127.0.0.1:8080"
    config = WebConfig(public_url="https://Durak.example", oauth=DiscordOAuth("42", "s"))
    assert config.origins == {"https://durak.example", "https://42.discordsays.com"}
    with pytest.raises(ValueError):
        origin_of("durak.example")


# ------------------------------------------------------------------------------ Activity
class FakeDiscordApi:
    """Discord's OAuth2 token exchange and ``/users/@me``, as far as the Activity uses them."""

    def __init__(self) -> None:
        self.users = {"code-alice": (ALICE, "fr"), "code-carol": (CAROL, None)}
        self.calls: list[str] = []
        self.down = False

    async def token(self, request: web.Request) -> web.Response:
        form = await request.post()
        self.calls.append("token")
        if self.down:
            return web.json_response({}, status=500)
        ok = (
            form.get("client_id") == "4242"
            and form.get("client_secret") == "s3cret"
            and form.get("grant_type") == "authorization_code"
            and form.get("code") in self.users
        )
        if not ok:
            return web.json_response({"error": "invalid_grant"}, status=400)
        return web.json_response({"access_token": f"at-{form['code']}", "token_type": "Bearer"})

    async def me(self, request: web.Request) -> web.Response:
        self.calls.append("me")
        auth = request.headers.get("Authorization", "")
        code = auth.removeprefix("Bearer at-")
        if code not in self.users:
            return web.json_response({"message": "401: Unauthorized"}, status=401)
        user, locale = self.users[code]
        body: dict[str, Any] = {"id": str(user), "username": f"u{user}"}
        if locale:
            body["locale"] = locale
        return web.json_response(body)


@pytest.fixture
async def activity(tmp_path: Path) -> AsyncIterator[tuple[WebTable, FakeDiscordApi]]:
    api = FakeDiscordApi()
    app = web.Application()
    app.router.add_post("/api/v10/oauth2/token", api.token)
    app.router.add_get("/api/v10/users/@me", api.me)
    server = TestServer(app)
    await server.start_server()
    oauth = DiscordOAuth("4242", "s3cret", api=str(server.make_url("/api/v10")))
    t = await make_table(tmp_path, oauth=oauth)
    yield t, api
    await t.close()
    await server.close()


INSTANCE = "i-1234-gc-10-100"


async def _session(
    t: WebTable, code: str, channel: int = CH, guild: int = GUILD, instance: str = INSTANCE
) -> Any:
    return await t.client.post(
        "/api/activity/session",
        json={
            "code": code,
            "instance_id": instance,
            "channel_id": str(channel),
            "guild_id": str(guild),
        },
    )


def _gate(t: WebTable) -> ScriptedGate:
    gate = t.parts.activity.gate
    assert isinstance(gate, ScriptedGate)
    return gate


async def test_the_activity_gives_a_seated_player_a_player_token(
    activity: tuple[WebTable, FakeDiscordApi],
) -> None:
    t, api = activity
    view = await t.game(ALICE, BOB)
    resp = await _session(t, "code-alice")
    assert resp.status == 200
    body = await resp.json()
    assert body["access_token"] == "at-code-alice"
    assert (body["role"], body["user_id"]) == ("player", str(ALICE))
    claims = t.signer.verify(body["token"])
    assert (claims.kind, claims.user_id, claims.series_id, claims.locale) == (
        "player",
        ALICE,
        view.series_id,
        "fr",
    )
    assert api.calls == ["token", "me"]
    # the gate was asked about the user Discord named, in the page's instance and channel
    assert _gate(t).asked == [(INSTANCE, ALICE, CH, GUILD)]
    # and that token opens the table from the Activity's origin
    page = await t.page(body["token"], origin="https://4242.discordsays.com")
    welcome = await page.next()
    assert (welcome["role"], welcome["lang"]) == ("player", "fr")


async def test_the_activity_gives_anyone_else_a_watcher_token(
    activity: tuple[WebTable, FakeDiscordApi],
) -> None:
    t, _ = activity
    await t.game(ALICE, BOB)
    body = await (await _session(t, "code-carol")).json()
    assert body["role"] == "watcher"
    assert t.signer.verify(body["token"]).kind == "watcher"


_IDS = {"instance_id": INSTANCE, "channel_id": str(CH), "guild_id": str(GUILD)}


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"code": "code-alice", "instance_id": INSTANCE, "channel_id": str(CH)}, 400),
        ({**_IDS, "code": ""}, 400),
        ({**_IDS, "code": "code-alice", "channel_id": "12a"}, 400),
        ({**_IDS, "code": "code-alice", "instance_id": None}, 400),
        ({**_IDS, "code": "code-alice", "instance_id": "a/../b"}, 400),
        ({**_IDS, "code": "code-alice", "instance_id": "i" * 129}, 400),
        ({**_IDS, "code": "nope"}, 401),
        ({**_IDS, "code": "code-alice", "channel_id": "999"}, 404),
        ({**_IDS, "code": "code-alice", "guild_id": "999"}, 404),
    ],
)
async def test_the_activity_refuses_bad_requests(
    activity: tuple[WebTable, FakeDiscordApi], body: dict[str, str], status: int
) -> None:
    t, _ = activity
    await t.game(ALICE, BOB)
    resp = await t.client.post("/api/activity/session", json=body)
    assert resp.status == status
    answer = await resp.json()
    assert "token" not in answer and answer["error"] and answer["reason"]


@pytest.mark.parametrize("refusal", ["not_in_instance", "elsewhere", "not_member", "cannot_view"])
async def test_the_activity_refuses_whom_the_gate_refuses_in_their_language(
    activity: tuple[WebTable, FakeDiscordApi], refusal: GateAnswer
) -> None:
    t, _ = activity
    await t.game(ALICE, BOB)
    _gate(t).answers[(INSTANCE, ALICE)] = refusal
    resp = await _session(t, "code-alice")
    assert resp.status == 403
    answer = await resp.json()
    # Alice's Discord locale is French: the page shows the reason in French
    assert answer == {
        "error": catalog("fr").gettext(ACTIVITY_REFUSALS[refusal]),
        "reason": refusal,
    }
    assert answer["error"] != ACTIVITY_REFUSALS[refusal]


async def test_a_refusal_before_discord_names_the_user_is_in_the_pages_language(
    activity: tuple[WebTable, FakeDiscordApi],
) -> None:
    t, _ = activity
    resp = await t.client.post(
        "/api/activity/session", json={**_IDS, "code": "nope", "lang": "es-MX"}
    )
    assert resp.status == 401
    spanish = catalog("es").gettext(ACTIVITY_REFUSALS["code_refused"])
    assert (await resp.json())["error"] == spanish != ACTIVITY_REFUSALS["code_refused"]
    assert _gate(t).asked == []


async def test_the_activity_says_when_the_gate_cannot_ask_discord(
    activity: tuple[WebTable, FakeDiscordApi],
) -> None:
    t, _ = activity
    await t.game(ALICE, BOB)
    _gate(t).answers[(INSTANCE, ALICE)] = "unavailable"
    resp = await _session(t, "code-alice")
    assert (resp.status, (await resp.json())["reason"]) == (502, "discord_down")


async def test_without_a_gate_there_is_no_activity(tmp_path: Path) -> None:
    """Credentials alone do not open the Activity: nobody would check who signs in."""
    t = await make_table(tmp_path, oauth=DiscordOAuth("4242", "s3cret"))
    t.parts.activity.gate = None
    try:
        resp = await _session(t, "code-alice")
        assert (resp.status, (await resp.json())["reason"]) == (503, "not_enabled")
    finally:
        await t.close()


async def test_the_activity_refuses_a_page_of_another_origin(
    activity: tuple[WebTable, FakeDiscordApi],
) -> None:
    t, api = activity
    await t.game(ALICE, BOB)
    resp = await t.client.post(
        "/api/activity/session",
        json={**_IDS, "code": "code-alice"},
        headers={"Origin": "https://evil.example"},
    )
    assert resp.status == 403 and api.calls == []
    ok = await t.client.post(
        "/api/activity/session",
        json={**_IDS, "code": "code-alice"},
        headers={"Origin": "https://4242.discordsays.com"},
    )
    assert ok.status == 200


async def test_the_activity_says_when_discord_is_down(
    activity: tuple[WebTable, FakeDiscordApi],
) -> None:
    t, api = activity
    await t.game(ALICE, BOB)
    api.down = True
    assert (await _session(t, "code-alice")).status == 502


async def test_without_client_credentials_there_is_no_activity(table: WebTable) -> None:
    await table.game(ALICE, BOB)
    resp = await _session(table, "code-alice")
    assert resp.status == 503
    assert "not enabled" in (await resp.json())["error"]


async def test_a_body_too_big_is_refused(activity: tuple[WebTable, FakeDiscordApi]) -> None:
    t, _ = activity
    resp = await t.client.post("/api/activity/session", data=b"{" + b" " * 20_000 + b"}")
    assert resp.status == 413
