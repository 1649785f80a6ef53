"""The page's WebSocket: hello and tokens, Origin, limits, commands and refusals, pushes."""

from __future__ import annotations

import asyncio
import json
import logging

import aiohttp
import pytest

from bot.authority import SystemRule, system
from web import protocol
from web.tokens import Signer

from .conftest import ALICE, BOB, CAROL, CH, ORIGIN, WebTable


# ------------------------------------------------------------------------------ hello
async def test_a_player_gets_welcome_table_and_their_own_hand(table: WebTable) -> None:
    await table.game(ALICE, BOB)
    page = await table.page(table.player(ALICE))
    welcome = await page.next()
    assert welcome["t"] == "welcome"
    assert (welcome["role"], welcome["seat"], welcome["user_id"]) == ("player", 0, str(ALICE))
    assert welcome["channel"] == str(CH) and welcome["lang"] == "en"
    assert welcome["strings"]["take"] == "Take"
    frame = await page.next()
    assert frame["t"] == "table"
    t = frame["table"]
    assert [s["name"] for s in t["seats"]] == ["Alice", "Bob"]
    assert [s["you"] for s in t["seats"]] == [True, False]
    hand = (await page.next())["hand"]
    game = table.service.game_of(CH)
    assert game is not None
    assert {c["card"] for c in hand["cards"]} == {str(c) for c in game.hand(0)}
    assert hand["seat"] == 0 and hand["version"] == t["version"] == 0


async def test_a_watcher_gets_no_hand(table: WebTable) -> None:
    await table.game(ALICE, BOB)
    page = await table.page(table.watcher())
    welcome = await page.next()
    assert (welcome["role"], welcome["seat"], welcome["user_id"]) == ("watcher", None, None)
    assert (await page.next())["t"] == "table"
    await table.service.act(CH, ALICE, (await table.service.hand(CH, ALICE)).legal[0].text, 0)
    await table.service.wait_idle()
    assert (await page.next("table"))["table"]["version"] == 1
    await page.barrier()
    assert not page.of("hand")
    assert all(s["you"] is False for f in page.of("table") for s in f["table"]["seats"])


async def test_languages_token_locale_first_then_hello_then_english(table: WebTable) -> None:
    await table.game(ALICE, BOB)
    fr = await table.page(table.watcher(), lang="fr-FR")
    assert (await fr.next())["lang"] == "fr"
    table_fr = (await fr.next("table"))["table"]
    assert "Pas de transfert" in table_fr["rules_text"]
    es_token = await table.page(table.player(ALICE, locale="es-ES"), lang="fr")
    welcome = await es_token.next()
    assert welcome["lang"] == "es" and welcome["strings"]["take"] != "Take"
    unknown = await table.page(table.watcher(), lang="xx")
    assert (await unknown.next())["lang"] == "en"


@pytest.mark.parametrize(
    "token",
    [
        "garbage",
        "",
        None,
        Signer(b"another secret entirely, 32 byte").player(CH, ALICE, 1),
        "x" * 600,
    ],
)
async def test_a_bad_token_is_refused_with_4001(table: WebTable, token: object) -> None:
    await table.game(ALICE, BOB)
    page = await table.connect()
    await page.send({"t": "hello", "token": token, "lang": "en"})
    error = await page.next()
    assert error["t"] == "error" and error["code"] == 4001
    assert "not valid" in error["reason"]
    assert await page.closed() == 4001


async def test_a_forged_payload_with_a_real_mac_elsewhere_is_refused(table: WebTable) -> None:
    await table.game(ALICE, BOB)
    real = table.player(ALICE)
    other = table.player(BOB)
    forged = other.split(".")[0] + "." + real.split(".")[1]
    page = await table.page(forged)
    assert (await page.next())["code"] == 4001


