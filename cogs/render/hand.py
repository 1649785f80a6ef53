"""A player's private hand: its cards as buttons, paged, with the actions of a selected card,
and the private answer to a card that cannot be played now."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from bot.views import (
    ActionChoice,
    HandCard,
    HandView,
    Role,
)
from cogs.custom_ids import game_id
from cogs.i18n import Catalog
from cogs.render.message import (
    BLURPLE,
    BUTTONS_PER_ROW,
    CONTENT_MAX,
    GREY,
    LABEL_MAX,
    Button,
    Reply,
    Select,
    Style,
    clip,
    link_button,
    make_embed,
)
from cogs.render.text import card_md, cards_md, is_red, suit_md, when
from present.actions import action_label as present_action_label
from rules_engine.cards import Card, parse_card
from rules_engine.messages import N_, Message

__all__ = ["CARDS_PER_PAGE", "action_label", "actions_by_card", "render_hand", "render_why"]


#: Hand buttons per page: rows 0–3; row 4 is kept for Take / Pass / Transfer / paging.


CARDS_PER_PAGE = 20
_LAST_ROW = 4


def actions_by_card(view: HandView) -> dict[str, list[ActionChoice]]:
    """Every legal action that plays each card of the hand (the choice's ``uses``)."""
    out: dict[str, list[ActionChoice]] = {}
    for action in view.legal:
        for card in action.uses:
            out.setdefault(str(card), []).append(action)
    return out


def action_label(action: ActionChoice, t: Catalog) -> str:
    """A button label for a concrete action (:func:`present.actions.action_label`), cut to
    a button's length: ``Attack 8♥ 8♠``, ``Cover 9♠ with 10♠``…"""
    return clip(present_action_label(action, t), LABEL_MAX)


_ACTION_STYLE: dict[str, Style] = {
    "attack": "primary",
    "defend": "success",
    "transfer": "primary",
    "show": "primary",
    "take": "danger",
    "pass": "success",
}
_ACTION_EMOJI = {"take": "📥", "pass": "✅", "transfer": "↪️", "show": "👁️"}
#: The actions offered again on the last row, beside Take and Pass, while there is room.
_SHORTCUTS = ("transfer", "show")


def _card_style(card: Card) -> Style:
    return "danger" if is_red(card) else "primary"


def render_hand(
    view: HandView,
    t: Catalog,
    *,
    page: int = 0,
    selected: str | None = None,
    link: str | None = None,
) -> Reply:
    """The private hand: one button per card (the action itself when the card has exactly
    one, ``pick`` when it has several, ``why`` when it cannot be played), Take / Pass /
    Transfer / Show (a trump shown to transfer) and paging on the last row.  ``selected``:
    show that card's actions and Back.  ``link``: the player's web table address, an "Open
    the table" button on the last row."""
    gid, ver = view.game_id, view.version
    by_card = actions_by_card(view)
    pages = max(1, math.ceil(len(view.cards) / CARDS_PER_PAGE))
    page = min(max(int(page), 0), pages - 1)
    if selected is not None and selected not in by_card:
        selected = None
    components: list[Button | Select] = []
    used: set[str] = set()

    def add(action: str, label: str, style: Style, row: int, emoji: str | None = None) -> bool:
        cid = game_id(gid, ver, action)
        if cid in used:
            return False
        used.add(cid)
        components.append(Button(cid, clip(label, LABEL_MAX), style, emoji=emoji, row=row))
        return True

    if selected is not None:
        for i, action in enumerate(by_card[selected][:CARDS_PER_PAGE]):
            add(
                action.text,
                action_label(action, t),
                _ACTION_STYLE.get(action.kind, "primary"),
                i // BUTTONS_PER_ROW,
            )
    else:
        shown = view.cards[page * CARDS_PER_PAGE : (page + 1) * CARDS_PER_PAGE]
        for i, card in enumerate(shown):
            actions = by_card.get(card.text, [])
            if len(actions) == 1:
                emoji = (
                    _ACTION_EMOJI.get(actions[0].kind) if actions[0].kind in _SHORTCUTS else None
                )
                add(actions[0].text, card.text, _card_style(card.card), i // BUTTONS_PER_ROW, emoji)
            elif actions:
                add(f"pick {card.text}", card.text, _card_style(card.card), i // BUTTONS_PER_ROW)
            else:
                add(f"why {card.text}", card.text, "secondary", i // BUTTONS_PER_ROW)

    # The last row: Back or paging, Take, Pass, Transfer shortcuts.
    last: list[tuple[str, str, Style, str | None]] = []
    if selected is not None:
        last.append((f"page {page}", t.gettext("Back"), "secondary", "◀️"))
    elif page > 0:
        last.append((f"page {page - 1}", t.fill("Page {page}", page=page), "secondary", "◀️"))
    for action in view.legal:
        if action.kind in ("take", "pass"):
            last.append(
                (
                    action.text,
                    action_label(action, t),
                    _ACTION_STYLE[action.kind],
                    _ACTION_EMOJI[action.kind],
                )
            )
    nxt: tuple[str, str, Style, str | None] | None = None
    if selected is None and page < pages - 1:
        nxt = (f"page {page + 1}", t.fill("Page {page}", page=page + 2), "secondary", "▶️")
    room = BUTTONS_PER_ROW - len(last) - (1 if nxt else 0) - (1 if link else 0)
    for action in view.legal:
        if room <= 0:
            break
        if action.kind in _SHORTCUTS and game_id(gid, ver, action.text) not in used:
            last.append(
                (action.text, action_label(action, t), "primary", _ACTION_EMOJI[action.kind])
            )
            room -= 1
    if nxt:
        last.append(nxt)
    for action_text, label, style, emoji in last:
        add(action_text, label, style, _LAST_ROW, emoji)
    if link is not None:
        components.append(link_button(link, t.gettext("Open the table"), emoji="🌐", row=_LAST_ROW))

    embed = _hand_embed(view, t, by_card, page, pages, selected)
    return Reply(embeds=(embed,), components=tuple(components))


_YOUR_ROLE = {
    Role.LEADER: N_("You lead this round."),
    Role.ATTACKER: N_("You are the attacker."),
    Role.DEFENDER: N_("You are the defender."),
    Role.OUT: N_("You are out: no cards left."),
}


def _hand_embed(
    view: HandView,
    t: Catalog,
    by_card: dict[str, list[ActionChoice]],
    page: int,
    pages: int,
    selected: str | None,
) -> dict[str, Any]:
    lines: list[str] = []
    kinds = {a.kind for a in view.legal}
    if view.finished:
        lines.append(t.gettext("**The game is over.**"))
    elif view.your_turn:
        if "defend" in kinds or "take" in kinds:
            prompt = t.gettext("**Your turn: defend.**")
        elif "pass" in kinds:
            prompt = t.gettext("**Your turn: add cards or pass.**")
        else:
            prompt = t.gettext("**Your turn: lead the round.**")
        if view.deadline is not None:
            prompt += " " + t.fill("Time runs out {when}.", when=when(view.deadline))
        lines.append(prompt)
        attacks = sorted({a.cards[0] for a in view.legal if a.kind == "defend"})
        if attacks:
            lines.append(t.fill("To beat: {cards}", cards=cards_md(attacks)))
    else:
        lines.append(t.gettext("Waiting for the other players."))
    if view.autopilot and not view.finished:
        lines.append(t.gettext("🤖 You are on autopilot: press any button to play again."))
    role = None if view.role is None else _YOUR_ROLE[view.role]
    trump = t.fill("Trump: **{suit}**", suit=suit_md(view.trump))
    lines.append(trump + (" · " + t.gettext(role) if role else ""))
    lines.append("")
    if selected is not None:
        lines.append(
            t.fill("Choose what to do with **{card}**:", card=card_md(parse_card(selected)))
        )
        lines.append("")
    lines.extend(_hand_lines(view.cards, by_card, t))
    footer_parts = []
    if pages > 1:
        footer_parts.append(t.fill("Page {page}/{pages}", page=page + 1, pages=pages))
    if any(c.text not in by_card for c in view.cards) and not view.finished:
        footer_parts.append(t.gettext("Grey cards cannot be played now: press one to see why."))
    title = t.nfill("Your hand: {count} card", "Your hand: {count} cards", len(view.cards))
    return make_embed(
        title,
        "\n".join(lines),
        color=BLURPLE if view.your_turn else GREY,
        footer=" · ".join(footer_parts) or None,
    )


def _hand_lines(
    cards: Sequence[HandCard], by_card: dict[str, list[ActionChoice]], t: Catalog
) -> list[str]:
    """The whole hand as text, one line per suit (trumps last, as sorted by the service);
    playable cards in bold."""
    if not cards:
        return ["*" + t.gettext("No cards.") + "*"]
    groups: dict[str, list[HandCard]] = {}
    for card in cards:
        groups.setdefault(card.text[-1], []).append(card)
    lines = []
    for suit, group in groups.items():
        texts = [f"**{card_md(c.card)}**" if c.text in by_card else card_md(c.card) for c in group]
        head = suit_md(suit)
        if group[0].trump:
            head += " " + t.gettext("(trumps)")
        lines.append(f"{head}  " + "  ".join(texts))
    return lines


def render_why(card: Card, reason: Message, t: Catalog, names: Sequence[str] = ()) -> Reply:
    """The private answer to a greyed card: ``reason`` is the engine's; ``names`` name its
    ``Seat`` parameters."""
    text = t.fill(
        "{card} cannot be played now: {reason}",
        card=card_md(card),
        reason=t.render(reason, names, card_text=card_md),
    )
    return Reply(content=clip("🚫 " + text, CONTENT_MAX))
