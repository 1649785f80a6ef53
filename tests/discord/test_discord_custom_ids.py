"""Custom ids: formats, round trips, templates usable by discord.ui.DynamicItem."""

from __future__ import annotations

import re

import discord
import pytest

from cogs.custom_ids import (
    GAME_TEMPLATE,
    LOBBY_ACTIONS,
    LOBBY_TEMPLATE,
    GameButton,
    LobbyButton,
    game_id,
    lobby_id,
    parse_game_id,
    parse_lobby_id,
)

ACTIONS = [
    "attack 8♥",
    "attack 8♥ 8♠",
    "attack 10♠ 10♥ 10♦ 10♣",
    "defend 8♥ 9♥",
    "defend 10♦ A♣",
    "transfer 9♦",
    "transfer 9♦ 9♣ 9♥",
    "take",
    "pass",
    "show 9♦",
    "show 2♠",
    "attack 2♥ 2♣",
    "defend 4♦ 5♦",
    "pick 10♦",
    "pick 6♠",
    "why Q♥",
    "why 10♣",
    "page 0",
    "page 1",
    "page 12",
    "hand",
    "rematch",
    "endseries",
]
BIG = 2**63 - 1  # Discord snowflakes fit in 64 bits


class GameItem(discord.ui.DynamicItem[discord.ui.Button], template=GAME_TEMPLATE):  # type: ignore[type-arg]
    pass


class LobbyItem(discord.ui.DynamicItem[discord.ui.Button], template=LOBBY_TEMPLATE):  # type: ignore[type-arg]
    pass


@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize(("gid", "version"), [(0, 0), (1, 5), (BIG, 10**9)])
def test_game_id_round_trip(action: str, gid: int, version: int) -> None:
    cid = game_id(gid, version, action)
    assert cid == f"durak:{gid}:{version}:{action}"
    assert len(cid) <= 100
    assert parse_game_id(cid) == GameButton(gid, version, action)
    assert re.fullmatch(GAME_TEMPLATE, cid)
    assert GameItem.__discord_ui_compiled_template__.fullmatch(cid)  # type: ignore[attr-defined]
    assert not re.fullmatch(LOBBY_TEMPLATE, cid)


@pytest.mark.parametrize("action", LOBBY_ACTIONS)
def test_lobby_id_round_trip(action: str) -> None:
    for channel in (0, 1, BIG):
        cid = lobby_id(channel, action)
        assert cid == f"durak:lobby:{channel}:{action}"
        assert parse_lobby_id(cid) == LobbyButton(channel, action)
        assert LobbyItem.__discord_ui_compiled_template__.fullmatch(cid)  # type: ignore[attr-defined]
        assert not re.fullmatch(GAME_TEMPLATE, cid)
        with pytest.raises(ValueError):
            parse_game_id(cid)


def test_button_helpers() -> None:
    b = parse_game_id("durak:3:4:attack 8♥ 8♠")
    assert (b.verb, b.argument, b.is_game_action) == ("attack", "8♥ 8♠", True)
    b = parse_game_id("durak:3:4:pick 8♥")
    assert (b.verb, b.argument, b.is_game_action) == ("pick", "8♥", False)
    b = parse_game_id("durak:3:0:hand")
    assert (b.verb, b.argument, b.is_game_action) == ("hand", None, False)


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "durak",
        "durak:1:2:",
        "durak:1:2:fly",
        "durak:1:2:attack",
        "durak:1:2:attack 1♥",
        "durak:1:2:attack 8H",
        "durak:1:2:defend 8♥",
        "durak:1:2:take 8♥",
        "durak:1:2:show",
        "durak:1:2:show 9♦ 9♥",
        "durak:1:2:show 1♦",
        "durak:x:2:take",
        "durak:1:-2:take",
        "durak:01:2:take",
        "durak:1:2:take ",
        " durak:1:2:take",
        "durak:1:2:page -1",
        "durak:1:2:page x",
        "durak:1:2:why",
        "durak:1:2:pick 8♥ 9♥",
        "durak:lobby:1:join",
        "other:1:2:take",
        "durak:1:2:3:take",
    ],
)
def test_parse_game_rejects(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_game_id(bad)
    assert not re.fullmatch(GAME_TEMPLATE, bad) or len(bad) > 100


@pytest.mark.parametrize(
    "bad",
    [
        "durak:lobby:1:dance",
        "durak:lobby::join",
        "durak:lobby:-1:join",
        "durak:lobby:1:join:x",
        "durak:1:2:take",
        "durak:lobby:1:Join",
    ],
)
def test_parse_lobby_rejects(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_lobby_id(bad)


def test_builders_reject_bad_input() -> None:
    with pytest.raises(ValueError):
        game_id(1, 2, "fly")
    with pytest.raises(ValueError):
        game_id(-1, 2, "take")
    with pytest.raises(ValueError):
        game_id(1, -2, "take")
    with pytest.raises(ValueError):
        lobby_id(1, "dance")
    with pytest.raises(ValueError):
        lobby_id(-5, "join")


def test_over_100_characters_raises() -> None:
    cards = " ".join(["10♠", "10♥", "10♦", "10♣"] * 6)
    with pytest.raises(ValueError, match="100"):
        game_id(BIG, 10**9, f"attack {cards}")
    with pytest.raises(ValueError):
        parse_game_id(f"durak:{BIG}:1:attack {cards}")


def test_longest_real_ids_fit() -> None:
    # The longest action a game can produce: four tens (a transfer or an attack).
    longest = game_id(BIG, 10**10 - 1, "transfer 10♠ 10♥ 10♦ 10♣")
    assert len(longest) <= 100
    assert len(lobby_id(BIG, "leave")) <= 100
