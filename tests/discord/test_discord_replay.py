"""History and replay renderers (issue 10 item 4): Discord's limits in every language, the
replay's buttons at the ends, names instead of seats, and the replay custom ids."""

from __future__ import annotations

import itertools
import re

import discord
import pytest

from bot.outcome import Outcome
from bot.player_records import AiLevelStats
from bot.replay import build_replay
from bot.views import HistoryEntry, HistoryPage, Player, ReplayView
from cogs.custom_ids import (
    GAME_TEMPLATE,
    LOBBY_TEMPLATE,
    REPLAY_NAVS,
    REPLAY_TEMPLATE,
    HistoryButton,
    ReplayButton,
    history_id,
    parse_history_id,
    parse_replay_id,
    replay_id,
)
from cogs.i18n import SUPPORTED, catalog
from cogs.render.message import Button
from cogs.render.records import render_history, render_replay, render_stats
from rules_engine import PROFILES, Game, deal_from_seed

from .dsc_factories import LONG, stats_view
from .dsc_limits import check_message, message_text, to_discord

CATS = [catalog(lang) for lang in SUPPORTED]


def _replay(players: int, seed: int, long: bool = False) -> ReplayView:
    rules = PROFILES["perevodnoy" if players > 3 else "podkidnoy"]
    deal = deal_from_seed(players, seed)
    game = Game(rules, deal)
    while not game.finished:
        game.apply(next(iter(game.legal_actions())))
    names = [Player(LONG if long else f"Player{i}") for i in range(players - 1)]
    return ReplayView(
        game_id=42,
        guild_id=1,
        rules=rules,
        profile=rules.profile or "custom",
        players=(*names, Player("Casual AI", "casual")),
        ended_at=1_700_000_000.0,
        replay=build_replay(rules, deal, game.history_text()),
    )


def _buttons(reply) -> dict[str, Button]:
    return {parse_replay_id(b.custom_id).nav: b for b in reply.components}


@pytest.mark.parametrize("players", [2, 3, 6])
def test_every_replay_frame_fits_discord_in_every_language(players: int) -> None:
    for long in (False, True):
        view = _replay(players, seed=players * 11, long=long)
        for t, frame in itertools.product(CATS, range(view.replay.total)):
            reply = render_replay(view, frame, t)
            check_message(reply)
            if frame in (0, view.replay.total - 1):
                to_discord(reply)
            text = message_text(reply)
            assert not re.search(r"\bseat \d", text), text  # players are named, never numbered


def test_replay_buttons_step_and_stop_at_the_ends() -> None:
    view = _replay(3, seed=5)
    replay = view.replay
    t = catalog("en")
    first = _buttons(render_replay(view, 0, t))
    assert first["prev"].disabled and first["prevround"].disabled
    assert not first["next"].disabled and parse_replay_id(first["next"].custom_id).frame == 1
    assert parse_replay_id(first["nextround"].custom_id).frame == replay.next_round(0)
    last_index = replay.total - 1
    last = _buttons(render_replay(view, last_index, t))
    assert last["next"].disabled and last["nextround"].disabled
    assert parse_replay_id(last["prev"].custom_id).frame == last_index - 1
    # out of range frames are clamped, never an error
    assert render_replay(view, 10_000, t) == render_replay(view, last_index, t)
    assert render_replay(view, -3, t) == render_replay(view, 0, t)
    # the last frame names the durak (or the draw) in words
    text = message_text(render_replay(view, last_index, t))
    frame = replay.frames[-1]
    assert frame.outcome is not None
    if frame.outcome.losers:
        (loser,) = frame.outcome.losers
        name = [p.name for p in view.players][loser]
        if view.players[loser].ai_level:
            name = "Casual AI"
        assert f"**{name}** is the durak" in text
    else:
        assert "draw" in text


def test_replay_in_spanish_and_french_names_the_ai_in_the_readers_language() -> None:
    view = _replay(2, seed=3)
    es = message_text(render_replay(view, 1, catalog("es")))
    fr = message_text(render_replay(view, 1, catalog("fr")))
    assert "Jugada 1/" in es and "IA Aficionado" in es and "Casual AI" not in es
    assert "Coup 1/" in fr and "IA" in fr and "Casual AI" not in fr
    assert "Solo tú ves esta repetición" in es and "Vous seul voyez ce replay" in fr


def _history(entries: int, long: bool = False) -> HistoryPage:
    humans = [Player(LONG if long else f"P{i}") for i in range(5)]
    players = (*humans, Player("Expert AI", "expert"))
    outcomes = (Outcome.durak(5), Outcome.draw(), Outcome.stopped())
    return HistoryPage(
        guild_id=1,
        user_id=7 if long else None,
        page=2,
        pages=4,
        per_page=10,
        total=35,
        entries=tuple(
            HistoryEntry(
                game_id=1_000_000_000 + i,
                ended_at=1_700_000_000.0 + i,
                rules=PROFILES["classic"],
                profile="classic",
                players=players,
                outcome=outcomes[i % 3],
            )
            for i in range(entries)
        ),
    )


