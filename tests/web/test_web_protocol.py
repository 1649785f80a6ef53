"""The pages' protocol (:mod:`web.protocol`), shared by the table's and the room's sockets:
frames and their whole numbers, the reader's language, refusals; and both sockets keeping it
the same way."""

from __future__ import annotations

import pytest

from rules_engine.messages import Message
from web.protocol import (
    CLOSE_AUTH,
    BadFrame,
    Frame,
    error_frame,
    is_whole,
    reader_catalog,
    refused,
)
from web.wording import catalog

from .conftest import ORIGIN, WebTable


def test_frames_are_json_objects_or_nothing() -> None:
    assert Frame.parse('{"t": "act", "seq": 3}').kind == "act"
    for text in ("not json", "[1, 2]", '"hello"', "null", '{"t": 5}'):
        assert Frame.parse(text).kind is None, text


def test_whole_numbers_are_ints_and_never_booleans_or_floats() -> None:
    assert is_whole(0) and is_whole(-3) and is_whole(2**60)
    assert not any(is_whole(v) for v in (True, False, 1.0, "1", None, [1]))
    frame = Frame({"seq": True, "game": 12, "version": 1.5, "action": "take"})
    assert frame.seq is None and frame.whole("game") == 12
    with pytest.raises(BadFrame):
        frame.whole("version")
    with pytest.raises(BadFrame):
        frame.whole("missing")
    assert frame.whole_or_none("version") is None and frame.whole_or_none("game") == 12
    assert frame.text("action", 4) == "take"
    for name, longest in (("action", 3), ("game", 10), ("missing", 10)):
        with pytest.raises(BadFrame):
            frame.text(name, longest)
    with pytest.raises(BadFrame):
        Frame({"action": ""}).text("action", 10)


def test_the_readers_language_token_first_then_hello_then_browser() -> None:
    browser = catalog("es")
    assert reader_catalog("fr-FR", browser, "es-ES").locale == "es"
    assert reader_catalog("fr-FR", browser, None).locale == "fr"
    assert reader_catalog(None, browser, None).locale == "es"
    assert reader_catalog(42, catalog("en"), None).locale == "en"
    assert reader_catalog("xx", browser, None).locale == "en"  # said, but not spoken here


def test_refusals_are_sentences_in_the_readers_language() -> None:
    message = Message("the page sent a request the server does not understand")
    fr = catalog("fr")
    frame = error_frame(fr, message, CLOSE_AUTH)
    assert frame["code"] == CLOSE_AUTH and frame["reason"][0].isupper()
    assert frame["reason"] != "The page sent a request the server does not understand"
    result = refused(7, fr, message, stale=False)
    assert (result["seq"], result["ok"], result["stale"]) == (7, False, False)
    assert result["reason"] == frame["reason"]


@pytest.mark.parametrize("path", ["/ws", "/ws/room"])
async def test_both_sockets_refuse_a_binary_hello(table: WebTable, path: str) -> None:
    ws = await table.client.ws_connect(path, headers={"Origin": ORIGIN})
    await ws.send_bytes(b"\x00hello")
    error = await ws.receive_json()
    assert (error["t"], error["code"]) == ("error", CLOSE_AUTH)
    assert "does not understand" in error["reason"]
    await ws.receive()
    assert ws.close_code == CLOSE_AUTH
