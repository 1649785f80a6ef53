"""Renderers against Discord's limits, hand reachability and hidden information."""

from __future__ import annotations

import dataclasses
import functools
import itertools

import pytest

from bot.errors import ConfirmForfeit, NotYourTurn
from bot.outcome import Outcome
from bot.player_records import ProfileStats
from bot.views import (
    ActionChoice,
    ActionRecord,
    HandView,
    Player,
    StatsView,
    TableView,
    action_message,
)
from cogs.custom_ids import parse_game_id, parse_lobby_id
from cogs.i18n import SUPPORTED, catalog
from cogs.render.hand import CARDS_PER_PAGE, render_hand, render_why
from cogs.render.info import render_rules
from cogs.render.lobby import render_lobby
from cogs.render.message import Button, Reply, Select
from cogs.render.notices import (
    render_confirm_forfeit,
    render_error,
    render_forfeited,
    render_notice,
)
from cogs.render.records import render_leaderboard, render_series, render_stats
from cogs.render.table import render_table
from cogs.render.text import card_md, seat_names
from rules_engine.actions import Action, ActionKind
from rules_engine.cards import parse_card
from rules_engine.messages import Message, Seat
from rules_engine.played import Played

from .dsc_factories import (
    attack_hand,
    big_hand,
    hand_view,
    leaderboard,
    lobby_view,
    played_games,
    series_view,
    stats_view,
    table_view,
)
from .dsc_limits import cards_in, check_message, message_text, to_discord

CATS = [catalog(lang) for lang in SUPPORTED]


@functools.cache
def _states() -> tuple:
    """Snapshots along random playthroughs (every profile, 2–6 players), incl. game over."""
    return tuple(
        game.clone() for game, step in played_games(24, seed=7) if step % 8 == 0 or game.finished
    )


def _sample_states():
    return iter(_states())


def _ids(msg: Reply) -> list[str]:
    """The game components' ids (not the game over's "Review my game")."""
    return [c.custom_id for c in msg.components if not c.custom_id.startswith("durak:review:")]


def _actions(msg: Reply) -> set[str]:
    return {parse_game_id(cid).action for cid in _ids(msg)}


def _public_cards(view: TableView) -> set[str]:
    cards = set(view.shown) | {c for r in view.recent for c in r.cards}
    cards |= {view.trump_card} if view.trump_card else set()
    for p in view.pairs:
        cards |= {p.attack} | ({p.defence} if p.defence else set())
    return {str(c) for c in cards}


# ------------------------------------------------------------------------------ table
def test_tables_of_real_games_fit_and_show_only_public_cards() -> None:
    n = 0
    for game in _sample_states():
        view = table_view(game, long=n % 2 == 1)
        for t in CATS:
            msg = render_table(view, t)
            check_message(msg)
            assert cards_in(message_text(msg)) <= _public_cards(view)
            for cid in _ids(msg):
                b = parse_game_id(cid)
                assert (b.game_id, b.version) == (view.game_id, view.version)
            actions = _actions(msg)
            if view.finished:
                assert actions == {"rematch", "endseries"}
            else:  # Show my hand, Stop (a stop vote) and Leave (a forfeit, confirmed)
                assert actions == {"hand", "stop", "leave"}
        n += 1
    assert n > 200


def test_table_six_long_names_and_long_history() -> None:
    game = next(g for g in _sample_states() if g.n == 6 and g.table_attacks)
    recent = tuple(
        ActionRecord(
            Played.of(Action(i % 6, ActionKind(kind), tuple(map(parse_card, cards)))), auto
        )
        for i, (kind, cards, auto) in enumerate(
            itertools.islice(
                itertools.cycle(
                    [
                        ("attack", ("10♠", "10♥", "10♦", "10♣"), None),
                        ("defend", ("10♠", "Q♠"), "timeout"),
                        ("transfer", ("9♦", "9♣", "9♥"), "autopilot"),
                        ("take", (), "timeout"),
                        ("pass", (), None),
                    ]
                ),
                60,
            )
        )
    )
    view = table_view(game, long=True, recent=recent)
    for t in CATS:
        msg = render_table(view, t)
        check_message(msg)
        to_discord(msg)
        desc = msg.embeds[0]["description"]
        assert "<t:" in desc and ":R>" in desc  # live countdown
        players = msg.embeds[0]["fields"][0]["value"]
        assert players.count("\n") == 5  # six seats
        assert "@everyone" not in message_text(msg)  # escaped


