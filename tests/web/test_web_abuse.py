"""One client must not deny the web to everyone (issue 29, item 2): the rooms' ids, the limits
per network, malformed input, pings, the sockets' tokens, guest names, the stop vote, the
headers, the access log, plain connections; and the address ``durak-bot web`` prints (item 6).

The floods themselves are measured by hand with ``python -m tests.faults.web_abuse``."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import make_mocked_request

from apps.web_rooms import local_addresses
from bot.errors import BadOption
from bot.realm import GUEST_IDS, ROOM_IDS, WEB_REALM
from bot.rooms import GUEST_NUMBERS, ROOM_NUMBERS, guest_name
from bot.storage import SqliteStorage
from web.activity import DiscordOAuth
from web.app import WebConfig, WebServer, csp
from web.http_server import ServerLimits
from web.protocol import BURST, CLOSE_AUTH, CLOSE_RATE, GRACE
from web.rooms import RoomLimits
from web.rooms.limits import address_of
from web.rooms.names import looks_like_ai
from web.rooms.socket import VOTE_BURST
from web.tokens import GUEST_TTL, Signer

from .conftest import ORIGIN, PUBLIC_URL, SECRET, Page, WebTable, make_table
from .test_rooms import Rooms, room_frame, serving_rooms

FORWARDED = {"forwarded_for": True}


def _user(token: str) -> int:
    user = Signer(SECRET).verify(token).user_id
    assert user is not None
    return user


async def _set_counter(rooms: Rooms, name: str, taken: int) -> None:
    storage = rooms.service.storage
    assert isinstance(storage, SqliteStorage)
    async with storage.write() as con:
        await con.execute(
            "INSERT INTO numbers (name, taken) VALUES (?, ?) "
            "ON CONFLICT (name) DO UPDATE SET taken = excluded.taken",
            name,
            taken,
        )


async def _create_from(rooms: Rooms, client: str, name: str = "Ann") -> tuple[int, dict[str, Any]]:
    return await rooms.create(name, headers={"X-Forwarded-For": client})


async def _join_from(rooms: Rooms, slug: str, name: str, client: str) -> tuple[int, Any]:
    resp = await rooms.client.post(
        "/api/rooms/join",
        json={"room": slug, "name": name, "lang": "en"},
        headers={"Origin": ORIGIN, "X-Forwarded-For": client},
    )
    return resp.status, await resp.json()


@pytest.fixture
async def rooms(tmp_path: Path) -> Any:
    async with serving_rooms(tmp_path / "rooms.sqlite3") as r:
        yield r


@pytest.fixture
async def open_rooms(tmp_path: Path) -> Any:
    async with serving_rooms(tmp_path / "rooms.sqlite3", RoomLimits(forwarded_for=True)) as r:
        yield r


# -- the rooms' ids --------------------------------------------------------------------
async def test_a_refused_join_takes_no_guest_id(open_rooms: Rooms) -> None:
    _, body = await open_rooms.create("Ann", seats=2)
    _, bob = await open_rooms.join(body["room"], "Bob")
    assert _user(bob["token"]) == _user(body["token"]) + 1
    for i in range(5):  # the lobby is full: refused, and no id is used up
        status, refused = await open_rooms.join(body["room"], f"Guest {i}")
        assert status == 409, refused
    _, other = await open_rooms.create("Cy")
    assert _user(other["token"]) == _user(bob["token"]) + 1


async def test_guest_ids_wrap_around_and_skip_the_ones_seated(open_rooms: Rooms) -> None:
    _, body = await open_rooms.create("Ann")  # the host: the first guest id
    host = _user(body["token"])
    assert host == GUEST_IDS.start
    await _set_counter(open_rooms, GUEST_NUMBERS, len(GUEST_IDS) - 1)
    _, last = await open_rooms.join(body["room"], "Bob")
    assert _user(last["token"]) == GUEST_IDS[-1]
    # the range is used up: ids start again from the bottom, past the host's, still seated
    _, wrapped = await open_rooms.join(body["room"], "Cy")
    assert _user(wrapped["token"]) == GUEST_IDS.start + 1


async def test_an_old_invite_does_not_open_a_new_room_of_the_same_channel(
    open_rooms: Rooms,
) -> None:
    _, first = await open_rooms.create("Ann")
    channel = await open_rooms.parts.rooms.directory.channel_of(first["room"])
    assert channel == ROOM_IDS.start
    await open_rooms.service.leave(channel, _user(first["token"]))  # the lobby closes
    assert open_rooms.service.channels_in(WEB_REALM) == []
    await _set_counter(open_rooms, ROOM_NUMBERS, len(ROOM_IDS))  # the next one wraps
    _, second = await _create_from(open_rooms, "198.51.100.7", "Bea")
    assert await open_rooms.parts.rooms.directory.channel_of(second["room"]) == channel
    status, refused = await open_rooms.join(first["room"], "Cy")
    assert status == 404 and "no such room" in refused["error"]
    assert (await open_rooms.join(second["room"], "Cy"))[0] == 200


# -- limits per network ---------------------------------------------------------------------
def test_an_address_is_its_ipv6_64_or_its_ipv4_address() -> None:
    limits = RoomLimits(forwarded_for=True)

    def key(client: str, of: RoomLimits = limits) -> str:
        request = make_mocked_request("GET", "/", headers={"X-Forwarded-For": client})
        return address_of(request, of)

    assert key("2001:db8:1:2:aaaa::1") == key("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert key("2001:db8:1:3::1") != key("2001:db8:1:2::1")
    assert key("198.51.100.7") == "198.51.100.7/32" != key("198.51.100.8")
    assert key("::ffff:198.51.100.7") == key("198.51.100.7")
    wider = RoomLimits(forwarded_for=True, ipv4_prefix=24)
    assert key("198.51.100.7", wider) == key("198.51.100.200", wider) == "198.51.100.0/24"


async def test_rooms_per_hour_count_a_whole_ipv6_64(tmp_path: Path) -> None:
    async with serving_rooms(
        tmp_path / "a.sqlite3", RoomLimits(rooms_per_hour=2, forwarded_for=True)
    ) as r:
        assert (await _create_from(r, "2001:db8::1", "A"))[0] == 201
        assert (await _create_from(r, "2001:db8::2", "B"))[0] == 201
        status, body = await _create_from(r, "2001:db8::3:3", "C")
        assert status == 429 and "in the last hour" in body["error"]
        assert (await _create_from(r, "2001:db8:0:1::1", "D"))[0] == 201  # another /64


async def test_each_address_holds_only_its_share_of_the_open_rooms(tmp_path: Path) -> None:
    limits = RoomLimits(open_per_address=2, max_open=5, forwarded_for=True)
    async with serving_rooms(tmp_path / "a.sqlite3", limits) as r:
        made = [await _create_from(r, "198.51.100.1", f"A{i}") for i in range(2)]
        assert [status for status, _ in made] == [201, 201]
        status, body = await _create_from(r, "198.51.100.1", "A3")
        assert status == 429 and "too many rooms open at once" in body["error"]
        # another address still gets a room; and a room closed frees its opener's share
        assert (await _create_from(r, "198.51.100.2", "B"))[0] == 201
        channel = await r.parts.rooms.directory.channel_of(made[0][1]["room"])
        await r.service.leave(channel, _user(made[0][1]["token"]))  # the lobby closes
        assert (await _create_from(r, "198.51.100.1", "A4"))[0] == 201


async def test_joins_are_limited_per_address(tmp_path: Path) -> None:
    limits = RoomLimits(joins_per_minute=2, forwarded_for=True)
    async with serving_rooms(tmp_path / "a.sqlite3", limits) as r:
        clock = [0.0]
        r.parts.rooms.counts.now = lambda: clock[0]
        _, body = await _create_from(r, "198.51.100.1", "Ann")
        assert (await _join_from(r, body["room"], "Bob", "198.51.100.9"))[0] == 200
        # a refused join counts too: the limit is on tries, not on seats
        assert (await _join_from(r, body["room"], "Bob", "198.51.100.9"))[0] == 409
        status, refused = await _join_from(r, body["room"], "Cy", "198.51.100.9")
        assert status == 429 and "joined too many rooms" in refused["error"]
        assert (await _join_from(r, body["room"], "Cy", "198.51.100.10"))[0] == 200
        clock[0] += 60
        assert (await _join_from(r, body["room"], "Dee", "198.51.100.9"))[0] == 200


async def test_leaving_is_limited_per_address(tmp_path: Path) -> None:
    limits = RoomLimits(joins_per_minute=1, forwarded_for=True)
    async with serving_rooms(tmp_path / "a.sqlite3", limits) as r:
        _, body = await _create_from(r, "198.51.100.1", "Ann")
        _, bob = await _join_from(r, body["room"], "Bob", "198.51.100.2")
        page = await r.page(bob["token"])
        await page.next("room")
        # the test client's sockets come from 127.0.0.1: its one seat change this minute
        assert r.parts.rooms.counts.may_change_seat("127.0.0.1/32")
        await page.send({"t": "leave", "seq": 1})
        result = await page.next("result")
        assert not result["ok"] and "left too many rooms" in result["reason"]
        assert len((await r.service.lobby(page_channel(r, bob))).seats) == 2
        await page.close()


def page_channel(r: Rooms, joined: dict[str, Any]) -> int:
    return Signer(SECRET).verify(joined["token"]).channel_id


async def test_junk_frames_do_not_keep_an_idle_room_open(tmp_path: Path) -> None:
    async with serving_rooms(tmp_path / "d.sqlite3", RoomLimits(idle_seconds=600)) as r:
        clock = [0.0]
        r.parts.rooms.now = lambda: clock[0]
        _, body = await r.create("A")
        page = await r.page(body["token"])
        await page.next("room")
        for seq, at in enumerate((300.0, 550.0, 590.0), 1):
            clock[0] = at
            await page.send({"t": "junk", "seq": seq})
            assert not (await page.next("result"))["ok"]
            await page.send({"t": "remove", "seq": 100 + seq, "seat": 5})  # refused too
            assert not (await page.next("result"))["ok"]
        clock[0] = 601
        assert len(await r.parts.rooms.close_idle()) == 1


# -- malformed input ------------------------------------------------------------------------
async def test_deeply_nested_json_is_refused_with_one_log_line(
    rooms: Rooms, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    deep = '{"room":' + "[" * 5000 + "]" * 5000 + "}"
    for path in ("/api/rooms/join", "/api/rooms"):
        for _ in range(3):
            resp = await rooms.client.post(
                path, data=deep, headers={"Origin": ORIGIN, "Content-Type": "application/json"}
            )
            assert resp.status == 400
            assert "does not understand" in (await resp.json())["error"]
    _, body = await rooms.create("Ann")
    page = await rooms.page(body["token"])
    await page.next("room")
    for seq in range(3):
        await page.ws.send_str(f'{{"t":"add_ai","seq":{seq},"level":' + "[" * 1500 + "]" * 1500)
        result = await page.next("result")
        assert not result["ok"] and "does not understand" in result["reason"]
    await page.send({"t": "ping"})
    assert (await page.next())["t"] == "pong"  # the socket is still open
    # one line at most (another test may have written this period's already), no traceback
    lines = [r for r in caplog.records if "malformed" in r.getMessage()]
    assert len(lines) <= 1 and not any(r.exc_info for r in caplog.records)
    await page.close()


async def test_a_deep_activity_sign_in_body_is_400_not_500(tmp_path: Path) -> None:
    t = await make_table(tmp_path, oauth=DiscordOAuth("4242", "secret"))
    try:
        resp = await t.client.post(
            "/api/activity/session",
            data='{"code":' + "[" * 5000 + "]" * 5000 + "}",
            headers={"Origin": "https://4242.discordsays.com", "Content-Type": "application/json"},
        )
        assert resp.status == 400
    finally:
        await t.close()


async def test_a_deep_hello_is_refused_with_a_code_not_1000(rooms: Rooms) -> None:
    ws = await rooms.client.ws_connect("/ws/room", headers={"Origin": ORIGIN})
    page = Page(ws)
    page.start()
    await ws.send_str('{"t":"hello","token":' + "[" * 2000 + "]" * 2000 + "}")
    assert await page.closed() == CLOSE_AUTH


# -- pings and tokens ------------------------------------------------------------------------
async def test_protocol_pings_count_against_the_frame_rate(rooms: Rooms) -> None:
    _, body = await rooms.create("Ann")
    page = await rooms.page(body["token"])
    await page.next("room")
    for _ in range(BURST + GRACE + 10):
        await page.ws.ping(b"x")
    error = await page.next("error")
    assert error["code"] == CLOSE_RATE
    assert await page.closed() == CLOSE_RATE


async def test_a_room_socket_closes_when_its_guest_token_expires(rooms: Rooms) -> None:
    _, body = await rooms.create("Ann")
    claims = Signer(SECRET).verify(body["token"])
    assert claims.user_id is not None
    # a token issued a week ago, with a second left
    token = Signer(SECRET).guest(
        claims.channel_id, claims.user_id, now=time.time() - GUEST_TTL + 1.5
    )
    page = await rooms.page(token)
    await page.next("room")
    error = await page.next("error", timeout=10)
    assert error["code"] == CLOSE_AUTH and "expired" in error["reason"]
    assert await page.closed() == CLOSE_AUTH


async def test_a_table_socket_closes_when_its_token_expires(table: WebTable) -> None:
    await table.game(1, 2)
    token = Signer(SECRET).watcher(100, now=time.time() - 12 * 3600 + 1.5)
    page = await table.page(token)
    await page.next("table")
    error = await page.next("error", timeout=10)
    assert error["code"] == CLOSE_AUTH and "expired" in error["reason"]


async def test_sockets_past_those_being_refused_are_refused_before_they_open(
    tmp_path: Path,
) -> None:
    async with serving_rooms(tmp_path / "s.sqlite3", RoomLimits(sockets_per_address=1)) as r:
        _, body = await r.create("A")
        first = await r.page(body["token"])
        await first.next("room")
        # one over the limit is told why (4029, as the page shows it) ...
        told = await r.page(body["token"])
        assert (await told.next("error"))["code"] == 4029
        assert await told.closed() == 4029
        # ... but while as many as the limit are being told, more are a flood: HTTP 429
        counts = r.parts.rooms.counts
        async with asyncio.timeout(5):  # the refusal above ends once its close is answered
            while not counts.start_refusal("127.0.0.1/32"):
                await asyncio.sleep(0.01)
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await r.client.ws_connect("/ws/room", headers={"Origin": ORIGIN})
        assert refused.value.status == 429
        counts.end_refusal("127.0.0.1/32")
        await first.close()


# -- guest names and the stop vote ------------------------------------------------------------
@pytest.mark.parametrize(
    "name", ["\u3164", "Ann\u3164", "\u2800", "A\u034fnn", "\u034f", "B\ufe0fob", "\u0301\u0301"]
)
def test_invisible_letters_are_refused_in_names(name: str) -> None:
    with pytest.raises(BadOption, match="invisible"):
        guest_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "Casual AI",
        "\u0421\u0430sual \u0410I",  # Сasual АI: Cyrillic С, а, А
        "casual-ai",
        "Casual AI 2",
        "C\u0430su\u0430l A1",
        "IA Aficionado",  # Spanish
        "IA Débutant",  # French
        "\uff23\uff41\uff53\uff55\uff41\uff4c \uff21\uff29",  # full width
    ],
)
async def test_names_that_pass_for_an_ai_seat_are_refused(rooms: Rooms, name: str) -> None:
    assert looks_like_ai(name)
    status, body = await rooms.create(name)
    assert status == 400 and "look like an AI player" in body["error"]
    _, room = await rooms.create("Ann")
    status, body = await rooms.join(room["room"], name)
    assert status == 400 and "look like an AI player" in body["error"]


@pytest.mark.parametrize("name", ["Ann", "Casualty", "Aila", "Lola", "Agent 47", "Ana Ia"])
def test_ordinary_names_do_not_pass_for_an_ai(name: str) -> None:
    assert not looks_like_ai(name)
    assert guest_name(name) == name


async def test_toggling_the_stop_vote_is_rate_limited(rooms: Rooms) -> None:
    _, body = await rooms.create("Ann", seats=3)
    _, bob = await rooms.join(body["room"], "Bob")
    await rooms.join(body["room"], "Cy")  # a third vote keeps the game going
    host = await rooms.page(body["token"])
    guest = await rooms.page(bob["token"])
    await host.send({"t": "start", "seq": 1})
    assert (await host.next("result"))["ok"]
    await room_frame(guest, "playing")
    results = []
    for seq in range(2, 10):  # eight changes at once: three go through
        await host.send({"t": "stop" if seq % 2 == 0 else "keep_playing", "seq": seq})
        results.append(await host.next("result"))
    assert [r["ok"] for r in results[:3]] == [True] * 3, results
    assert all(not r["ok"] and "too often" in r["reason"] for r in results[3:]), results
    # the others were told of the changes made, not of the refused ones
    assert len(guest.of("notice")) <= 3
    assert VOTE_BURST == 3
    for p in (host, guest):
        await p.close()


# -- headers ---------------------------------------------------------------------------------
async def test_frame_ancestors_name_this_applications_activity_only(tmp_path: Path) -> None:
    t = await make_table(tmp_path, oauth=DiscordOAuth("4242", "secret"))
    try:
        policy = (await t.client.get("/table")).headers["Content-Security-Policy"]
        assert "https://4242.discordsays.com" in policy and "*" not in policy
        assert policy == csp("4242")
    finally:
        await t.close()
    assert "discord" not in csp()  # no Activity: framed by nothing but itself


async def test_the_server_header_names_no_version(table: WebTable) -> None:
    for path in ("/healthz", "/nowhere", "/static/x\x00y"):
        resp = await table.client.get(path)
        assert resp.headers["Server"] == "durak-bot", path


async def test_a_nul_byte_in_a_static_path_is_404(table: WebTable) -> None:
    for path in ("/static/app%00.js", "/static/%00", "/static/a/%00/b.js"):
        assert (await table.client.get(path)).status == 404, path


# -- the server's own connections ------------------------------------------------------------
@pytest.fixture
async def served(tmp_path: Path) -> Any:
    """A web server listening on 127.0.0.1 (any port), with small connection limits."""
    t = await make_table(tmp_path)
    config = WebConfig(
        public_url=PUBLIC_URL,
        host="127.0.0.1",
        port=0,
        server_limits=ServerLimits(connections_per_address=4, idle_seconds=1.0),
    )
    server = WebServer(t.service, t.signer, config)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
        await t.close()


async def _raw(server: WebServer, data: bytes = b"", source: str = "127.0.0.1") -> Any:
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port, local_addr=(source, 0))
    if data:
        writer.write(data)
        await writer.drain()
    return reader, writer


async def test_a_malformed_request_gets_400_with_the_security_headers(served: WebServer) -> None:
    reader, writer = await _raw(served, b"GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n")
    head = (await asyncio.wait_for(reader.read(4096), 5)).decode("latin-1")
    writer.close()
    assert head.split("\r\n", 1)[0].split()[1] == "400"
    assert "Content-Security-Policy: default-src 'self'" in head
    assert "X-Content-Type-Options: nosniff" in head and "Server: durak-bot" in head
    assert "aiohttp" not in head and "Python" not in head and "no colon" not in head


async def test_idle_and_half_sent_connections_are_closed(served: WebServer) -> None:
    idle = await _raw(served)
    half = await _raw(served, b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
    start = time.monotonic()
    for reader, writer in (idle, half):
        assert await asyncio.wait_for(reader.read(), 5) in (b"", b"HTTP/1.1 408")
        writer.close()
    assert time.monotonic() - start < 4


async def test_connections_per_address_are_capped_and_others_still_served(
    served: WebServer,
) -> None:
    held = [await _raw(served) for _ in range(4)]
    reader, writer = await _raw(served)  # the fifth from 127.0.0.1 is closed at once
    assert await asyncio.wait_for(reader.read(), 0.9) == b""
    writer.close()
    async with (
        aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))) as http,
        http.get(f"http://127.0.0.1:{served.port}/healthz") as resp,
    ):
        assert resp.status == 200
    for _, w in held:
        w.close()


async def test_the_access_log_holds_no_query_address_or_browser(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="web.access")
    for clients in (False, True):
        t = await make_table(tmp_path / str(clients))
        limits = ServerLimits(access_log_clients=clients)
        config = WebConfig(public_url=PUBLIC_URL, host="127.0.0.1", port=0, server_limits=limits)
        server = WebServer(t.service, t.signer, config)
        await server.start()
        caplog.clear()
        try:
            async with (
                aiohttp.ClientSession() as http,
                http.get(
                    f"http://127.0.0.1:{server.port}/healthz?t=SECRET-TOKEN",
                    headers={"User-Agent": "TestBrowser/9"},
                ) as resp,
            ):
                assert resp.status == 200
            await asyncio.sleep(0)  # the line is written once the answer is sent
            lines = [r.getMessage() for r in caplog.records if r.name == "web.access"]
        finally:
            await server.stop()
            await t.close()
        assert len(lines) == 1 and lines[0].startswith("GET /healthz 200"), lines
        assert "SECRET-TOKEN" not in lines[0] and "?" not in lines[0]
        assert ("127.0.0.1" in lines[0]) is clients
        assert ("TestBrowser/9" in lines[0]) is clients


def test_server_limits_from_the_environment() -> None:
    limits = ServerLimits.from_env(
        {"WEB_MAX_CONNECTIONS": "100", "WEB_IDLE_SECONDS": "5", "WEB_ACCESS_LOG_CLIENTS": "1"}
    )
    assert limits.max_connections == 100 and limits.idle_seconds == 5 and limits.access_log_clients
    assert ServerLimits.from_env({}) == ServerLimits()
    with pytest.raises(ValueError, match="WEB_CONNECTIONS_PER_ADDRESS"):
        ServerLimits.from_env({"WEB_CONNECTIONS_PER_ADDRESS": "0"})


# -- durak-bot web's address (item 6) ----------------------------------------------------------
def test_without_public_url_the_printed_address_opens_and_loopback_aliases_are_allowed() -> None:
    public, origins = local_addresses("0.0.0.0", 8080)
    assert public == "http://127.0.0.1:8080"
    assert origins == {"http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080"}
    assert local_addresses("192.0.2.5", 9000) == (
        "http://192.0.2.5:9000",
        frozenset({"http://192.0.2.5:9000"}),
    )


async def test_a_refused_origin_says_which_address_to_open(rooms: Rooms) -> None:
    resp = await rooms.client.post(
        "/api/rooms",
        json={"name": "Ann", "lang": "en", "options": {}},
        headers={"Origin": "http://127.0.0.1:8080"},
    )
    assert resp.status == 403
    assert (await resp.json())["error"].endswith(f"open {PUBLIC_URL}/")


def test_the_privacy_section_says_what_the_access_log_holds() -> None:
    """docs/OPERATING.md's privacy section describes the access log as the code writes it
    (item 12: it said "paths only" while the lines named addresses and browsers)."""
    text = (Path(__file__).parents[2] / "docs" / "OPERATING.md").read_text(encoding="utf-8")
    privacy = text[text.index("## Privacy: what is stored") :]
    section = privacy[privacy.index("### The web server's access log") :]
    section = section[: section.index("\n### ", 5)]
    for said in ("path without its query string", "no client address", "User-Agent"):
        assert said in section, said
    assert "WEB_ACCESS_LOG_CLIENTS=1" in section
    assert "records paths only" not in text
