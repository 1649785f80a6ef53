"""Rooms without Discord: the realm's ids, the HTTP API, guest names, the room socket, the
records (guests are never rated), the abuse limits and a restart mid-game."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.realm import GUEST_IDS, ROOM_IDS, SNOWFLAKE_MIN, WEB_REALM, is_room
from bot.rooms import guest_name
from bot.service import ChannelPhase
from bot.service.options import need_id
from tests.service.conftest import play_out
from web.app import WebConfig
from web.rooms import RoomLimits

from .conftest import ORIGIN, PUBLIC_URL, Page, WebApp, serve

HOSTILE = "<img src=x onerror=alert(1)>"


@dataclass(eq=False)
class Rooms(WebApp):
    """The service and the rooms' web application on a test server."""

    async def create(
        self, name: str = "Ann", headers: dict[str, str] | None = None, **options: Any
    ) -> tuple[int, dict[str, Any]]:
        resp = await self.client.post(
            "/api/rooms",
            json={"name": name, "lang": "en", "options": options},
            headers={"Origin": ORIGIN, **(headers or {})},
        )
        return resp.status, await resp.json()

    async def create_refused(self, reason: str, **options: Any) -> None:
        """Opening a room with ``options`` is refused (400) with ``reason``; no room opens."""
        status, body = await self.create("Ann", **options)
        assert status == 400
        assert body["error"].startswith(reason)
        assert self.service.channels_in(WEB_REALM) == []

    async def join(self, room: str, name: str, lang: str = "en") -> tuple[int, dict[str, Any]]:
        resp = await self.client.post(
            "/api/rooms/join",
            json={"room": room, "name": name, "lang": lang},
            headers={"Origin": ORIGIN},
        )
        return resp.status, await resp.json()

    async def page(self, token: str, path: str = "/ws/room") -> Page:
        ws = await self.client.ws_connect(path, headers={"Origin": ORIGIN})
        page = Page(ws)
        page.start()
        await page.send({"t": "hello", "token": token, "lang": "en"})
        return page


async def make_rooms(db: Path, limits: RoomLimits | None = None) -> Rooms:
    config = WebConfig(public_url=PUBLIC_URL, room_limits=limits or RoomLimits())
    return Rooms(*await serve(db, config, seed=3))


@contextlib.asynccontextmanager
async def serving_rooms(db: Path, limits: RoomLimits | None = None) -> AsyncIterator[Rooms]:
    """Rooms served from the database ``db`` under ``limits``, closed when the block ends."""
    r = await make_rooms(db, limits)
    try:
        yield r
    finally:
        await r.close()


@pytest.fixture
async def rooms(tmp_path: Path) -> AsyncIterator[Rooms]:
    async with serving_rooms(tmp_path / "rooms.sqlite3") as r:
        yield r


async def game_of_two(rooms: Rooms) -> tuple[str, Page, Page, Any]:
    """Ann opens a room of two seats, Bob joins, both open the room's page and Ann starts:
    the room, the host's and the guest's pages, and the guest's first room frame of the game."""
    _, body = await rooms.create("Ann", seats=2)
    _, joined = await rooms.join(body["room"], "Bob")
    host = await rooms.page(body["token"])
    guest = await rooms.page(joined["token"])
    await host.send({"t": "start", "seq": 1})
    return body["room"], host, guest, await room_frame(guest, "playing")


async def room_frame(page: Page, phase: str | None = None, seats: int | None = None) -> Any:
    """The next ``room`` frame (in ``phase``, with ``seats`` seats, skipping others)."""
    while True:
        room = (await page.next("room"))["room"]
        if (phase is None or room["phase"] == phase) and (
            seats is None or len(room["seats"]) == seats
        ):
            return room


# -- the realm ---------------------------------------------------------------------
def test_realm_ids_are_below_every_discord_snowflake() -> None:
    # the smallest snowflake: timestamp part 1 (1 ms after Discord's epoch), worker 0
    assert SNOWFLAKE_MIN == 1 << 22
    assert WEB_REALM < SNOWFLAKE_MIN
    assert ROOM_IDS.stop <= SNOWFLAKE_MIN and GUEST_IDS.stop <= SNOWFLAKE_MIN
    assert WEB_REALM not in ROOM_IDS
    # the service accepts them as ids, and `durak-bot play` (ids 1–3) is below both ranges
    for value in (WEB_REALM, ROOM_IDS.start, ROOM_IDS[-1], GUEST_IDS.start, GUEST_IDS[-1]):
        assert need_id(value) == value
    assert not is_room(1) and not is_room(SNOWFLAKE_MIN) and is_room(ROOM_IDS.start)