def test_table_roles_trump_and_turn() -> None:
    game = next(g for g in _sample_states() if g.n == 3 and g.table_attacks and g.stock)
    view = table_view(game)
    msg = render_table(view, catalog("en"))
    text = message_text(msg)
    assert card_md(view.trump_card) in text
    assert "defender" in text and ("leader" in text or "attacker" in text)
    assert f"<t:{int(view.deadline)}:R>" in text
    es = message_text(render_table(view, catalog("es")))
    assert "Triunfo" in es and "defensor" in es and "Mazo" in es
    fr = message_text(render_table(view, catalog("fr")))
    assert "Atout" in fr and "défenseur" in fr and "Talon" in fr


def test_game_over_durak_draw_and_stopped() -> None:
    finished = [g for g in _sample_states() if g.finished]
    losses = [g for g in finished if g.loser is not None]
    assert losses
    view = table_view(losses[0])
    msg = render_table(view, catalog("en"))
    text = message_text(msg)
    assert view.outcome is not None
    loser = view.seats[view.outcome.losers[0]]
    name = "Counter AI" if loser.ai_level == "counter" else loser.name  # an AI seat: its level
    assert f"{name} is the durak" in text
    assert "Series" in text and "loss" in text
    labels = {c.label for c in msg.components}
    assert labels == {"Rematch", "End series", "Review my game"}
    from dataclasses import replace

    draw = replace(view, outcome=Outcome.draw())
    assert "draw" in message_text(render_table(draw, catalog("en")))
    stopped = replace(view, outcome=Outcome.stopped())
    msg = render_table(stopped, catalog("fr"))
    check_message(msg)
    assert msg.components == ()
    assert "arrêtée" in message_text(msg)
    ended = replace(view, series=replace(view.series, active=False))
    # the series is over: no rematch, but each player may still review the game
    assert [c.label for c in render_table(ended, catalog("en")).components] == ["Review my game"]


