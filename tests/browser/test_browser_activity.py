"""The page as a Discord Activity: loaded from ``https://<client id>.discordsays.com`` inside
Discord's frame, it loads the vendored Embedded App SDK, which asks Discord (here a fake
parent frame speaking the SDK's postMessage protocol) to authorize the player; the server
trades the code at Discord's API (a fake one) for the player's table token, and the page
opens the table as that player.

Playwright serves the two Discord addresses: the parent page, and the Activity's address,
whose requests (and WebSocket) it relays to the local web server, as Discord's proxy does."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from web.activity import DiscordOAuth

CLIENT_ID = "424242424242424242"
ACTIVITY = f"https://{CLIENT_ID}.discordsays.com"
DISCORD = "https://discord.com/activities/durak"

#: Discord's side of the SDK's protocol: READY after the handshake, a code for AUTHORIZE, the
#: user for AUTHENTICATE, an empty answer to anything else (the SDK's console capture).
PARENT = f"""<!doctype html><html><body style="margin:0">
<iframe id="app" style="width:1000px;height:760px;border:0"
 src="{ACTIVITY}/table?frame_id=f1&instance_id=i1&platform=desktop&guild_id=1&channel_id=1">
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


async def test_inside_discord_the_activity_signs_the_player_in_and_shows_their_hand(
    browser: Any, local_table: Any, discord_api: str
) -> None:
    table = await local_table(
        players=2, seed=7, oauth=DiscordOAuth(CLIENT_ID, "s3cret", api=discord_api)
    )
    local = table.base
    context = await browser.new_context(viewport={"width": 1000, "height": 760})
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    async def parent(route: Any) -> None:
        await route.fulfill(status=200, content_type="text/html", body=PARENT)

    async def proxy(route: Any) -> None:
        # Discord's proxy: the Activity's address serves the bot's pages
        url = route.request.url.replace(ACTIVITY, local, 1)
        await route.fulfill(response=await route.fetch(url=url))

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
        app = page.frame_locator("#app")
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
        assert errors == []
    finally:
        await context.close()
        for task in relays:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await http.close()