# -- creating a room -----------------------------------------------------------------
async def test_create_room_opens_a_lobby_in_the_realm_with_the_host_seated(rooms: Rooms) -> None:
    status, body = await rooms.create("Ann", rules="perevodnoy", seats=3, turn_timeout=90)
    assert status == 201
    assert len(body["room"]) == 22
    assert body["invite"] == f"{PUBLIC_URL}/room#{body['room']}"
    channel = await rooms.parts.rooms.directory.channel_of(body["room"])
    assert is_room(channel)
    lobby = await rooms.service.lobby(channel)
    assert lobby.guild_id == WEB_REALM
    assert [s.name for s in lobby.seats] == ["Ann"]
    assert lobby.max_seats == 3 and lobby.turn_timeout == 90 and lobby.profile == "perevodnoy"
    # a second room gets another channel and another slug
    _, other = await rooms.create("Ben")
    assert other["room"] != body["room"]
    assert await rooms.parts.rooms.directory.channel_of(other["room"]) == channel + 1


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"seats": 7}, "Seats must be 2–6, not 7"),
        ({"seats": 1}, "Seats must be 2–6, not 1"),
        ({"turn_timeout": 5}, "Turn_timeout must be 15–600 seconds, not 5"),
        ({"rules": "poker"}, "Unknown rules 'poker'"),
        ({"throw_in": "anyone"}, "Throw_in must be neighbours or all, not 'anyone'"),
        ({"colour": "red"}, "Unknown option(s): colour"),
    ],
)
async def test_create_room_refuses_what_durak_new_refuses(
    rooms: Rooms, options: dict[str, Any], reason: str
) -> None:
    await rooms.create_refused(reason, **options)


async def test_create_room_from_another_origin_is_refused(rooms: Rooms) -> None:
    status, body = await rooms.create("Ann", headers={"Origin": "https://evil.example"})
    assert status == 403 and body["error"]
    assert rooms.service.channels_in(WEB_REALM) == []


async def test_refusals_are_translated(rooms: Rooms) -> None:
    status, body = await rooms.create("Ann")
    status, refused = await rooms.join(body["room"], "\u200fBob", lang="fr")
    assert status == 400
    assert "caractères" in refused["error"]


# -- names ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name", ["x" * 500, "Bob\u200f", "\u202eevil", "a\x07b", "line\nbreak", "zero\u200bwidth", "  "]
)
async def test_bad_guest_names_are_refused(rooms: Rooms, name: str) -> None:
    _, body = await rooms.create("Ann")
    status, refused = await rooms.join(body["room"], name)
    assert status == 400 and refused["error"]
    channel = await rooms.parts.rooms.directory.channel_of(body["room"])
    assert [s.name for s in (await rooms.service.lobby(channel)).seats] == ["Ann"]


async def test_a_hostile_name_is_kept_as_text(rooms: Rooms) -> None:
    _, body = await rooms.create("Ann")
    status, joined = await rooms.join(body["room"], HOSTILE)
    assert status == 200
    page = await rooms.page(joined["token"])
    room = await room_frame(page, "lobby")
    assert room["seats"][1]["name"] == HOSTILE  # the page renders it with textContent
    await page.close()


async def test_a_name_taken_in_the_room_is_refused_in_any_case(rooms: Rooms) -> None:
    _, body = await rooms.create("Ann")
    assert (await rooms.join(body["room"], "Bob"))[0] == 200
    status, refused = await rooms.join(body["room"], "  BOB ")
    assert status == 409 and "BOB is already taken" in refused["error"]


def test_guest_name_trims_and_joins_spaces() -> None:
    assert guest_name("  Ann   Lee ") == "Ann Lee"


async def test_unknown_rooms_are_404(rooms: Rooms) -> None:
    status, body = await rooms.join("A" * 22, "Bob")
    assert status == 404 and body["error"]
    status, _ = await rooms.join("../etc", "Bob")
    assert status == 404