def test_history_fits_discord_and_offers_a_replay_per_finished_game() -> None:
    for t, n, long in itertools.product(CATS, (0, 1, 10), (False, True)):
        reply = render_history(_history(n, long), t)
        check_message(reply)
        to_discord(reply)
        replayable = [e for e in _history(n).entries if e.replayable]
        replays = [b for b in reply.components if b.custom_id.startswith("durak:replay:")]
        assert [parse_replay_id(b.custom_id) for b in replays] == [
            ReplayButton(e.game_id, 0, "open") for e in replayable
        ]
        pages = [parse_history_id(b.custom_id) for b in reply.components if b not in replays]
        user = 7 if long else None
        assert pages == [HistoryButton(user, 1, "prev"), HistoryButton(user, 3, "next")]
    en = message_text(render_history(_history(3), catalog("en")))
    assert "<t:1700000000:f>" in en and "Expert AI** is the durak" in en and "a draw" in en
    assert "Page 2/4" in en and "stopped" in en
    assert "IA Experto" in message_text(render_history(_history(3), catalog("es")))
    assert "match nul" in message_text(render_history(_history(3), catalog("fr")))
    empty = message_text(render_history(_history(0), catalog("en")))
    assert "No finished game here yet." in empty


def test_stats_show_rating_and_ai_levels_in_every_language() -> None:
    from bot.player_records import ProfileStats
    from bot.ratings import Rating

    base = stats_view(2)
    view = type(base)(
        **{
            **{f: getattr(base, f) for f in base.__dataclass_fields__},
            "by_profile": (
                ProfileStats("podkidnoy", 10, 3, 1, rating=Rating(27.5, 2.1), rated_games=10),
                ProfileStats("classic", 2, 1, 0),
            ),
            "by_ai_level": tuple(AiLevelStats(lv, 4, 2, 0) for lv in ("beginner", "expert")),
        }
    )
    for t in CATS:
        check_message(render_stats(view, t))
    en = message_text(render_stats(view, catalog("en")))
    assert "rating **21** (27.5 ± 2.1)" in en and "not rated yet" in en
    assert "Games with AI players" in en and "Expert AI" in en
    assert "IA Experto" in message_text(render_stats(view, catalog("es")))
    assert "classement **21**" in message_text(render_stats(view, catalog("fr")))


def test_replay_ids_round_trip_and_match_no_other_template() -> None:
    for gid, frame, nav in itertools.product((1, 987654321012345), (0, 7, 999999), REPLAY_NAVS):
        cid = replay_id(gid, frame, nav)
        assert len(cid) <= 100
        assert parse_replay_id(cid) == ReplayButton(gid, frame, nav)
        assert re.fullmatch(REPLAY_TEMPLATE, cid)
        assert not re.fullmatch(GAME_TEMPLATE, cid) and not re.fullmatch(LOBBY_TEMPLATE, cid)
    for bad in ("durak:replay:0:0:open", "durak:replay:1:-1:next", "durak:replay:1:0:jump"):
        with pytest.raises(ValueError):
            parse_replay_id(bad)
    with pytest.raises(ValueError):
        replay_id(1, 0, "jump")
    assert discord.ui.DynamicItem  # the template is used by cogs.components.ReplayComponent


def test_history_paging_stops_at_the_ends_and_ids_round_trip() -> None:
    first = HistoryPage(1, None, 1, 3, 10, 25, ())
    last = HistoryPage(1, 42, 3, 3, 10, 25, ())
    only = HistoryPage(1, None, 1, 1, 10, 0, ())
    t = catalog("en")
    assert [parse_history_id(b.custom_id) for b in render_history(first, t).components] == [
        HistoryButton(None, 2, "next")
    ]
    assert [parse_history_id(b.custom_id) for b in render_history(last, t).components] == [
        HistoryButton(42, 2, "prev")
    ]
    assert render_history(only, t).components == ()
    for user, page, nav in itertools.product(
        (None, 1, 98765432101234567), (1, 99999), ("prev", "next")
    ):
        cid = history_id(user, page, nav)
        assert len(cid) <= 100 and parse_history_id(cid) == HistoryButton(user, page, nav)
        assert not re.fullmatch(REPLAY_TEMPLATE, cid) and not re.fullmatch(GAME_TEMPLATE, cid)
    for bad in ("durak:history:0:0:next", "durak:history:1:1:last", "durak:history:-1:1:next"):
        with pytest.raises(ValueError):
            parse_history_id(bad)
