"""The page as a Discord Activity: loaded from ``https://<client id>.discordsays.com`` inside
Discord's frame, it loads the vendored Embedded App SDK, which asks Discord (here a fake
parent frame speaking the SDK's postMessage protocol) to authorize the player; the server
trades the code at Discord's API (a fake one) for the player's table token, and the page
opens the table as that player.

Playwright serves the two Discord addresses: the parent page, and the Activity's address,
whose requests (and WebSocket) it relays to the local web server, as Discord's proxy does.
The server asks its Activity gate (here one that answers as the test says; the Discord side
is tested against the fake Discord in tests/e2e) whether the player may open that channel.
A refused sign-in shows the server's reason, or (a proxy's answer without one) the page's
own words, in the player's language."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from playwright.async_api import expect

from web.activity import DiscordOAuth
from web.activity_gate import GateAnswer
from web.strings import ACTIVITY_REFUSALS, page_strings
from web.wording import catalog

CLIENT_ID = "424242424242424242"
ACTIVITY = f"https://{CLIENT_ID}.discordsays.com"
DISCORD = "https://discord.com/activities/durak"

#: Discord's side of the SDK's protocol: READY after the handshake, a code for AUTHORIZE, the
#: user for AUTHENTICATE, an empty answer to anything else (the SDK's console capture).  The
#: Activity runs in channel ``CHANNEL`` of server 1.
PARENT = f"""<!doctype html><html><body style="margin:0">
<iframe id="app" style="width:1000px;height:760px;border:0"
 src="{ACTIVITY}/table?frame_id=f1&instance_id=i1&platform=desktop&guild_id=1&channel_id=CHANNEL">
</iframe>
<script>
window.commands = [];
window.addEventListener("message", (event) => {{
  const [op, data] = event.data;
  const reply = (frame) => event.source.postMessage([1, frame], "*");
  if (op === 0) {{
    reply({{cmd: "DISPATCH", evt: "READY", nonce: null, data: {{v: 1,
      config: {{api_endpoint: "//discord.com/api", environment: "production"}}}}}});
  }} else if (op === 1) {{
    window.commands.push(data.cmd);
    let answer = null;
    if (data.cmd === "AUTHORIZE") answer = {{code: "code-alice"}};
    if (data.cmd === "AUTHENTICATE") answer = {{access_token: data.args.access_token,
      user: {{username: "alice", discriminator: "0", id: "1", public_flags: 0}},
      scopes: ["identify"], expires: "2100-01-01T00:00:00Z",
      application: {{description: "", id: "{CLIENT_ID}", name: "Durak"}}}};
    reply({{cmd: data.cmd, evt: null, nonce: data.nonce, data: answer}});
  }}
}});
</script></body></html>"""


@pytest.fixture
async def discord_api() -> AsyncIterator[str]:
    """Discord's OAuth2 token exchange and ``/users/@me`` for one code: Alice's (user 1)."""

    async def token(request: web.Request) -> web.Response:
        form = await request.post()
        if form.get("code") != "code-alice" or form.get("client_id") != CLIENT_ID:
            return web.json_response({"error": "invalid_grant"}, status=400)
        return web.json_response({"access_token": "at-alice", "token_type": "Bearer"})

    async def me(request: web.Request) -> web.Response:
        if request.headers.get("Authorization") != "Bearer at-alice":
            return web.json_response({"message": "401: Unauthorized"}, status=401)
        return web.json_response({"id": "1", "username": "alice"})

    app = web.Application()
    app.router.add_post("/api/v10/oauth2/token", token)
    app.router.add_get("/api/v10/users/@me", me)
    server = TestServer(app)
    await server.start_server()
    try:
        yield str(server.make_url("/api/v10"))
    finally:
        await server.close()


@dataclass
class Gate:
    """The Activity gate: ``answer`` to every question, each one kept in ``asked``."""

    answer: GateAnswer = "admitted"
    asked: list[tuple[str, int, int, int]] = field(default_factory=list)

    async def admit(
        self, instance_id: str, user_id: int, channel_id: int, guild_id: int
    ) -> GateAnswer:
        self.asked.append((instance_id, user_id, channel_id, guild_id))
        return self.answer


@dataclass
class Activity:
    """The Activity's page inside the fake Discord: the page, its frame, the page's errors
    and the sign-in answers the proxy relayed (status and JSON body)."""

    page: Any
    app: Any
    errors: list[str] = field(default_factory=list)
    answers: list[tuple[int, Any]] = field(default_factory=list)


@contextlib.asynccontextmanager
async def inside_discord(
    browser: Any,
    local: str,
    *,
    channel: int = 1,
    locale: str | None = None,
    session_status: int | None = None,
) -> AsyncIterator[Activity]:
    """The Activity in channel ``channel``, its requests relayed to the bot at ``local`` as
    Discord's proxy does (``session_status``: the proxy itself answers the sign-in with that
    status and a page that is not JSON, as a proxy's error page is)."""
    options: dict[str, Any] = {"viewport": {"width": 1000, "height": 760}}
    if locale is not None:
        options["locale"] = locale
    context = await browser.new_context(**options)
    page = await context.new_page()
    activity = Activity(page, page.frame_locator("#app"))
    page.on("pageerror", lambda error: activity.errors.append(str(error)))
    body = PARENT.replace("CHANNEL", str(channel))

    async def parent(route: Any) -> None:
        await route.fulfill(status=200, content_type="text/html", body=body)

    async def proxy(route: Any) -> None:
        # Discord's proxy: the Activity's address serves the bot's pages
        url = route.request.url.replace(ACTIVITY, local, 1)
        signing_in = url.endswith("/api/activity/session")
        if signing_in and session_status is not None:
            await route.fulfill(status=session_status, body="<html>Bad gateway</html>")
            return
        response = await route.fetch(url=url)
        if signing_in:
            activity.answers.append((response.status, await response.json()))
        await route.fulfill(response=response)

    http = aiohttp.ClientSession()
    relays: list[asyncio.Task[None]] = []

    async def socket(page_side: Any) -> None:
        # the page's WebSocket, relayed to the bot from the Activity's origin
        server_side = await http.ws_connect(
            local.replace("http", "ws", 1) + "/ws", headers={"Origin": ACTIVITY}
        )
        page_side.on_message(lambda m: relays.append(asyncio.create_task(server_side.send_str(m))))

        async def to_page() -> None:
            async for message in server_side:
                page_side.send(message.data)

        relays.append(asyncio.create_task(to_page()))

    await context.route(DISCORD, parent)
    await context.route(f"{ACTIVITY}/**", proxy)
    await context.route_web_socket(f"{ACTIVITY.replace('https', 'wss')}/ws", socket)
    try:
        await page.goto(DISCORD)
        yield activity
    finally:
        await context.close()
        for task in relays:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await http.close()