# -- the room socket -----------------------------------------------------------------
async def test_the_lobby_is_live_and_the_host_starts_a_game_with_an_ai_seat(rooms: Rooms) -> None:
    _, body = await rooms.create("Ann", seats=3)
    host = await rooms.page(body["token"])
    welcome = await host.next("welcome")
    assert welcome["strings"]["start"] == "Start the game"
    assert "beginner" in welcome["levels"]
    room = await room_frame(host, "lobby", 1)
    assert room["host"] and room["seats"][0]["you"]
    _, joined = await rooms.join(body["room"], "Bob")
    await room_frame(host, "lobby", 2)
    guest = await rooms.page(joined["token"])
    room = await room_frame(guest, "lobby", 2)
    assert not room["host"] and room["seat"] == 1
    # only the host adds AI seats
    await guest.send({"t": "add_ai", "seq": 1, "level": "expert"})
    refused = await guest.next("result")
    assert not refused["ok"] and "host" in refused["reason"]
    await host.send({"t": "add_ai", "seq": 2, "level": "beginner"})
    assert (await host.next("result"))["ok"]
    room = await room_frame(guest, "lobby", 3)
    assert room["seats"][2]["ai_level"] == "beginner"
    assert room["seats"][2]["name"] == "Beginner AI"
    # the lobby is full now: nobody else sits down
    status, _ = await rooms.join(body["room"], "Cy")
    assert status == 409
    await host.send({"t": "start", "seq": 3})
    room = await room_frame(guest, "playing")
    assert room["seat"] == 1 and room["table_token"]
    # the table token opens the table as that player
    table = await rooms.page(room["table_token"], "/ws")
    welcome = await table.next("welcome")
    assert welcome["role"] == "player" and welcome["seat"] == 1
    await table.next("hand")
    for p in (host, guest, table):
        await p.close()


async def test_leaving_a_running_game_needs_a_confirmation_then_forfeits(rooms: Rooms) -> None:
    slug, host, guest, room = await game_of_two(rooms)
    await guest.send({"t": "leave", "seq": 2})
    result = await guest.next("result")
    assert not result["ok"] and result["confirm"] == "forfeit" and result["game"] == room["game"]
    channel = await rooms.parts.rooms.directory.channel_of(slug)
    assert (
        rooms.service.seat_of(channel, (await rooms.service.table(channel)).seats[1].user_id or 0)
        == 1
    )
    await guest.send({"t": "forfeit", "seq": 3, "game": room["game"]})
    assert (await guest.next("result"))["ok"]
    table = await rooms.service.table(channel)
    assert table.seats[1].forfeited
    for p in (host, guest):
        await p.close()


async def test_stopping_takes_every_players_vote(rooms: Rooms) -> None:
    slug, host, guest, _room = await game_of_two(rooms)
    await host.send({"t": "stop", "seq": 2})
    assert (await host.next("result"))["ok"]
    room = await room_frame(guest)
    assert room["phase"] == "playing" and room["stop_vote"] == [1, 2]
    await guest.send({"t": "stop", "seq": 3})
    assert (await guest.next("result"))["ok"]
    channel = await rooms.parts.rooms.directory.channel_of(slug)
    assert rooms.service.state(channel) is not ChannelPhase.PLAYING
    for p in (host, guest):
        await p.close()


async def test_a_host_who_leaves_the_lobby_hands_the_room_on(rooms: Rooms) -> None:
    _, body = await rooms.create("Ann")
    _, joined = await rooms.join(body["room"], "Bob")
    host = await rooms.page(body["token"])
    guest = await rooms.page(joined["token"])
    await room_frame(guest, "lobby", 2)
    await host.send({"t": "leave", "seq": 1})
    assert (await host.next("result"))["ok"]
    room = await room_frame(guest, "lobby", 1)
    assert room["host"] and room["seats"][0]["name"] == "Bob"
    for p in (host, guest):
        await p.close()


