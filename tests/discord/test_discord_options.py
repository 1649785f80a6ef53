"""The table options on Discord (issue 30): a hand offering "Show 9♦", the table's pack size,
teams and shown trumps, a team lobby with Switch team, a team's loss; within Discord's limits
in every language."""

from __future__ import annotations

from cogs.custom_ids import parse_game_id
from cogs.i18n import SUPPORTED, catalog
from cogs.render.hand import render_hand
from rules_engine.actions import ActionKind
from rules_engine.phase import Phase

from .dsc_factories import can_show, hand_view, option_game
from .dsc_limits import check_message

CATS = [catalog(lang) for lang in SUPPORTED]
SHOW_TRUMP = {"profile": "perevodnoy", "show_trump": True}


def test_a_hand_offers_show_when_a_trump_may_be_shown() -> None:
    game = option_game(SHOW_TRUMP, 3, can_show)
    view = hand_view(game, game.player_to_act)
    (show,) = [a for a in view.legal if a.kind is ActionKind.SHOW]
    card = str(show.cards[0])
    en = catalog("en")
    msg = render_hand(view, en)
    # a shortcut on the last row, named by its card, that sends the show
    buttons = {c.label: parse_game_id(c.custom_id) for c in msg.components if c.row == 4}
    assert buttons[f"Show {card}"].action == f"show {card}"
    # the card itself asks (it may also beat or transfer), and its choices include the show
    picked = render_hand(view, en, selected=card)
    labels = {c.label: parse_game_id(c.custom_id).action for c in picked.components}
    assert labels[f"Show {card}"] == f"show {card}"
    for t in CATS:
        check_message(render_hand(view, t))
        check_message(render_hand(view, t, selected=card))


def test_no_show_is_offered_without_the_option() -> None:
    game = option_game({"profile": "perevodnoy"}, 3, lambda g: g.phase is Phase.DEFEND)
    view = hand_view(game, game.player_to_act)
    msg = render_hand(view, catalog("en"))
    assert not [c for c in msg.components if parse_game_id(c.custom_id).verb == "show"]
