"""Small helpers shared by the engine tests (positions written as text, like scenario files)."""

from __future__ import annotations

import random

from rules_engine import PROFILES, Deal, Game, Rules, deal_from_seed, parse_action
from rules_engine.cards import CARD_TEXT, card_index, parse_suit


def mask(cards: str) -> int:
    """Bitmask of space-separated card texts."""
    m = 0
    for text in cards.split():
        m |= 1 << card_index(text)
    return m


def position(
    hands: list[str],
    *,
    trump: str,
    rules: str | Rules = "podkidnoy",
    stock: str = "",
    leader: int = 0,
    first_round: bool = False,
    discard: str = "",
    actions: tuple[str, ...] | list[str] = (),
) -> Game:
    """A game from a hand-written position, with ``actions`` applied (each must be legal)."""
    rules = rules if isinstance(rules, Rules) else PROFILES[rules]
    deal = Deal(
        hands=tuple(mask(h) for h in hands),
        stock=tuple(card_index(c) for c in stock.split()),
        trump=int(parse_suit(trump)),
        leader=leader,
        first_round=first_round,
        discard=mask(discard),
        deck=rules.deck,
    )
    game = Game(rules, deal)
    for text in actions:
        game.apply(parse_action(text))
    return game


def random_game(
    moves: int, *, players: int = 3, seed: int = 5, profile: str = "perevodnoy"
) -> Game:
    """A seeded deal played ``moves`` random legal actions on (fewer if the game ends)."""
    game = Game(PROFILES[profile], deal_from_seed(players, seed))
    rng = random.Random(seed)
    for _ in range(moves):
        if game.finished:
            break
        game.apply_code(rng.choice(game.legal_codes()))
    return game


def cards_text(m: int) -> set[str]:
    return {CARD_TEXT[i] for i in range(52) if m >> i & 1}


def public_cards(game: Game) -> int:
    """Cards anyone may have seen, rebuilt from RULES.md §8 without the engine's bookkeeping:
    cards shown at the deal, every card ever played (all actions are public: the table, the
    discard and every card picked up in a take come from them, and a shown trump stays in view),
    and the face-up trump card."""
    from rules_engine.actions import ATTACK, DEFEND, SHOW, TRANSFER

    seen = 0
    for c in game.deal.shown:
        seen |= 1 << c
    if game.deal.trump_card is not None:
        seen |= 1 << game.deal.trump_card
    seen |= game.deal.discard
    for entry in game.history:
        code = entry >> 3
        kind, payload = code & 7, code >> 3
        if kind in (ATTACK, TRANSFER, SHOW):
            seen |= payload
        elif kind == DEFEND:
            seen |= 1 << (payload & 63) | 1 << (payload >> 6)
    return seen


def hidden_from(game: Game, seat: int) -> int:
    """Cards ``seat`` must not learn: other hands' and the stock's cards nobody has seen."""
    others = 0
    for s, hand in enumerate(game.hands):
        if s != seat:
            others |= hand
    for c in game.stock:
        others |= 1 << c
    return others & ~public_cards(game)