async def test_a_forged_or_table_token_does_not_open_a_room(rooms: Rooms) -> None:
    _, body = await rooms.create("Ann")
    page = await rooms.page(body["token"][:-2] + "xx")
    assert (await page.next("error"))["code"] == 4001
    channel = await rooms.parts.rooms.directory.channel_of(body["room"])
    watcher = await rooms.page(rooms.parts.signer.watcher(channel))
    assert (await watcher.next("error"))["code"] == 4001


# -- records ---------------------------------------------------------------------------


async def test_guests_are_never_rated_and_stay_out_of_discord_servers(rooms: Rooms) -> None:
    svc = rooms.service
    # the same two-human game, in a Discord server and in a room
    await svc.open_lobby(5 << 22, 9 << 22, 11 << 22, "Dee", {"seats": 2})
    await svc.join(5 << 22, 12 << 22, "Eve")
    await svc.start(5 << 22, 11 << 22)
    await play_out(svc, 5 << 22)
    _, body = await rooms.create("Ann", seats=2)
    await rooms.join(body["room"], "Bob")
    channel = await rooms.parts.rooms.directory.channel_of(body["room"])
    lobby = await svc.lobby(channel)
    assert lobby.seats[0].user_id is not None
    await svc.start(channel, lobby.seats[0].user_id)
    await play_out(svc, channel)
    assert len(await svc.storage.ratings(9 << 22)) == 2  # the Discord players are rated
    assert await svc.storage.ratings(WEB_REALM) == {}  # the guests are not
    history = await svc.history(9 << 22)
    names = {p for game in history.entries for p in game.players}
    assert "Ann" not in str(names) and "Bob" not in str(names)
    # the room's game is recorded in its own realm, with the guests' names
    assert "Ann" in str((await svc.history(WEB_REALM)).entries)


# -- limits ----------------------------------------------------------------------------
async def test_rooms_per_address_per_hour(tmp_path: Path) -> None:
    async with serving_rooms(tmp_path / "a.sqlite3", RoomLimits(rooms_per_hour=2)) as r:
        clock = [1000.0]
        r.parts.rooms.counts.now = lambda: clock[0]
        assert (await r.create("A"))[0] == 201
        assert (await r.create("B"))[0] == 201
        status, body = await r.create("C")
        assert status == 429 and "too many rooms in the last hour" in body["error"]
        assert len(r.service.channels_in(WEB_REALM)) == 2
        clock[0] += 3601
        assert (await r.create("C"))[0] == 201


async def test_open_rooms_per_process(tmp_path: Path) -> None:
    async with serving_rooms(tmp_path / "b.sqlite3", RoomLimits(max_open=1)) as r:
        assert (await r.create("A"))[0] == 201
        status, body = await r.create("B")
        assert status == 503 and "Too many rooms are open" in body["error"]


async def test_sockets_per_address_count_room_and_table_pages(tmp_path: Path) -> None:
    async with serving_rooms(tmp_path / "c.sqlite3", RoomLimits(sockets_per_address=2)) as r:
        _, body = await r.create("A")
        first = await r.page(body["token"])
        await first.next("room")
        # a table page counts too (it has not said hello yet: it holds its socket)
        second = await r.client.ws_connect("/ws", headers={"Origin": ORIGIN})
        third = await r.page(body["token"])
        error = await third.next("error")
        assert error["code"] == 4029 and "Too many pages" in error["reason"]
        assert await third.closed() == 4029
        await first.close()
        await second.close()
        fourth = await r.page(body["token"])
        await fourth.next("room")
        await fourth.close()


async def test_room_frames_over_the_size_limit_close_the_socket(rooms: Rooms) -> None:
    _, body = await rooms.create("A")
    page = await rooms.page(body["token"])
    await page.next("room")
    await page.send({"t": "add_ai", "seq": 1, "level": "x" * 5000})
    assert (await page.next("error"))["code"] == 4009


