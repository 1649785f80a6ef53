"""Every custom id the components accept is routed by the cog's one table of actions."""

from __future__ import annotations

import pytest

from cogs.custom_ids import (
    FORGET_ACTIONS,
    GAME_ACTIONS,
    HISTORY_NAVS,
    LOBBY_ACTIONS,
    REPLAY_NAVS,
    REVIEW_NAVS,
    forget_id,
    game_id,
    history_id,
    lobby_id,
    parse_forget_id,
    parse_game_id,
    parse_history_id,
    parse_lobby_id,
    parse_replay_id,
    parse_review_id,
    replay_id,
    review_id,
    route_of,
)
from cogs.durak_commands import ROUTES, Defer, DurakCog

GAME_IDS = [
    game_id(7, 3, "attack 8♥ 8♠"),
    game_id(7, 3, "defend 8♥ 9♥"),
    game_id(7, 3, "transfer 9♦"),
    game_id(7, 3, "show 9♦"),
    game_id(7, 3, "attack 2♠ 2♥"),  # a 52-card pack's ranks
    game_id(7, 3, "take"),
    game_id(7, 3, "pass"),
    game_id(7, 3, "pick 10♦"),
    game_id(7, 3, "why 6♣"),
    game_id(7, 3, "page 1"),
    game_id(7, 0, "hand"),
    game_id(7, 3, "rematch"),
    game_id(7, 3, "endseries"),
    game_id(7, 3, "stop"),
    game_id(7, 3, "keep"),
    game_id(7, 3, "leave"),
    game_id(7, 0, "forfeit"),
]


@pytest.mark.parametrize(
    "button",
    [
        *(parse_game_id(c) for c in GAME_IDS),
        *(parse_lobby_id(lobby_id(5, a)) for a in LOBBY_ACTIONS),
        *(parse_replay_id(replay_id(7, 2, n)) for n in REPLAY_NAVS),
        *(parse_review_id(review_id(7, 1, n)) for n in REVIEW_NAVS),
        *(parse_history_id(history_id(9, 2, n)) for n in HISTORY_NAVS),
        *(parse_forget_id(forget_id(9, 1_700_000_300, a)) for a in FORGET_ACTIONS),
    ],
    ids=str,
)
def test_every_button_has_a_route_to_a_handler_of_the_cog(button: object) -> None:
    route = ROUTES[route_of(button)]  # type: ignore[arg-type]
    assert getattr(DurakCog, route.run.__name__) is route.run


def test_the_table_has_no_route_that_no_custom_id_reaches() -> None:
    reachable = {route_of(parse_game_id(c)) for c in GAME_IDS}
    reachable |= {("lobby", a) for a in LOBBY_ACTIONS}
    reachable |= {("replay", n) for n in REPLAY_NAVS} | {("history", n) for n in HISTORY_NAVS}
    reachable |= {("forget", a) for a in FORGET_ACTIONS} | {("review", n) for n in REVIEW_NAVS}
    assert set(ROUTES) == reachable


def test_how_presses_are_acknowledged() -> None:
    # a new private message: Show my hand, the table's Leave (its confirmation), a new replay
    for key in [("game", "hand"), ("game", "leave"), ("replay", "open"), ("review", "open")]:
        assert ROUTES[key].defer is Defer.PRIVATE
    # the public message pressed is edited: stop votes, forfeit's confirmation, game over, lobby
    for verb in ["stop", "keep", "forfeit", "rematch", "endseries"]:
        assert ROUTES["game", verb].defer is Defer.UPDATE
    assert all(ROUTES["lobby", a].defer is Defer.UPDATE for a in LOBBY_ACTIONS)
    # a private message edited in place: a hand's buttons, replay navigation, history pages,
    # forget-me's confirmation
    for verb in [*GAME_ACTIONS, "pick", "why", "page"]:
        assert ROUTES["game", verb].defer is Defer.IN_PLACE
    assert ROUTES["replay", "next"].defer is Defer.IN_PLACE
    assert ROUTES["review", "prev"].defer is ROUTES["review", "next"].defer is Defer.IN_PLACE
    assert ROUTES["history", "prev"].defer is Defer.IN_PLACE
    assert all(ROUTES["forget", a].defer is Defer.IN_PLACE for a in FORGET_ACTIONS)


def test_the_subcommands_are_sent_to_discord_in_one_fixed_order() -> None:
    from cogs.durak_commands import SUBCOMMAND_ORDER

    assert [c.name for c in DurakCog.durak.commands] == list(SUBCOMMAND_ORDER)