# ------------------------------------------------------------------------------ hand
def _check_hand(view: HandView, t) -> None:
    pages = max(1, -(-len(view.cards) // CARDS_PER_PAGE))
    direct: set[str] = set()
    picks: set[str] = set()
    whys: set[str] = set()
    shown_cards: set[str] = set()
    allowed = {c.text for c in view.cards} | {
        str(a.cards[0]) for a in view.legal if a.kind == "defend"
    }
    for page in range(pages):
        msg = render_hand(view, t, page=page)
        check_message(msg)
        if len(view.cards) > 15 or page:
            to_discord(msg)
        text = message_text(msg)
        assert cards_in(text) <= allowed, "a card that is neither in the hand nor attacked"
        # the full hand is listed as text on every page
        for c in view.cards:
            assert card_md(c.card) in msg.embeds[0]["description"]
        for c in msg.components:
            assert isinstance(c, Button)
            b = parse_game_id(c.custom_id)
            assert (b.game_id, b.version) == (view.game_id, view.version)
            if b.verb == "pick":
                picks.add(b.argument)
                assert c.row < 4
            elif b.verb == "why":
                whys.add(b.argument)
                assert c.style == "secondary" and not c.disabled
            elif b.is_game_action:
                direct.add(b.action)
            if c.row < 4:
                shown_cards.add(c.label)
                assert c.label in {h.text for h in view.cards}
        if pages > 1:
            nav = {parse_game_id(c.custom_id).action for c in msg.components if c.row == 4}
            if page > 0:
                assert f"page {page - 1}" in nav
            if page < pages - 1:
                assert f"page {page + 1}" in nav
    # every card of the hand has a button on some page
    assert shown_cards == {c.text for c in view.cards}
    # greyed cards explain themselves
    playable = {
        str(c) for a in view.legal for c in (a.cards[1:] if a.kind == "defend" else a.cards)
    }
    assert whys == {c.text for c in view.cards} - playable
    for c in view.cards:
        if c.reason is not None and c.text not in playable:
            assert c.text in whys
    # every legal action: directly, or through pick
    via_pick: set[str] = set()
    for card in picks:
        msg = render_hand(view, t, selected=card)
        check_message(msg)
        if len(view.cards) > 15:
            to_discord(msg)
        acts = _actions(msg)
        assert any(a.startswith("page ") for a in acts), "a Back button"
        via_pick |= acts
        mine = {a.text for a in view.legal if parse_card(card) in a.uses}
        assert mine <= acts
    reachable = direct | via_pick
    missing = {a.text for a in view.legal} - reachable
    assert not missing, missing


def test_hands_of_real_games() -> None:
    count = 0
    for i, game in enumerate(_sample_states()):
        t = CATS[i % 3]
        for seat in range(game.n):
            _check_hand(hand_view(game, seat), t)
            count += 1
    assert count > 500


@pytest.mark.parametrize("n_cards", [0, 1, 19, 20, 21, 25, 30, 33, 35])
def test_big_hands_page_and_stay_within_limits(n_cards: int) -> None:
    for t in CATS:
        for your_turn in (True, False):
            view = big_hand(n_cards, your_turn=your_turn, seed=n_cards)
            _check_hand(view, t)
    view = big_hand(33)
    last = render_hand(view, CATS[0], page=99)  # clamped to the last page
    first = render_hand(view, CATS[0], page=-3)
    assert _ids(last) == _ids(render_hand(view, CATS[0], page=1))
    assert _ids(first) == _ids(render_hand(view, CATS[0], page=0))
    assert "1/2" in first.embeds[0]["footer"]["text"]


#: A web table link as long as real ones get (about 250 characters).
LINK = "https://durak.example.org/table#t=" + "x" * 220


def test_hands_with_the_web_tables_link_stay_within_limits() -> None:
    """The "Open the table" link takes a place on the last row, never pushing a Take, Pass
    or page button off it: a transfer shortcut gives way (the card itself still transfers)."""
    count = 0
    views = [hand_view(g, s) for g in _states()[:60] for s in range(g.n)]
    views += [big_hand(n, seed=n) for n in (12, 21, 33)]
    for i, view in enumerate(views):
        t = CATS[i % 3]
        for page in (0, 1):
            plain = render_hand(view, t, page=page)
            linked = render_hand(view, t, page=page, link=LINK)
            check_message(linked)
            links = [c for c in linked.components if c.url is not None]
            assert [(c.url, c.row) for c in links] == [(LINK, 4)]
            assert links[0].label == t.gettext("Open the table")
            kept = {c.custom_id for c in linked.components if c.url is None}
            dropped = {c.custom_id for c in plain.components} - kept
            assert all(parse_game_id(cid).verb == "transfer" for cid in dropped), dropped
            count += 1
    assert count > 100


def test_the_running_table_has_the_watch_link_and_game_over_has_none() -> None:
    view = table_view(next(g for g in _states() if not g.finished))
    msg = render_table(view, catalog("fr"), watch=LINK)
    check_message(msg)
    assert [(c.label, c.url) for c in msg.components if c.url] == [("Regarder", LINK)]
    assert not [c for c in render_table(view, catalog("fr")).components if c.url]
    over = dataclasses.replace(view, outcome=Outcome.durak(0))
    assert not [c for c in render_table(over, catalog("en"), watch=LINK).components if c.url]


def test_attack_combinations_via_pick() -> None:
    view = attack_hand()
    msg = render_hand(view, catalog("en"))
    acts = _actions(msg)
    assert {"pick 8♠", "pick 8♥", "pick 8♦", "pick 8♣", "attack 9♠", "attack Q♥"} <= acts
    sel = render_hand(view, catalog("en"), selected="8♥")
    labels = {c.label for c in sel.components}
    assert {"Attack 8♥", "Attack 8♠ 8♥", "Attack 8♠ 8♥ 8♦ 8♣", "Back"} <= labels
    assert len([a for a in _actions(sel) if a.startswith("attack")]) == 8
    assert "**8♥️**" in sel.embeds[0]["description"]
    # selecting a card that is not playable (or absent) falls back to the plain hand
    assert _ids(render_hand(view, catalog("en"), selected="6♥")) == _ids(msg)


def test_the_hand_offers_each_choice_on_the_cards_it_uses() -> None:
    """The hand reads which of its cards a choice plays from the choice's ``uses``, not from
    its kind and cards: a choice that uses a card it does not name (as showing a card would)
    is offered on that card, and a card it names but does not use is not playable."""
    nine, queen = parse_card("9♠"), parse_card("Q♥")
    shown = ActionChoice(ActionKind.ATTACK, (nine,), uses=(queen,))
    view = dataclasses.replace(attack_hand(), legal=(shown,))
    msg = render_hand(view, catalog("en"))
    buttons = {c.label: parse_game_id(c.custom_id) for c in msg.components}
    assert buttons["Q♥"].action == "attack 9♠"  # the one choice that uses Q♥, on Q♥
    assert buttons["9♠"].action == "why 9♠"
    assert "**Q♥️**" in msg.embeds[0]["description"]  # shown as playable


def test_defend_choice_and_transfer_shortcuts() -> None:
    view = big_hand(12, seed=4)
    en = catalog("en")
    msg = render_hand(view, en)
    last = [c for c in msg.components if c.row == 4]
    assert last[0].label == "Take"
    for card in [c.text for c in view.cards]:
        acts = [a for a in view.legal if parse_card(card) in a.uses]
        if len(acts) > 1:
            sel = render_hand(view, en, selected=card)
            labels = [c.label for c in sel.components]
            for a in acts:
                if a.kind == "defend":
                    assert f"Cover {a.cards[0]} with {card}" in labels
                else:
                    assert f"Transfer {' '.join(map(str, a.cards))}" in labels
    fr = render_hand(view, catalog("fr"))
    assert "Ramasser" in {c.label for c in fr.components}


def test_card_styles_red_black_grey() -> None:
    msg = render_hand(big_hand(30, seed=2), catalog("en"))
    for c in msg.components:
        b = parse_game_id(c.custom_id)
        if c.row == 4:
            continue
        if b.verb == "why":
            assert c.style == "secondary"
        elif c.label[-1] in "♥♦":
            assert c.style == "danger"
        else:
            assert c.style == "primary"


def test_hand_never_shows_other_cards_and_marks_turn() -> None:
    game = next(g for g in _sample_states() if g.n == 4 and g.to_act is not None)
    for seat in range(4):
        view = hand_view(game, seat)
        msg = render_hand(view, catalog("en"))
        mine = {c.text for c in view.cards}
        table = {a for a, _ in game.table()} | {d for _, d in game.table() if d}
        assert cards_in(message_text(msg)) <= mine | table
        desc = msg.embeds[0]["description"]
        assert ("Your turn" in desc) == view.your_turn


def test_why_answer() -> None:
    seven, nine = parse_card("7♠"), parse_card("9♠")
    r = Message(
        "{card} does not beat {attack}: it must be a higher {suit}",
        card=seven,
        attack=nine,
        suit="♠",
    )
    msg = render_why(seven, r, catalog("es"))
    check_message(msg)
    assert "7♠ no cubre 9♠" in msg.content
    assert "does not" not in msg.content
    over = render_why(seven, Message("the game is over"), catalog("en")).content
    assert over is not None and "the game is over" in over


# ------------------------------------------------------------------------------ lobby etc.
@pytest.mark.parametrize("status", ["open", "started", "closed"])
def test_lobbies(status: str) -> None:
    for n, long, max_seats in itertools.product(range(7), (False, True), (2, 6)):
        n = min(n, max_seats)
        view = lobby_view(n, status=status, long=long, max_seats=max_seats)
        for t in CATS:
            msg = render_lobby(view, t)
            check_message(msg)
            to_discord(msg)
            if status != "open":
                assert msg.components == ()
                continue
            acts = {parse_lobby_id(c.custom_id).action for c in msg.components}
            assert {"join", "leave", "start", "stop"} <= acts
            start = next(c for c in msg.components if parse_lobby_id(c.custom_id).action == "start")
            assert start.disabled == (not view.can_start)
            selects = [c for c in msg.components if isinstance(c, Select)]
            if n < max_seats:
                assert [o.value for o in selects[0].options] == [
                    "beginner",
                    "casual",
                    "counter",
                    "expert",
                ]
                assert parse_lobby_id(selects[0].custom_id).action == "addai"
            else:
                assert not selects


def test_ai_seats_are_named_by_level_in_the_readers_language() -> None:
    seats = [
        Player("Ana"),
        Player("Casual AI", "casual"),
        Player("Expert AI", "expert"),
        Player("Casual AI 2", "casual"),
        Player("*Bob*"),
    ]
    assert seat_names(seats, catalog("en")) == [
        "Ana",
        "Casual AI",
        "Expert AI",
        "Casual AI 2",
        "\\*Bob\\*",
    ]
    assert seat_names(seats, catalog("es"))[1:4] == [
        "IA Aficionado",
        "IA Experto",
        "IA Aficionado 2",
    ]
    ran_out = Message("{player} passes", player=Seat(3))
    assert (
        render_notice("timeout", ran_out, catalog("fr"), seat_names(seats, catalog("fr")))
        == "⏰ IA Amateur 2 passe"
    )


def test_rules_are_named_in_the_readers_language() -> None:
    custom = lobby_view(3, long=True)  # custom options
    assert (
        render_lobby(custom, catalog("fr")).embeds[0]["title"]
        == "Salle de Durak — règles personnalisées"
    )
    assert render_lobby(custom, catalog("en")).embeds[0]["title"] == "Durak lobby — custom rules"
    assert render_lobby(lobby_view(3), catalog("es")).embeds[0]["title"].endswith("podkidnoy")


def test_lobby_texts() -> None:
    view = lobby_view(3)
    assert "Neighbours" in message_text(render_lobby(view, catalog("en"))).title()
    es = message_text(render_lobby(view, catalog("es")))
    assert "Unirse" in es and "asiento libre" in es and "Principiante" in es
    fr = message_text(render_lobby(view, catalog("fr")))
    assert "Rejoindre" in fr and "place libre" in fr and "Débutant" in fr


def test_series_stats_leaderboard() -> None:
    for t in CATS:
        for n, long in itertools.product((2, 6), (False, True)):
            check_message(render_series(series_view(n, long), t))
            check_message(render_series(series_view(n, long, games=0, active=False), t))
        for k, long in itertools.product((0, 1, 30), (False, True)):
            check_message(render_stats(stats_view(k, long), t))
        check_message(render_stats(stats_view(0, games=0), t))
        for rows, long in itertools.product((0, 1, 25, 50), (False, True)):
            check_message(render_leaderboard(leaderboard(rows, long), t))
    text = message_text(render_series(series_view(3), catalog("en")))
    assert "Expert AI" in text and "14 losses" in text and "durak of the last game" in text
    text = message_text(render_leaderboard(leaderboard(3), catalog("fr")))
    assert "Page 2/9" in text and "défaites" in text


@pytest.mark.parametrize(
    "profile", [None, "podkidnoy", "perevodnoy", "classic", "Classic", "nonsense"]
)
def test_rules(profile: str | None) -> None:
    for t in CATS:
        msg = render_rules(profile, None, t)
        check_message(msg)
    custom = {"throw_in": "all", "first_round_limit": 5, "transfer": True}
    for t in CATS:
        check_message(render_rules(None, custom, t))
    text = message_text(render_rules("perevodnoy", None, catalog("en")))
    assert "Transfer:" in text and "every player but the defender adds" in text
    text = message_text(render_rules("podkidnoy", None, catalog("fr")))
    assert "voisins" in text and "Pas de transfert" in text


def test_errors_and_notices() -> None:
    long_name = Message("{name} is back", name=Seat(0))
    for t in CATS:
        check_message(render_error(long_name, t, ["x" * 5000]))
        assert len(render_notice("timeout", long_name, t, ["y" * 5000])) <= 2000
    assert render_error(NotYourTurn.default_message, catalog("es")).content == "⚠️ No es tu turno"
    ran_out = Message(
        "{name} ran out of time: {action}",
        name=Seat(1),
        action=action_message(ActionKind.DEFEND, (parse_card("8♥"), parse_card("9♥"))),
    )
    es = render_notice("timeout", ran_out, catalog("es"), ["Bob", "Ana"])
    assert es == "⏰ A Ana se le acabó el tiempo: cubrir 8♥\ufe0f con 9♥\ufe0f"
    on = Message("{name} is on autopilot until they come back", name=Seat(0))
    fr = render_notice("autopilot_on", on, catalog("fr"), ["Bob"])
    assert fr == "🤖 Bob est en pilote automatique jusqu’à son retour"
    everyone = seat_names([Player("@everyone")], catalog("en"))
    back = render_notice("stopped", long_name, catalog("en"), everyone)
    assert back.count("@\u200b") == 1
    # a seat the caller has no name for is still named, in the reader's language
    assert render_notice("error", long_name, catalog("en")) == "⚠️ Player 1 is back"


def test_a_stop_vote_and_a_forfeited_seat_on_the_table() -> None:
    game, _ = next(played_games(1, seed=3))
    base = table_view(game)
    seats = tuple(dataclasses.replace(s, forfeited=s.seat == 1) for s in base.seats)
    view = dataclasses.replace(
        base, seats=seats, stop_vote=(1, 3), stop_vote_deadline=1_700_000_060.0
    )
    for t in CATS:
        msg = render_table(view, t)
        check_message(msg)
        text = message_text(msg)
        assert t.fill("Stop? {yes}/{total}", yes=1, total=3) in text
        assert "<t:1700000060:R>" in text
        assert t.gettext("left: the AI plays") in text
        assert _actions(msg) == {"hand", "stop", "keep", "leave"}
        if t.locale != "en":
            assert "left: the AI plays" not in text and "Keep playing" not in text
    stopped = dataclasses.replace(view, outcome=Outcome.stopped(forfeits=(1,)), stop_vote=None)
    for t in CATS:
        text = message_text(render_table(stopped, t))
        assert (
            "🛑 **"
            + t.gettext("The game was stopped: no result is recorded, except forfeits.")
            + "**"
            in text
        )
        assert not _actions(render_table(stopped, t))


def test_the_forfeit_confirmation_and_stats_with_forfeits() -> None:
    for t in CATS:
        reply = render_confirm_forfeit(42, ConfirmForfeit.default_message, t)
        check_message(reply)
        (button,) = reply.components
        assert parse_game_id(button.custom_id) == (42, 0, "forfeit")
        assert button.label == t.gettext("Leave and forfeit")
        if t.locale != "en":
            assert "forfeit" not in message_text(reply)
        check_message(render_forfeited(t))
        stats = StatsView(
            10, 7, "Bob", None, 3, 2, 0, (ProfileStats("podkidnoy", 3, 2, 0, 1),), forfeits=1
        )
        text = message_text(render_stats(stats, t))
        assert text.count(t.nfill("{count} forfeit", "{count} forfeits", 1)) == 2


@pytest.mark.parametrize("lang", SUPPORTED)
def test_stats_titles_show_a_name_never_a_raw_id(lang: str) -> None:
    """Issue 22, item 10: stats without games were titled ``Durak stats — <user id>``."""
    t = catalog(lang)
    named = dataclasses.replace(stats_view(0, games=0), user_id=1577646196447510532, name="Dave")
    for view in (named, dataclasses.replace(named, name=None)):
        reply = render_stats(view, t)
        check_message(reply)
        title = str(reply.embeds[0]["title"])
        assert str(view.user_id) not in title and (view.name or "") in title