async def test_idle_rooms_close_and_their_pages_are_told(tmp_path: Path) -> None:
    async with serving_rooms(tmp_path / "d.sqlite3", RoomLimits(idle_seconds=600)) as r:
        clock = [0.0]
        r.parts.rooms.now = lambda: clock[0]
        _, body = await r.create("A", seats=2)
        _, joined = await r.join(body["room"], "B")
        page = await r.page(body["token"])
        await page.send({"t": "start", "seq": 1})
        playing = await room_frame(page, "playing")
        table = await r.page(playing["table_token"], "/ws")
        await table.next("hand")
        clock[0] = 599
        assert await r.parts.rooms.close_idle() == []
        clock[0] = 1300
        closed = await r.parts.rooms.close_idle()
        assert len(closed) == 1
        error = await page.next("error")
        assert error["code"] == 4010 and "10 minutes without a move" in error["reason"]
        # the system stopped the game by its idle rule, and the table page says so: no
        # moderator is named
        await r.service.wait_idle()
        stopped = (await table.next("notice"))["text"]
        assert stopped.startswith("Nobody played for too long: the game was stopped")
        assert "Manage" not in stopped
        await table.close()
        assert r.service.channels_in(WEB_REALM) == []
        late = await r.page(joined["token"])
        assert (await late.next("error"))["code"] == 4004


def test_limits_from_the_environment() -> None:
    limits = RoomLimits.from_env(
        {"ROOMS_PER_HOUR": "3", "ROOM_IDLE_MINUTES": "5", "WEB_FORWARDED_FOR": "1"}
    )
    assert limits.rooms_per_hour == 3 and limits.idle_seconds == 300 and limits.forwarded_for
    assert RoomLimits.from_env({}) == RoomLimits()
    with pytest.raises(ValueError, match="ROOMS_MAX_OPEN"):
        RoomLimits.from_env({"ROOMS_MAX_OPEN": "lots"})


# -- restart -----------------------------------------------------------------------------
async def test_a_restart_mid_game_keeps_the_room_and_the_guest_token(tmp_path: Path) -> None:
    db = tmp_path / "e.sqlite3"
    r = await make_rooms(db)
    _, body = await r.create("Ann", seats=2)
    _, joined = await r.join(body["room"], "Bob")
    page = await r.page(body["token"])
    await page.send({"t": "start", "seq": 1})
    before = await room_frame(page, "playing")
    await page.close()
    await r.close()
    async with serving_rooms(db) as r:
        guest = await r.page(joined["token"])
        room = await room_frame(guest, "playing")
        assert room["seat"] == 1 and room["game"] == before["game"]
        assert [s["name"] for s in room["seats"]] == ["Ann", "Bob"]
        # a third guest cannot join a running room; its slug is still known
        status, refused = await r.join(body["room"], "Cy")
        assert status == 409 and "has started" in refused["error"]
        table = await r.page(room["table_token"], "/ws")
        assert (await table.next("welcome"))["seat"] == 1
        await guest.close()
        await table.close()


def test_the_pages_strings_are_json() -> None:
    from web.strings import room_strings
    from web.wording import catalog

    strings = room_strings(catalog("fr"))
    assert json.loads(json.dumps(strings)) == strings and strings["level_expert"]


async def test_joining_a_closed_room_says_so(rooms: Rooms) -> None:
    _, body = await rooms.create("Ann")
    page = await rooms.page(body["token"])
    await room_frame(page, "lobby")
    await page.send({"t": "leave", "seq": 1})  # the last human leaves: the lobby closes
    assert (await page.next("result"))["ok"]
    status, refused = await rooms.join(body["room"], "Bob")
    assert status == 404 and "no such room" in refused["error"]


async def test_after_end_series_the_room_shows_its_standings(rooms: Rooms) -> None:
    _, body = await rooms.create("Ann", seats=2)
    _, joined = await rooms.join(body["room"], "Bob")
    guest = await rooms.page(joined["token"])
    await room_frame(guest, "lobby", 2)
    channel = await rooms.parts.rooms.directory.channel_of(body["room"])
    host_id = (await rooms.service.lobby(channel)).host_id
    await rooms.service.start(channel, host_id)
    await play_out(rooms.service, channel)
    finished = await room_frame(guest, "finished")
    assert finished["games"] == 1 and sum(s["losses"] for s in finished["standings"]) == 1
    await rooms.service.end_series(channel, host_id)
    over = await room_frame(guest, "closed")
    assert over["standings"] == finished["standings"]
    assert [s["name"] for s in over["standings"]] == ["Ann", "Bob"]
    await guest.close()