async def test_an_expired_token_is_refused(table: WebTable) -> None:
    await table.game(ALICE, BOB)
    old = table.signer.player(CH, ALICE, 1, now=1_000.0)
    page = await table.page(old)
    error = await page.next()
    assert (error["t"], error["code"]) == ("error", 4001)
    assert "expired" in error["reason"]
    assert await page.closed() == 4001


async def test_no_hello_in_time_closes_4001(
    table: WebTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(protocol, "HELLO_TIMEOUT", 0.2)
    await table.game(ALICE, BOB)
    page = await table.connect()
    error = await page.next()
    assert (error["t"], error["code"]) == ("error", 4001)
    assert await page.closed() == 4001


async def test_a_first_frame_other_than_hello_closes_4001(table: WebTable) -> None:
    await table.game(ALICE, BOB)
    page = await table.connect()
    await page.send({"t": "act", "seq": 1, "game": 1, "version": 0, "action": "take"})
    assert (await page.next())["code"] == 4001


@pytest.mark.parametrize("origin", ["https://evil.example", "http://durak.example", None])
async def test_a_foreign_origin_is_refused_before_the_socket_opens(
    table: WebTable, origin: str | None
) -> None:
    await table.game(ALICE, BOB)
    # refused with 403 before the upgrade: no WebSocket (and nothing of it) is ever held
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await table.connect(origin=origin)
    assert refused.value.status == 403


async def test_a_channel_without_a_game_closes_4004(table: WebTable) -> None:
    page = await table.page(table.watcher(), lang="es")
    error = await page.next()
    assert (error["t"], error["code"]) == ("error", 4004)
    assert error["reason"] == "No hay ninguna partida aquí"
    assert await page.closed() == 4004


async def test_a_player_link_of_an_earlier_series_is_refused(table: WebTable) -> None:
    view = await table.game(ALICE, BOB)
    page = await table.page(table.player(ALICE, series_id=view.series_id + 1))
    error = await page.next()
    assert error["code"] == 4001 and "earlier series" in error["reason"]


async def test_a_player_token_of_someone_not_seated_watches(table: WebTable) -> None:
    await table.game(ALICE, BOB)
    page = await table.page(table.player(CAROL))
    assert (await page.next())["role"] == "watcher"


# ------------------------------------------------------------------------------ limits
async def test_a_frame_too_big_closes_4009(table: WebTable) -> None:
    await table.game(ALICE, BOB)
    page = await table.page(table.player(ALICE))
    await page.next("hand")
    await page.send({"t": "ping", "pad": "x" * protocol.MAX_FRAME})
    error = await page.next("error")
    assert error["code"] == 4009
    assert await page.closed() == 4009


async def test_a_frame_just_under_the_limit_is_read(table: WebTable) -> None:
    await table.game(ALICE, BOB)
    page = await table.page(table.player(ALICE))
    await page.next("hand")
    frame = {"t": "ping", "pad": ""}
    frame["pad"] = "x" * (protocol.MAX_FRAME - len(json.dumps(frame)))
    await page.send(frame)
    assert (await page.next("pong"))["t"] == "pong"


async def test_too_many_frames_close_4008(table: WebTable) -> None:
    await table.game(ALICE, BOB)
    page = await table.page(table.player(ALICE))
    await page.next("hand")
    for _ in range(protocol.BURST + protocol.GRACE + 5):
        await page.send({"t": "ping"})
    error = await page.next("error")
    assert error["code"] == 4008
    assert await page.closed() == 4008
    assert len(page.of("pong")) < protocol.BURST


async def test_a_command_past_the_rate_is_refused_and_the_page_stays_open(
    table: WebTable,
) -> None:
    """A player tapping faster than the rate is told to wait; the page is not closed (its
    next command, a moment later, is answered)."""
    await table.game(ALICE, BOB)
    page = await table.page(table.player(ALICE))
    await page.next("hand")
    for seq in range(protocol.BURST + 2):  # with the hello, three past the burst
        await page.send({"t": "ping", "seq": seq})
    refusals = [await page.next("result") for _ in range(3)]
    assert [r["seq"] for r in refusals] == [protocol.BURST - 1, protocol.BURST, protocol.BURST + 1]
    assert all(not r["ok"] and "too fast" in r["reason"] for r in refusals)
    await asyncio.sleep(2 / protocol.RATE)
    await page.send({"t": "ping", "seq": 99})
    await page.next("pong")
    assert not page.of("error")


def test_the_token_bucket_refills_at_its_rate() -> None:
    now = [0.0]
    bucket = protocol.TokenBucket(3, 2.0, lambda: now[0])
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    now[0] += 0.5  # one token back
    assert [bucket.take(), bucket.take()] == [True, False]
    now[0] += 100
    assert sum(bucket.take() for _ in range(10)) == 3


# ------------------------------------------------------------------------------ commands
async def test_an_act_is_played_and_every_page_gets_the_new_table(table: WebTable) -> None:
    await table.game(ALICE, BOB)
    alice = await table.page(table.player(ALICE))
    bob = await table.page(table.player(BOB))
    watcher = await table.page(table.watcher())
    hand = (await alice.next("hand"))["hand"]
    assert hand["your_turn"]
    action = hand["legal"][0]
    await alice.act(7, hand, action["text"])
    assert await alice.next("result") == {"t": "result", "seq": 7, "ok": True}
    for page in (alice, bob, watcher):
        frames = [f for f in page.frames if f["t"] == "table"]
        while not frames or frames[-1]["table"]["version"] < 1:
            await page.next("table")
            frames = page.of("table")
        assert frames[-1]["table"]["pairs"][0]["attack"] == action["cards"][0]
    bob_hand = (await bob.next("hand"))["hand"]
    while bob_hand["version"] < 1:
        bob_hand = (await bob.next("hand"))["hand"]
    assert bob_hand["your_turn"] and bob_hand["seat"] == 1


async def test_an_illegal_act_is_refused_with_the_engines_reason_and_changes_nothing(
    table: WebTable,
) -> None:
    await table.game(ALICE, BOB)
    alice = await table.page(table.player(ALICE))
    hand = (await alice.next("hand"))["hand"]
    # two cards of different ranks cannot lead together
    cards = [c["card"] for c in hand["cards"]]
    pair = next((a, b) for a in cards for b in cards if a != b and a[:-1] != b[:-1])
    await alice.act(3, hand, f"attack {pair[0]} {pair[1]}", version=0)
    result = await alice.next("result")
    assert result["ok"] is False and result["seq"] == 3 and result["stale"] is False
    game = table.service.game_of(CH)
    assert game is not None and game.version == 0
    from rules_engine import parse_action

    reason = game.explain(parse_action(f"0 attack {pair[0]} {pair[1]}"))
    assert reason is not None
    from web.wording import catalog

    expected = catalog("en").render(reason, ["Alice", "Bob"])
    assert result["reason"] == expected[:1].upper() + expected[1:]
    # the refusal is followed by the current table and hand
    assert (await alice.next("table"))["table"]["version"] == 0
    assert (await alice.next("hand"))["hand"]["version"] == 0


async def test_a_stale_version_is_refused_as_stale(table: WebTable) -> None:
    await table.game(ALICE, BOB)
    alice = await table.page(table.player(ALICE))
    hand = (await alice.next("hand"))["hand"]
    await table.service.act(CH, ALICE, hand["legal"][0]["text"], 0)
    await alice.act(4, hand, hand["legal"][1]["text"], version=0)
    result = await alice.next("result")
    assert result["ok"] is False and result["stale"] is True
    assert "changed" in result["reason"]
    game = table.service.game_of(CH)
    assert game is not None and game.version == 1


async def test_a_watcher_cannot_act(table: WebTable) -> None:
    await table.game(ALICE, BOB)
    hand = await table.service.hand(CH, ALICE)
    page = await table.page(table.watcher())
    await page.next("table")
    await page.send(
        {"t": "act", "seq": 1, "game": hand.game_id, "version": 0, "action": hand.legal[0].text}
    )
    result = await page.next("result")
    assert result["ok"] is False and "watching" in result["reason"]
    game = table.service.game_of(CH)
    assert game is not None and game.version == 0


@pytest.mark.parametrize(
    "frame",
    [
        {"t": "act", "seq": 1, "game": 1, "version": 0},
        {"t": "act", "seq": 1, "game": "1", "version": 0, "action": "take"},
        {"t": "act", "seq": 1, "game": 1, "version": True, "action": "take"},
        {"t": "act", "seq": 1, "game": 1, "version": 0, "action": "x" * 100},
        {"t": "dance", "seq": 1},
        {"t": "act", "game": 1, "version": 0, "action": "take"},
    ],
)
async def test_a_malformed_command_is_refused_and_changes_nothing(
    table: WebTable, frame: dict[str, object]
) -> None:
    await table.game(ALICE, BOB)
    page = await table.page(table.player(ALICE))
    await page.next("hand")
    await page.send(frame)
    result = await page.next("result")
    assert result["ok"] is False and "does not understand" in result["reason"]
    game = table.service.game_of(CH)
    assert game is not None and game.version == 0


async def test_not_json_is_refused_and_the_socket_stays_open(table: WebTable) -> None:
    await table.game(ALICE, BOB)
    page = await table.page(table.player(ALICE))
    await page.next("hand")
    await page.ws.send_str("{not json")
    assert (await page.next("result"))["ok"] is False
    await page.send({"t": "ping"})
    assert (await page.next("pong"))["t"] == "pong"


async def test_a_move_made_through_the_service_reaches_the_page(table: WebTable) -> None:
    """Alice plays on the page, Bob with his Discord buttons (the cogs' very call): each sees
    the other's move."""
    await table.game(ALICE, BOB)
    alice = await table.page(table.player(ALICE))
    hand = (await alice.next("hand"))["hand"]
    await alice.act(1, hand, hand["legal"][0]["text"], version=0)
    assert (await alice.next("result"))["ok"]
    bob_hand = await table.service.hand(CH, BOB)
    assert bob_hand.version == 1 and bob_hand.your_turn
    take = next(a for a in bob_hand.legal if a.kind == "take")
    await table.service.act(CH, BOB, take.text, bob_hand.version, game_id=bob_hand.game_id)
    await table.service.wait_idle()
    while True:
        t = (await alice.next("table"))["table"]
        if t["version"] == 2:
            break
    assert t["recent"][-1] == "Bob takes the cards"


async def test_a_reconnected_page_gets_the_current_state(table: WebTable) -> None:
    await table.game(ALICE, BOB)
    token = table.player(ALICE)
    first = await table.page(token)
    hand = (await first.next("hand"))["hand"]
    await first.close()
    await table.service.act(CH, ALICE, hand["legal"][0]["text"], 0)
    await table.service.wait_idle()
    again = await table.page(token)
    assert (await again.next())["role"] == "player"
    assert (await again.next("table"))["table"]["version"] == 1
    assert (await again.next("hand"))["hand"]["version"] == 1
    assert len(table.parts.presenter.pages(CH)) == 1


async def test_a_forfeit_revokes_the_players_page(table: WebTable) -> None:
    await table.game(ALICE, BOB, CAROL)
    token = table.player(BOB)
    bob = await table.page(token)
    hand = (await bob.next("hand"))["hand"]
    await table.service.forfeit(CH, BOB)
    await table.service.wait_idle()
    welcome = await bob.next("welcome")
    while welcome["role"] != "watcher":
        welcome = await bob.next("welcome")
    assert welcome["seat"] is None
    assert [n["kind"] for n in bob.of("notice")] == ["forfeit"]
    assert bob.of("notice")[0]["text"] == "Bob left the game: a forfeit, and the AI plays on"
    hands_before = len(bob.of("hand"))
    # play on: Bob's page never gets a hand again, and his commands are refused
    before = await table.service.table(CH)
    after = await table.step()
    assert after.version > before.version
    await bob.send({"t": "act", "seq": 9, "game": hand["game"], "version": 1, "action": "take"})
    result = await bob.next("result")
    assert result["ok"] is False and "watching" in result["reason"]
    await bob.barrier()
    assert len(bob.of("hand")) == hands_before
    # the same link opens the table as a watcher only
    again = await table.page(token)
    assert (await again.next())["role"] == "watcher"
    await again.next("table")
    await again.barrier()
    assert not again.of("hand")


async def test_a_kick_revokes_the_players_page(table: WebTable) -> None:
    await table.game(ALICE, BOB, CAROL)
    carol = await table.page(table.player(CAROL))
    await carol.next("hand")
    await table.service.kick(CH, ALICE, CAROL, authority=system(SystemRule.OPERATOR))
    await table.service.wait_idle()
    welcome = await carol.next("welcome")
    while welcome["role"] != "watcher":
        welcome = await carol.next("welcome")
    n = len(carol.of("hand"))
    before = await table.service.table(CH)
    assert (await table.step()).version > before.version
    await carol.next("table")
    await carol.barrier()
    assert len(carol.of("hand")) == n


async def test_rematch_and_end_series_from_the_page(table: WebTable) -> None:
    await table.game(ALICE, BOB)
    alice = await table.page(table.player(ALICE))
    await alice.next("hand")
    await alice.send({"t": "rematch", "seq": 1})
    refused = await alice.next("result")
    assert refused["ok"] is False and "still running" in refused["reason"]
    await table.play_out()
    last = (await alice.next("table"))["table"]
    while not last["finished"]:
        last = (await alice.next("table"))["table"]
    assert last["can_rematch"] is True and last["over_text"]
    await alice.send({"t": "rematch", "seq": 2})
    assert (await alice.next("result")) == {"t": "result", "seq": 2, "ok": True}
    fresh = (await alice.next("table"))["table"]
    assert fresh["game"] == last["game"] + 1 and fresh["version"] == 0
    watcher = await table.page(table.watcher())
    await watcher.next("table")
    await watcher.send({"t": "end_series", "seq": 5})
    assert (await watcher.next("result"))["ok"] is False


async def test_tokens_never_reach_the_log(
    table: WebTable, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    await table.game(ALICE, BOB)
    token = table.player(ALICE)
    page = await table.page(token)
    hand = (await page.next("hand"))["hand"]
    await page.send(
        {"t": "act", "seq": 1, "game": 1, "version": 0, "action": hand["legal"][0]["text"]}
    )
    await page.next("result")
    bad = await table.page(token + "x")
    await bad.closed()
    resp = await table.client.get("/table")
    assert resp.status == 200
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert caplog.records  # the session was logged (opened, refused, the access log)
    assert token not in text and token.split(".")[1] not in text


async def test_the_finished_table_reaches_a_page_once(table: WebTable) -> None:
    await table.game(ALICE, BOB)
    page = await table.page(table.watcher())
    await page.next("table")
    final = await table.play_out()
    while not (await page.next("table"))["table"]["finished"]:
        pass
    await page.barrier()
    finished = [f for f in page.of("table") if f["table"]["finished"]]
    assert len(finished) == 1 and finished[0]["table"]["version"] == final.version


async def test_frames_are_not_compressed_even_when_the_page_offers_it(table: WebTable) -> None:
    await table.game(ALICE, BOB)
    ws = await table.client.ws_connect("/ws", headers={"Origin": ORIGIN}, compress=15)
    assert ws.compress == 0  # the server declined permessage-deflate
    await ws.close()
