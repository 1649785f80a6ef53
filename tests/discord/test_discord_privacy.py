"""``/durak privacy`` and ``/durak forget-me`` renderers, their custom ids, and a forgotten
player's seat as every renderer names it: "a former player", in the reader's language."""

from __future__ import annotations

import itertools
import re

import pytest

from bot.outcome import Outcome
from bot.player_records import PrivacyView, ServerRecords, StoredRating
from bot.ratings import Rating
from bot.seating import FORMER_PLAYER_ID, LobbySeat
from bot.views import ForgetRequest, HistoryEntry, HistoryPage, Player, SeriesEntry
from cogs.custom_ids import (
    FORGET_ACTIONS,
    FORGET_TEMPLATE,
    GAME_TEMPLATE,
    HISTORY_TEMPLATE,
    LOBBY_TEMPLATE,
    REPLAY_TEMPLATE,
    ForgetButton,
    forget_id,
    parse_forget_id,
)
from cogs.i18n import SUPPORTED, catalog
from cogs.render.privacy import (
    render_confirm_forget,
    render_forget_cancelled,
    render_forgotten,
    render_privacy,
)
from cogs.render.records import render_history
from cogs.render.text import seat_names
from rules_engine import PROFILES

from .dsc_factories import LONG
from .dsc_limits import check_message, message_text

CATS = [catalog(lang) for lang in SUPPORTED]
FORMER = {"en": "a former player", "es": "un antiguo jugador", "fr": "un ancien joueur"}


def _server(guild: int, **kw: object) -> ServerRecords:
    fields: dict[str, object] = {
        "games": 12,
        "results": 10,
        "forfeits": 1,
        "series": 3,
        "rating_changes": 9,
        "ratings": (StoredRating("podkidnoy", Rating(27.5, 2.1), 9),),
        "first_at": 1_700_000_000.0,
        "last_at": 1_700_100_000.0,
    }
    fields.update(kw)
    return ServerRecords(guild, **fields)  # type: ignore[arg-type]


STORED = PrivacyView(
    42,
    ("Alice", "Ally *the* @everyone"),
    (_server(10), _server(20, ratings=(), open_channels=(555,), games=1, results=0)),
)


def test_privacy_lists_what_is_stored_per_server_in_every_language() -> None:
    for t in CATS:
        check_message(render_privacy(STORED, t, {10: "Friends"}))
        check_message(render_privacy(PrivacyView(42, (), ()), t))
    en = message_text(render_privacy(STORED, catalog("en"), {10: "Friends"}))
    for text in (
        "Your Discord user id: `42`",
        "**Alice**, **Ally \\*the\\* \\@everyone**",  # names can neither format nor mention
        "Server Friends",
        "Server 20",  # a server the bot does not know (any more): its id
        "Seated in 12 games (from <t:1700000000:d> to <t:1700100000:d>)",
        "10 finished games counted in your stats",
        "1 forfeit",
        "3 series you sat in or hosted",
        "Rating in podkidnoy: **21** (9 rated games)",
        "9 rating changes",
        "Now in a lobby or a game in <#555>",
        "/durak forget-me",
    ):
        assert text in en, text
    assert "Nothing: no game" in message_text(
        render_privacy(PrivacyView(42, (), ()), catalog("en"))
    )
    assert "Serveur Friends" in message_text(render_privacy(STORED, catalog("fr"), {10: "Friends"}))
    assert "/durak olvídame" in message_text(render_privacy(STORED, catalog("es")))
    # more servers than an embed has fields: the last field counts the others
    many = PrivacyView(42, ("A",), tuple(_server(g) for g in range(1, 41)))
    for t in CATS:
        check_message(render_privacy(many, t))
    assert "and 16 more servers" in message_text(render_privacy(many, catalog("en")))


def test_the_confirmation_warns_and_offers_erase_and_cancel_to_its_asker() -> None:
    request = ForgetRequest(42, 1_700_000_300, STORED)
    for t in CATS:
        reply = render_confirm_forget(request, t)
        check_message(reply)
        erase, cancel = reply.components
        assert erase.style == "danger" and cancel.style == "secondary"
        assert parse_forget_id(erase.custom_id) == ForgetButton(42, 1_700_000_300, "confirm")
        assert parse_forget_id(cancel.custom_id) == ForgetButton(42, 1_700_000_300, "cancel")
        check_message(render_forgotten(STORED, t))
        check_message(render_forget_cancelled(t))
    en = message_text(render_confirm_forget(request, catalog("en")))
    assert "“a former player”" in en and "cannot be undone" in en
    assert "Stored now: 13 games, 2 servers, 1 rating." in en and "<t:1700000300:R>" in en
    fr = message_text(render_confirm_forget(request, catalog("fr")))
    assert "« un ancien joueur »" in fr and "vous" in fr
    # nothing stored: nothing to press
    empty = render_confirm_forget(ForgetRequest(42, 1, PrivacyView(42, (), ())), catalog("en"))
    assert empty.components == () and "nothing to erase" in message_text(empty)
    done = message_text(render_forgotten(STORED, catalog("en")))
    assert "Erased: 13 games, 2 servers, 1 rating." in done
    assert render_forgotten(STORED, catalog("en")).components == ()


def test_forget_ids_round_trip_and_match_no_other_template() -> None:
    for user, expires, action in itertools.product(
        (1, 2**63 - 1), (0, 1_700_000_300, 10**12 - 1), FORGET_ACTIONS
    ):
        cid = forget_id(user, expires, action)
        assert len(cid) <= 100 and parse_forget_id(cid) == ForgetButton(user, expires, action)
        assert re.fullmatch(FORGET_TEMPLATE, cid)
        for other in (GAME_TEMPLATE, LOBBY_TEMPLATE, REPLAY_TEMPLATE, HISTORY_TEMPLATE):
            assert not re.fullmatch(other, cid)
    for bad in ("durak:forget:0:5:confirm", "durak:forget:1:5:erase", "durak:forget:1:-5:cancel"):
        with pytest.raises(ValueError):
            parse_forget_id(bad)
    with pytest.raises(ValueError):
        forget_id(0, 5, "confirm")  # nobody asks as user 0 (a former player)


@pytest.mark.parametrize("lang", SUPPORTED)
def test_a_forgotten_seat_reads_a_former_player_in_the_readers_language(lang: str) -> None:
    t = catalog(lang)
    seats = [LobbySeat(FORMER_PLAYER_ID, ""), LobbySeat(7, "Bob"), LobbySeat(None, "AI", "casual")]
    names = seat_names(seats, t)
    assert names[0] == FORMER[lang] and names[1] == "Bob"
    entries = [SeriesEntry(i, s.user_id, s.name, s.ai_level, 0) for i, s in enumerate(seats)]
    assert seat_names(entries, t) == names
    players = (Player("", former=True), Player(LONG), Player("", former=True))
    assert seat_names(players, t) == [FORMER[lang], seat_names([Player(LONG)], t)[0], FORMER[lang]]
    page = HistoryPage(
        1,
        None,
        1,
        1,
        10,
        1,
        (
            HistoryEntry(
                5, 1_700_000_000.0, PROFILES["podkidnoy"], "podkidnoy", players, Outcome.durak(0)
            ),
        ),
    )
    text = message_text(render_history(page, t))
    assert f"**{FORMER[lang]}**" in text and "?" not in text.replace("¿", "")