# -- the room's state: one snapshot per change ------------------------------------------
async def test_a_change_reaches_every_page_of_the_room_without_reading_the_service(
    rooms: Rooms, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, body = await rooms.create("Ann", seats=4)
    _, bob = await rooms.join(body["room"], "Bob")
    _, cy = await rooms.join(body["room"], "Cy")
    pages = [await rooms.page(t) for t in (body["token"], bob["token"], cy["token"])]
    for page in pages:
        await room_frame(page, "lobby", 3)
    reads: list[str] = []
    service = rooms.service
    for name in ("lobby", "table"):
        real = getattr(service, name)

        async def counted(*args: Any, _real: Any = real, _name: str = name) -> Any:
            reads.append(_name)
            return await _real(*args)

        monkeypatch.setattr(service, name, counted)
    # a lobby change: every page gets it from the view the service gave
    await pages[0].send({"t": "add_ai", "seq": 1, "level": "beginner"})
    for page in pages:
        await room_frame(page, "lobby", 4)
    assert reads == []
    # the game starts: the lobby's end and the first table come as views too
    await pages[0].send({"t": "start", "seq": 2})
    for page in pages:
        room = await room_frame(page, "playing")
        assert room["seats"][3]["ai_level"] == "beginner"
    assert reads == []
    for page in pages:
        await page.close()


async def test_a_page_that_opens_reads_the_room_once(
    rooms: Rooms, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, body = await rooms.create("Ann", seats=2)
    reads: list[str] = []
    real = rooms.service.lobby

    async def counted(channel_id: int) -> Any:
        reads.append("lobby")
        return await real(channel_id)

    monkeypatch.setattr(rooms.service, "lobby", counted)
    page = await rooms.page(body["token"])
    await room_frame(page, "lobby", 1)
    assert reads == ["lobby"]
    await page.close()


async def test_room_commands_check_their_whole_numbers(rooms: Rooms) -> None:
    _, body = await rooms.create("Ann", seats=3)
    await rooms.join(body["room"], "Bob")
    page = await rooms.page(body["token"])
    await room_frame(page, "lobby", 2)
    for frame in (
        {"t": "remove", "seq": 1, "seat": "1"},
        {"t": "remove", "seq": 2, "seat": True},
        {"t": "remove", "seq": 3},
        {"t": "add_ai", "seq": 4, "level": 7},
        {"t": "start", "seq": 5.5},
    ):
        await page.send(frame)
        result = await page.next("result")
        assert result["ok"] is False and "does not understand" in result["reason"], frame
        assert result["seq"] == (frame["seq"] if isinstance(frame["seq"], int) else None)
    channel = await rooms.parts.rooms.directory.channel_of(body["room"])
    assert len((await rooms.service.lobby(channel)).seats) == 2  # nothing changed
    await page.send({"t": "ping"})
    assert (await page.next())["t"] == "pong"  # the socket is still open
    await page.close()


async def test_the_room_socket_keeps_the_tables_rate_limit(rooms: Rooms) -> None:
    from web import protocol

    _, body = await rooms.create("Ann")
    page = await rooms.page(body["token"])
    await page.next("room")
    for _ in range(protocol.BURST + protocol.GRACE + 5):
        await page.send({"t": "ping"})
    error = await page.next("error")
    assert error["code"] == protocol.CLOSE_RATE and "too many messages" in error["reason"]
    assert await page.closed() == protocol.CLOSE_RATE


async def test_a_guest_reviews_their_own_game_from_the_rooms_table(rooms: Rooms) -> None:
    rooms.service._reviews.deals = 4  # a small budget: the plumbing is checked
    room_id, _host, _guest, playing = await game_of_two(rooms)
    channel = await rooms.parts.rooms.directory.channel_of(room_id)
    table = await rooms.page(playing["table_token"], "/ws")  # Bob's table, in the room's page
    await table.next("table")
    await play_out(rooms.service, channel)
    view = await rooms.service.table(channel)
    await table.send({"t": "review", "seq": 4, "game": view.game_id})
    review = await table.next("review", timeout=60)
    assert review["summary"][0].startswith("Accuracy ") and review["chart"].startswith("<svg")
    assert table.of("review_progress")
    bob = view.seats[1].user_id
    stored = await rooms.service.review(view.guild_id, bob, view.game_id)
    assert stored.stored and stored.review.seat == 1