async def test_inside_discord_the_activity_signs_the_player_in_and_shows_their_hand(
    browser: Any, local_table: Any, discord_api: str
) -> None:
    table = await local_table(
        players=2, seed=7, oauth=DiscordOAuth(CLIENT_ID, "s3cret", api=discord_api), gate=Gate()
    )
    async with inside_discord(browser, table.base) as activity:
        app, page = activity.app, activity.page
        hand = app.locator("#hand")
        await hand.locator("button").first.wait_for(timeout=10_000)
        view = await table.service.hand(table.channel, table.user)
        # Alice's own hand, by its cards' names, signed in through Discord
        for card in view.cards:
            await app.get_by_role("button", name=card.text, exact=True).wait_for()
        # the page ran in a frame where storage is denied (as a third-party frame may be)
        assert await app.locator("body").evaluate(
            "() => { try { localStorage.length; return false } catch { return true } }"
        )
        commands = await page.evaluate("() => window.commands")
        assert commands[:2] == ["AUTHORIZE", "AUTHENTICATE"]
        assert activity.errors == []
        # the server asked about the instance and channel the SDK read from Discord's address
        gate = table.server.parts.activity.gate
        assert isinstance(gate, Gate) and gate.asked == [("i1", 1, table.channel, table.guild)]


@pytest.mark.parametrize("lang", ["en", "es", "fr"])
async def test_a_player_the_gate_refuses_reads_why_in_their_language(
    browser: Any, local_table: Any, discord_api: str, lang: str
) -> None:
    table = await local_table(
        players=2,
        seed=7,
        oauth=DiscordOAuth(CLIENT_ID, "s3cret", api=discord_api),
        gate=Gate("cannot_view"),
    )
    words = catalog(lang).gettext(ACTIVITY_REFUSALS["cannot_view"])
    async with inside_discord(browser, table.base, locale=f"{lang}-{lang.upper()}") as activity:
        banner = activity.app.locator("#banner")
        await expect(banner).to_have_text(words)
        await expect(banner).to_have_class("banner banner-error")
        [(status, answer)] = activity.answers
        assert (status, answer["reason"]) == (403, "cannot_view")
        assert activity.errors == []


async def test_a_refused_sign_in_shows_the_servers_reason(
    browser: Any, local_table: Any, discord_api: str
) -> None:
    table = await local_table(
        players=2, seed=7, oauth=DiscordOAuth(CLIENT_ID, "s3cret", api=discord_api), gate=Gate()
    )
    # the Activity runs in a channel without a game: the server refuses, with its reason
    async with inside_discord(browser, table.base, channel=2) as activity:
        banner = activity.app.locator("#banner")
        await banner.wait_for()
        [(status, answer)] = activity.answers
        assert status >= 400 and answer["error"]
        await expect(banner).to_have_text(answer["error"])
        await expect(banner).to_have_class("banner banner-error")
        assert activity.errors == []


@pytest.mark.parametrize("lang", ["en", "es", "fr"])
async def test_a_refusal_without_a_reason_is_said_in_the_players_language(
    browser: Any, local_table: Any, discord_api: str, lang: str
) -> None:
    table = await local_table(
        players=2, seed=7, oauth=DiscordOAuth(CLIENT_ID, "s3cret", api=discord_api), gate=Gate()
    )
    words = page_strings("table", catalog(lang))["signin_refused"].replace("{status}", "502")
    async with inside_discord(
        browser, table.base, locale=f"{lang}-{lang.upper()}", session_status=502
    ) as activity:
        await expect(activity.app.locator("#banner")).to_have_text(words)
        assert activity.errors == []
