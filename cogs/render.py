"""Pure rendering of the service's views into Discord message data (no I/O, no discord objects).

Every function returns plain data that the adapter converts: :class:`Reply` with embeds as
Discord embed JSON dicts (``discord.Embed.from_dict``) and components as :class:`Button` /
:class:`Select` (classic ``ui.View`` layout: rows 0–4, ≤ 5 buttons per row, a select fills a
row).  Every user-visible string goes through the :class:`~cogs.i18n.Catalog`.

Card colours: on buttons, playable red cards (♥ ♦) are ``danger`` (red) and playable black cards
(♠ ♣) ``primary``; cards that cannot be played now are ``secondary`` (grey) but stay enabled,
since pressing one explains why.  In embed text, red suits carry the emoji variation selector
(``10♦️`` shows a red diamond) and black suits stay text glyphs; the card text itself is always
rank then suit, e.g. ``10♦``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from bot.ratings import Rating
from bot.replay import ReplayFrame
from bot.replay import TablePair as ReplayPair
from bot.server_config import ServerConfig
from bot.views import (
    ActionChoice,
    ActionRecord,
    HandCard,
    HandView,
    HistoryPage,
    LeaderboardPage,
    LobbyView,
    ReplayView,
    Role,
    SeatView,
    SeriesView,
    StatsView,
    TableView,
)
from cogs.custom_ids import game_id, history_id, lobby_id, replay_id
from cogs.i18n import COMMANDS, Catalog
from rules_engine.actions import ActionKind
from rules_engine.cards import Card, parse_card
from rules_engine.messages import N_, Message
from rules_engine.rules import Rules

__all__ = [
    "AI_LEVELS",
    "CARDS_PER_PAGE",
    "HELP_COMMANDS",
    "NEEDED_PERMISSIONS",
    "Button",
    "Reply",
    "Select",
    "SelectOption",
    "card_md",
    "render_config",
    "render_error",
    "render_hand",
    "render_help",
    "render_hidden",
    "render_history",
    "render_leaderboard",
    "render_lobby",
    "render_missing_permissions",
    "render_notice",
    "render_replay",
    "render_rules",
    "render_series",
    "render_stats",
    "render_table",
    "render_why",
    "rules_title",
    "seat_names",
    "suit_md",
]

Style = Literal["primary", "secondary", "success", "danger"]


@dataclass(frozen=True, slots=True)
class Button:
    custom_id: str
    label: str
    style: Style = "secondary"
    disabled: bool = False
    emoji: str | None = None
    row: int = 0


@dataclass(frozen=True, slots=True)
class SelectOption:
    label: str
    value: str
    description: str | None = None


@dataclass(frozen=True, slots=True)
class Select:
    custom_id: str
    placeholder: str
    options: tuple[SelectOption, ...]
    row: int = 0


@dataclass(frozen=True, slots=True)
class Reply:
    """A Discord message to send or edit: text, embed dicts and components."""

    content: str | None = None
    embeds: tuple[dict[str, Any], ...] = ()
    components: tuple[Button | Select, ...] = ()


# ------------------------------------------------------------------------------ constants
#: AI levels offered by the lobby's select (values are what the service accepts).
AI_LEVELS = ("beginner", "casual", "counter", "expert")
_AI_LABELS = {
    "beginner": (N_("Beginner"), N_("Plays legal cards, prefers cheap ones")),
    "casual": (N_("Casual"), N_("Sound habits: sheds low cards, saves trumps")),
    "counter": (N_("Counter"), N_("Tracks every card seen")),
    "expert": (N_("Expert"), N_("Searches the possible deals; exact endgame")),
}
#: Hand buttons per page: rows 0–3; row 4 is kept for Take / Pass / Transfer / paging.
CARDS_PER_PAGE = 20
_ROW = 5
_LAST_ROW = 4

GREEN, RED, GREY, BLURPLE, GOLD = 0x2E7D32, 0xDD2E44, 0x4F545C, 0x5865F2, 0xF1C40F
RED_SUITS = frozenset("♥♦")

# Discord limits
LABEL_MAX, CONTENT_MAX, TITLE_MAX, DESCRIPTION_MAX = 80, 2000, 256, 4096
FIELD_NAME_MAX, FIELD_VALUE_MAX, FOOTER_MAX, FIELDS_MAX, EMBED_MAX = 256, 1024, 2048, 25, 6000
NAME_MAX = 40  # names shown in embeds (the service allows 64)
RECENT_SHOWN = 6


# ------------------------------------------------------------------------------ helpers
def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _clip_lines(lines: Sequence[str], limit: int, more: str = "…") -> str:
    """Join lines, dropping the last ones (replaced by ``more``) to stay within ``limit``."""
    text = "\n".join(lines)
    if len(text) <= limit:
        return text
    kept: list[str] = []
    size = len(more)
    for line in lines:
        if size + len(line) + 1 > limit:
            break
        kept.append(line)
        size += len(line) + 1
    return _clip("\n".join([*kept, more]), limit)


_MD_SPECIAL = "\\*_`~|>[]<@"


def _esc(name: str, limit: int = NAME_MAX) -> str:
    """A display name safe inside markdown (no formatting, links, mentions or emoji codes)."""
    name = " ".join(str(name).split()) or "?"
    name = _clip(name, limit)
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in name)


def suit_md(symbol: str) -> str:
    """A suit symbol for embed text: red suits as (red) emoji, black suits as text."""
    return symbol + "\ufe0f" if symbol in RED_SUITS else symbol


def card_md(card: Card) -> str:
    """A card for embed text: red suits as (red) emoji, black suits as text: ``10♦️``, ``J♠``."""
    text = str(card)
    return text[:-1] + suit_md(text[-1])


def _cards_md(cards: Iterable[Card]) -> str:
    return " ".join(card_md(c) for c in cards)


def _is_red(card: Card) -> bool:
    return str(card)[-1:] in RED_SUITS


class Seated(Protocol):
    """A seat as the views describe it (``SeatView``, ``LobbySeat``, ``SeriesEntry``,
    ``Player``): a display name, and the AI level of an AI seat."""

    @property
    def name(self) -> str:
        """The display name (the service's English name for an AI seat)."""
        ...

    @property
    def ai_level(self) -> str | None:
        """The AI level of an AI seat; ``None`` for a human."""
        ...


def seat_names(seats: Sequence[Seated], t: Catalog) -> list[str]:
    """The seats' names as the reader sees them, safe in markdown (also the names of ``Seat``
    parameters of messages): a human's display name; an AI seat named after its level in the
    reader's language (``IA Casual``), numbered from the second AI of a level on."""
    names: list[str] = []
    count: Counter[str] = Counter()
    for s in seats:
        if s.ai_level is None:
            names.append(_esc(s.name))
            continue
        count[s.ai_level] += 1
        name = t.fill("{level} AI", level=_ai_label(s.ai_level, t))
        names.append(_esc(name if count[s.ai_level] == 1 else f"{name} {count[s.ai_level]}"))
    return names


def _bold(names: Sequence[str]) -> list[str]:
    return [f"**{name}**" for name in names]


def _when(deadline: float) -> str:
    return f"<t:{int(deadline)}:R>"


def _field(name: str, value: str, inline: bool = False) -> dict[str, Any]:
    return {
        "name": _clip(name, FIELD_NAME_MAX) or "\u200b",
        "value": _clip(value, FIELD_VALUE_MAX) or "\u200b",
        "inline": inline,
    }


def _embed(
    title: str,
    description: str = "",
    *,
    color: int = GREEN,
    fields: Sequence[dict[str, Any]] = (),
    footer: str | None = None,
) -> dict[str, Any]:
    """An embed dict within Discord's limits (each part clipped, total ≤ 6000)."""
    embed: dict[str, Any] = {"title": _clip(title, TITLE_MAX), "color": color, "type": "rich"}
    fields = list(fields)[:FIELDS_MAX]
    footer = _clip(footer, FOOTER_MAX) if footer else None
    used = len(embed["title"]) + (len(footer) if footer else 0)
    used += sum(len(f["name"]) + len(f["value"]) for f in fields)
    while fields and used > EMBED_MAX - 200:  # keep room for a description
        dropped = fields.pop()
        used -= len(dropped["name"]) + len(dropped["value"])
    room = min(DESCRIPTION_MAX, EMBED_MAX - used)
    if description:
        embed["description"] = _clip_lines(description.split("\n"), room)
    if fields:
        embed["fields"] = fields
    if footer:
        embed["footer"] = {"text": footer}
    return embed


def _seat_name(names: Sequence[str], seat: int | None, t: Catalog) -> str:
    if seat is not None and 0 <= seat < len(names):
        return names[seat]
    return t.render(Message("player {number}", number=(seat or 0) + 1))


# ------------------------------------------------------------------------------ lobby
def render_lobby(view: LobbyView, t: Catalog) -> Reply:
    """The public lobby: rules summary, seats, Join / Leave / Start / Stop and the AI select."""
    lines = [
        t.fill("Host: **{name}**", name=_esc(view.host_name)),
        *_rules_lines(view.rules, t),
        t.fill("Turn time: {seconds} s", seconds=view.turn_timeout),
    ]
    if view.status == "closed":
        lines.insert(0, t.gettext("**This lobby is closed.**"))
    elif view.status == "started":
        lines.insert(0, t.gettext("**The game has started.**"))
    seats = []
    names = seat_names(view.seats, t)
    for i in range(max(view.max_seats, len(view.seats))):
        if i < len(view.seats):
            s = view.seats[i]
            line = f"`{i + 1}` " + names[i]
            if s.ai_level:
                line += " · " + t.fill("🤖 AI ({level})", level=_ai_label(s.ai_level, t))
            if s.user_id is not None and s.user_id == view.host_id:
                line += " · " + t.gettext("host")
        else:
            line = f"`{i + 1}` " + t.gettext("*free seat*")
        seats.append(line)
    fields = [
        _field(
            t.fill("Seats ({taken}/{total})", taken=len(view.seats), total=view.max_seats),
            _clip_lines(seats, FIELD_VALUE_MAX),
        )
    ]
    footer = None
    if view.status == "open":
        footer = t.gettext(
            "Press Join to take a seat. The host adds AI players and presses Start (2–6 seats)."
        )
    embed = _embed(
        t.fill("Durak lobby — {rules}", rules=rules_title(view.rules, t)),
        "\n".join(lines),
        color=BLURPLE if view.status == "open" else GREY,
        fields=fields,
        footer=footer,
    )
    components: list[Button | Select] = []
    if view.status == "open":
        ch = view.channel_id
        full = len(view.seats) >= view.max_seats
        components += [
            Button(lobby_id(ch, "join"), t.gettext("Join"), "success", disabled=full, row=0),
            Button(lobby_id(ch, "leave"), t.gettext("Leave"), "secondary", row=0),
            Button(
                lobby_id(ch, "start"),
                t.gettext("Start"),
                "primary",
                disabled=not view.can_start,
                row=0,
            ),
            Button(lobby_id(ch, "stop"), t.gettext("Stop"), "danger", row=0),
        ]
        if not full:
            options = tuple(
                SelectOption(
                    _clip(t.gettext(_AI_LABELS[level][0]), 100),
                    level,
                    _clip(t.gettext(_AI_LABELS[level][1]), 100),
                )
                for level in AI_LEVELS
            )
            components.append(
                Select(lobby_id(ch, "addai"), t.gettext("Add an AI player…"), options, row=1)
            )
    return Reply(embeds=(embed,), components=tuple(components))


def _ai_label(level: str, t: Catalog) -> str:
    label = _AI_LABELS.get(level)
    return t.gettext(label[0]) if label else _esc(level)


def rules_title(rules: Rules, t: Catalog) -> str:
    """A rule set's name: its profile (a proper name, not translated), else "custom rules"
    (the options themselves are listed by :func:`_rules_lines`)."""
    return rules.profile or t.gettext("custom rules")


def _rules_lines(rules: Rules, t: Catalog) -> list[str]:
    return [
        t.gettext("Everyone may add cards to an attack")
        if rules.throw_in == "all"
        else t.gettext("Only the defender's neighbours may add cards"),
        t.fill("First round: at most {limit} attacks", limit=rules.first_round_limit),
        t.gettext("The defender may transfer the attack")
        if rules.transfer
        else t.gettext("No transfers"),
    ]


# ------------------------------------------------------------------------------ table
_ROLES = {
    Role.LEADER: N_("leader"),
    Role.ATTACKER: N_("attacker"),
    Role.DEFENDER: N_("defender"),
    Role.OUT: N_("out"),
}


def _describe(rec: ActionRecord, names: Sequence[str], t: Catalog) -> str:
    text = t.render(rec.message, names, card_text=card_md)
    if rec.auto == "timeout":
        text += " " + t.gettext("(time ran out)")
    elif rec.auto == "autopilot":
        text += " " + t.gettext("(autopilot)")
    return text


def _seat_line(s: SeatView, name: str, t: Catalog, finished: bool) -> str:
    marker = "▶" if s.to_act and not finished else "•"
    parts = [f"{marker} **{name}**"]
    if s.ai_level:
        parts[0] += " 🤖"
    parts.append(t.nfill("{count} card", "{count} cards", s.cards))
    if s.role is not None:
        parts.append(t.gettext(_ROLES[s.role]))
    elif s.out:
        parts.append(t.gettext(_ROLES[Role.OUT]))
    if s.forfeited:
        parts.append(t.gettext("left: the AI plays"))
    elif s.autopilot:
        parts.append(t.gettext("autopilot"))
    return " · ".join(parts)


def render_table(view: TableView, t: Catalog) -> Reply:
    """The public table: trump, stock, pairs, seats and roles, whose turn with a countdown,
    the last actions and Show my hand; when finished: the durak (or draw), the series
    standings, Rematch and End series."""
    seats = view.seats
    names = seat_names(seats, t)
    finished = view.finished or view.aborted
    lines: list[str] = []
    if view.aborted and any(s.forfeited for s in seats):
        lines.append(
            t.gettext("🛑 **The game was stopped: no result is recorded, except forfeits.**")
        )
    elif view.aborted:
        lines.append(t.gettext("🛑 **The game was stopped: no loss is recorded.**"))
    elif view.finished:
        if view.draw or view.loser is None:
            lines.append(t.gettext("🤝 **A draw: nobody is the durak.**"))
        else:
            lines.append(
                t.fill("🃏 **{name} is the durak!**", name=_seat_name(names, view.loser, t))
            )
    if view.trump_card:
        lines.append(
            t.fill(
                "Trump: **{suit}** — {card} lies under the stock",
                suit=suit_md(view.trump),
                card=card_md(view.trump_card),
            )
        )
    else:
        lines.append(t.fill("Trump: **{suit}**", suit=suit_md(view.trump)))
    lines.append(
        t.fill(
            "Stock: {stock} · Discard: {discard} · Round {round}",
            stock=view.stock,
            discard=view.discard,
            round=view.round,
        )
    )
    if view.shown and view.round <= 1 and not finished:
        lines.append(t.fill("Shown at the deal: {cards}", cards=_cards_md(view.shown)))
    if not finished:
        lines.append("")
        if view.pairs:
            header = (
                t.fill("**On the table** (limit {limit}):", limit=view.limit)
                if view.limit is not None
                else t.gettext("**On the table:**")
            )
            lines.append(header)
            pair_texts = [
                f"{card_md(p.attack)} ⟵ {card_md(p.defence)}"
                if p.defence
                else f"{card_md(p.attack)} ⟵ ❔"
                for p in view.pairs
            ]
            lines.append("   ".join(pair_texts))
        else:
            lines.append(t.gettext("*The table is empty.*"))
        defender = next((s.seat for s in seats if s.role is Role.DEFENDER), None)
        if view.taking and defender is not None:
            lines.append(
                t.fill(
                    "📥 **{name}** takes: the attackers may still add cards", name=names[defender]
                )
            )
        if view.to_act is not None:
            name = _seat_name(names, view.to_act, t)
            if view.waiting_for == "defend":
                turn = t.fill("⏳ **{name}** to defend", name=name)
            elif view.waiting_for == "lead":
                turn = t.fill("⏳ **{name}** to lead the round", name=name)
            elif view.waiting_for == "add":
                turn = t.fill("⏳ **{name}** may add cards or pass", name=name)
            else:
                turn = t.fill("⏳ **{name}** to play", name=name)
            if view.deadline is not None:
                turn += " — " + t.fill("time runs out {when}", when=_when(view.deadline))
            lines.append(turn)
        if view.stop_vote is not None:
            yes, total = view.stop_vote
            vote = "🛑 **" + t.fill("Stop? {yes}/{total}", yes=yes, total=total) + "** — "
            vote += t.gettext("every player must press Stop to end the game")
            if view.stop_vote_deadline is not None:
                vote += " " + t.fill("(until {when})", when=_when(view.stop_vote_deadline))
            lines.append(vote)
    fields = [
        _field(
            t.gettext("Players"),
            _clip_lines(
                [_seat_line(s, names[s.seat], t, finished) for s in seats], FIELD_VALUE_MAX
            ),
        )
    ]
    if view.recent:
        bold = _bold(names)
        recent = [_describe(r, bold, t) for r in view.recent[-RECENT_SHOWN:]]
        fields.append(_field(t.gettext("Last moves"), _clip_lines(recent, FIELD_VALUE_MAX)))
    if finished and view.series is not None and not view.aborted:
        fields.append(_field(*_standings(view.series, t)))
    title = (
        t.fill("Durak — {rules} · game over", rules=rules_title(view.rules, t))
        if finished
        else t.fill("Durak — {rules}", rules=rules_title(view.rules, t))
    )
    color = GREY if view.aborted else (RED if view.finished else GREEN)
    embed = _embed(
        title,
        "\n".join(lines),
        color=color,
        fields=fields,
        footer=t.fill("Game {game} · move {version}", game=view.game_id, version=view.version),
    )
    components: list[Button | Select] = []
    gid, ver = view.game_id, view.version
    if not finished:
        stop_label = (
            t.gettext("Stop")
            if view.stop_vote is None
            else t.fill("Stop? {yes}/{total}", yes=view.stop_vote[0], total=view.stop_vote[1])
        )
        components += [
            Button(game_id(gid, ver, "hand"), t.gettext("Show my hand"), "primary", emoji="🃏"),
            Button(game_id(gid, ver, "stop"), stop_label, "danger", emoji="🛑"),
        ]
        if view.stop_vote is not None:
            components.append(
                Button(game_id(gid, ver, "keep"), t.gettext("Keep playing"), "success")
            )
        components.append(Button(game_id(gid, ver, "leave"), t.gettext("Leave"), "secondary"))
    elif not view.aborted and (view.series is None or view.series.active):
        components += [
            Button(game_id(gid, ver, "rematch"), t.gettext("Rematch"), "success", emoji="🔁"),
            Button(game_id(gid, ver, "endseries"), t.gettext("End series"), "danger", emoji="🏁"),
        ]
    return Reply(embeds=(embed,), components=tuple(components))


def _standings(series: SeriesView, t: Catalog) -> tuple[str, str]:
    name = t.nfill("Series: {count} game", "Series: {count} games", series.games)
    if series.draws:
        name += " · " + t.nfill("{count} draw", "{count} draws", series.draws)
    lines = []
    in_seat_order = sorted(series.standings, key=lambda e: e.seat)
    names = dict(zip((e.seat for e in in_seat_order), seat_names(in_seat_order, t), strict=True))
    for e in sorted(series.standings, key=lambda e: (e.losses, e.seat)):
        line = (
            f"**{names[e.seat]}**"
            + (" 🤖" if e.ai_level else "")
            + " — "
            + t.nfill("{count} loss", "{count} losses", e.losses)
        )
        if series.last_loser is not None and e.seat == series.last_loser:
            line += " · " + t.gettext("durak of the last game")
        lines.append(line)
    return name, _clip_lines(lines, FIELD_VALUE_MAX) or t.gettext("*nobody*")


# ------------------------------------------------------------------------------ hand
def _hand_cards(action: ActionChoice) -> tuple[Card, ...]:
    """The cards of the player's hand that ``action`` plays."""
    if action.kind is ActionKind.DEFEND:
        return action.cards[1:]
    if action.kind in (ActionKind.ATTACK, ActionKind.TRANSFER):
        return action.cards
    return ()


def actions_by_card(view: HandView) -> dict[str, list[ActionChoice]]:
    """Every legal action that plays each card of the hand."""
    out: dict[str, list[ActionChoice]] = {}
    for action in view.legal:
        for card in _hand_cards(action):
            out.setdefault(str(card), []).append(action)
    return out


def action_label(action: ActionChoice, t: Catalog) -> str:
    """A button label for a concrete action: ``Attack 8♥ 8♠``, ``Cover 9♠ with 10♠``…"""
    cards = " ".join(map(str, action.cards))
    if action.kind == "attack":
        label = t.fill("Attack {cards}", cards=cards)
    elif action.kind == "defend" and len(action.cards) == 2:
        label = t.fill("Cover {attack} with {card}", attack=action.cards[0], card=action.cards[1])
    elif action.kind == "transfer":
        label = t.fill("Transfer {cards}", cards=cards)
    elif action.kind == "take":
        label = t.gettext("Take")
    elif action.kind == "pass":
        label = t.gettext("Pass")
    else:
        label = action.text
    return _clip(label, LABEL_MAX)


_ACTION_STYLE: dict[str, Style] = {
    "attack": "primary",
    "defend": "success",
    "transfer": "primary",
    "take": "danger",
    "pass": "success",
}
_ACTION_EMOJI = {"take": "📥", "pass": "✅", "transfer": "↪️"}


def _card_style(card: Card) -> Style:
    return "danger" if _is_red(card) else "primary"


def render_hand(view: HandView, t: Catalog, *, page: int = 0, selected: str | None = None) -> Reply:
    """The private hand: one button per card (the action itself when the card has exactly
    one, ``pick`` when it has several, ``why`` when it cannot be played), Take / Pass /
    Transfer and paging on the last row.  ``selected``: show that card's actions and Back."""
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
        components.append(Button(cid, _clip(label, LABEL_MAX), style, emoji=emoji, row=row))
        return True

    if selected is not None:
        for i, action in enumerate(by_card[selected][:CARDS_PER_PAGE]):
            add(
                action.text,
                action_label(action, t),
                _ACTION_STYLE.get(action.kind, "primary"),
                i // _ROW,
            )
    else:
        shown = view.cards[page * CARDS_PER_PAGE : (page + 1) * CARDS_PER_PAGE]
        for i, card in enumerate(shown):
            actions = by_card.get(card.text, [])
            if len(actions) == 1:
                emoji = "↪️" if actions[0].kind == "transfer" else None
                add(actions[0].text, card.text, _card_style(card.card), i // _ROW, emoji)
            elif actions:
                add(f"pick {card.text}", card.text, _card_style(card.card), i // _ROW)
            else:
                add(f"why {card.text}", card.text, "secondary", i // _ROW)

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
    room = _ROW - len(last) - (1 if nxt else 0)
    for action in view.legal:
        if room <= 0:
            break
        if action.kind == "transfer" and game_id(gid, ver, action.text) not in used:
            last.append((action.text, action_label(action, t), "primary", "↪️"))
            room -= 1
    if nxt:
        last.append(nxt)
    for action_text, label, style, emoji in last:
        add(action_text, label, style, _LAST_ROW, emoji)

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
            prompt += " " + t.fill("Time runs out {when}.", when=_when(view.deadline))
        lines.append(prompt)
        attacks = sorted({a.cards[0] for a in view.legal if a.kind == "defend"})
        if attacks:
            lines.append(t.fill("To beat: {cards}", cards=_cards_md(attacks)))
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
    return _embed(
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
        return [t.gettext("*No cards.*")]
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
    return Reply(content=_clip("🚫 " + text, CONTENT_MAX))


# ------------------------------------------------------------------------------ series, stats
def render_series(view: SeriesView, t: Catalog) -> Reply:
    """``/durak series``: loss counts of the channel's series."""
    name, value = _standings(view, t)
    lines = [t.fill("Rules: **{rules}**", rules=rules_title(view.rules, t))]
    if not view.active:
        lines.append(t.gettext("This series is over."))
    embed = _embed(
        t.gettext("Durak series"), "\n".join(lines), color=GOLD, fields=[_field(name, value)]
    )
    return Reply(embeds=(embed,))


def _percent(rate: float) -> str:
    return f"{rate * 100:.0f}%"


def _rating_text(rating: Rating, t: Catalog) -> str:
    """A rating as players read it: the conservative estimate, then mean ± uncertainty."""
    return t.fill(
        "rating **{rating}** ({mu} ± {sigma})",
        rating=rating.display,
        mu=format(rating.mu, ".1f"),
        sigma=format(rating.sigma, ".1f"),
    )


def _totals(games: int, losses: int, draws: int, t: Catalog) -> str:
    return (
        t.nfill("{count} game", "{count} games", games)
        + " · "
        + t.nfill("{count} loss", "{count} losses", losses)
        + " · "
        + t.nfill("{count} draw", "{count} draws", draws)
    )


def render_stats(view: StatsView, t: Catalog) -> Reply:
    """``/durak stats``: one player's games, losses, draws and loss rate, and their rating
    (± uncertainty) per rule profile; their games against each AI level apart."""
    name = _esc(view.name) if view.name else f"<@{view.user_id}>"
    title = t.fill("Durak stats — {name}", name=_clip(view.name or str(view.user_id), 80))
    if not view.games:
        desc = t.fill("{name} has not finished a game here yet.", name=name)
        return Reply(embeds=(_embed(title, desc, color=GOLD),))
    desc = "\n".join(
        [
            _totals(view.games, view.losses, view.draws, t) + _forfeits(view.forfeits, t),
            t.fill("Loss rate: **{rate}**", rate=_percent(view.loss_rate)),
        ]
    )
    if view.profile:
        desc = t.fill("Rules: **{rules}**", rules=view.profile) + "\n" + desc
    lines = []
    for p in view.by_profile:
        line = f"**{_esc(p.profile)}** — " + _totals(p.games, p.losses, p.draws, t)
        line += _forfeits(p.forfeits, t)
        line += " · " + _percent(p.loss_rate)
        if p.rating is not None:
            line += "\n   " + _rating_text(p.rating, t)
            line += " · " + t.nfill("{count} rated game", "{count} rated games", p.rated_games)
        else:
            line += "\n   " + t.gettext("not rated yet")
        lines.append(line)
    fields = [_field(t.gettext("By rules"), _clip_lines(lines, FIELD_VALUE_MAX))] if lines else []
    ai_lines = []
    for a in view.by_ai_level:
        label = _esc(t.fill("{level} AI", level=_ai_label(a.level, t)))
        ai_lines.append(
            f"**{label}** — "
            + _totals(a.games, a.losses, a.draws, t)
            + " · "
            + _percent(a.loss_rate)
        )
    if ai_lines:
        fields.append(
            _field(t.gettext("Games with AI players"), _clip_lines(ai_lines, FIELD_VALUE_MAX))
        )
    return Reply(embeds=(_embed(title, desc, color=GOLD, fields=fields),))


def _forfeits(n: int, t: Catalog) -> str:
    """`` · N forfeits`` (each already among the losses), or nothing when there are none."""
    return " · " + t.nfill("{count} forfeit", "{count} forfeits", n) if n else ""


def render_leaderboard(view: LeaderboardPage, t: Catalog) -> Reply:
    """``/durak leaderboard``: a page of the server's rated players of one rule profile, by
    the conservative estimate of their rating, with their games and losses beside it."""
    title = (
        t.fill("Durak leaderboard — {rules}", rules=view.profile)
        if view.profile
        else t.gettext("Durak leaderboard")
    )
    lines = [
        f"`{r.rank:>3}` **{_esc(r.name)}** — **{r.display}** · "
        + t.nfill("{count} game", "{count} games", r.games)
        + " · "
        + t.nfill("{count} loss", "{count} losses", r.losses)
        + (" · " + t.nfill("{count} draw", "{count} draws", r.draws) if r.draws else "")
        for r in view.rows
    ]
    if not lines:
        lines = [
            t.nfill(
                "Nobody has {count} rated game yet.",
                "Nobody has {count} rated games yet.",
                view.min_games,
            )
        ]
    footer = (
        t.fill("Page {page}/{pages}", page=view.page, pages=view.pages)
        + " · "
        + t.nfill("{count} player", "{count} players", view.total_players)
        + " · "
        + t.nfill("at least {count} rated game", "at least {count} rated games", view.min_games)
        + " · "
        + t.gettext("rating: mean − 3 × uncertainty")
    )
    return Reply(embeds=(_embed(title, "\n".join(lines), color=GOLD, footer=footer),))


# ------------------------------------------------------------------------------ history, replay
def render_history(view: HistoryPage, t: Catalog) -> Reply:
    """``/durak history``: a page of the server's (or a player's) ended games, newest first,
    each with when, rules, players and result, a Replay button per finished game (rows 0–1)
    and ◀ ▶ to the previous and next page (row 2)."""
    title = t.gettext("Durak history")
    lines: list[str] = []
    if view.user_id is not None:
        lines.append(t.fill("Games of {name}", name="<@" + str(view.user_id) + ">"))
    components: list[Button | Select] = []
    for entry in view.entries:
        names = seat_names(entry.players, t)
        if entry.result == "loss":
            result = t.fill("🃏 **{name}** is the durak", name=_seat_name(names, entry.loser, t))
        elif entry.result == "draw":
            result = t.gettext("🤝 a draw")
        else:
            result = t.gettext("🛑 stopped: no result")
        lines.append(
            f"`#{entry.game_id}` <t:{int(entry.ended_at)}:f> · **{rules_title(entry.rules, t)}**"
        )
        lines.append("   " + ", ".join(names) + " — " + result)
        if entry.replayable and len(components) < 2 * _ROW:
            components.append(
                Button(
                    replay_id(entry.game_id, 0, "open"),
                    _clip(t.fill("Replay #{game}", game=entry.game_id), LABEL_MAX),
                    "secondary",
                    emoji="🎞️",
                    row=len(components) // _ROW,
                )
            )
    if view.page > 1:
        components.append(
            Button(
                history_id(view.user_id, view.page - 1, "prev"),
                t.fill("Page {page}", page=view.page - 1),
                emoji="◀️",
                row=2,
            )
        )
    if view.page < view.pages:
        components.append(
            Button(
                history_id(view.user_id, view.page + 1, "next"),
                t.fill("Page {page}", page=view.page + 1),
                emoji="▶️",
                row=2,
            )
        )
    if not view.entries:
        lines.append(t.gettext("No finished game here yet."))
    footer = (
        t.fill("Page {page}/{pages}", page=view.page, pages=view.pages)
        + " · "
        + t.nfill("{count} game", "{count} games", view.total)
    )
    embed = _embed(title, "\n".join(lines), color=BLURPLE, footer=footer)
    return Reply(embeds=(embed,), components=tuple(components))


def _pairs_md(pairs: Sequence[ReplayPair]) -> str:
    return "   ".join(
        f"{card_md(p.attack)} ⟵ {card_md(p.defence)}" if p.defence else f"{card_md(p.attack)} ⟵ ❔"
        for p in pairs
    )


def _replay_seat(frame: ReplayFrame, seat: int, name: str, t: Catalog) -> str:
    marks = []
    if frame.loser == seat:
        marks.append(t.gettext("🃏 durak"))
    elif seat in frame.out:
        marks.append(t.gettext(_ROLES[Role.OUT]))
    if seat in frame.forfeited:
        marks.append(t.gettext("forfeited"))
    if frame.to_act == seat and not frame.finished:
        marks.append(t.gettext("to play"))
    if frame.defender == seat and not frame.finished:
        marks.append(t.gettext(_ROLES[Role.DEFENDER]))
    head = ("▶ " if frame.to_act == seat and not frame.finished else "") + name
    return " · ".join(
        [head, t.nfill("{count} card", "{count} cards", len(frame.hands[seat])), *marks]
    )


def render_replay(view: ReplayView, index: int, t: Catalog) -> Reply:
    """A private replay of a finished game at frame ``index`` (clamped): the move in words
    with the players' names, what followed it, trump, stock, the table, every hand face up;
    ⏮ ◀ ▶ ⏭ step by round and by move (disabled at the ends)."""
    replay = view.replay
    index = min(max(int(index), 0), replay.total - 1)
    frame = replay.frames[index]
    names = seat_names(view.players, t)
    bold = _bold(names)
    lines = [
        t.fill(
            "Move {index}/{total} · Round {round}",
            index=frame.index,
            total=replay.total - 1,
            round=frame.round,
        ),
        "",
        "**" + t.render(frame.message, names, card_text=card_md) + "**",
        *("• " + t.render(event, bold, card_text=card_md) for event in frame.events),
        "",
    ]
    if frame.trump_card is not None:
        lines.append(
            t.fill(
                "Trump: **{suit}** — {card} lies under the stock",
                suit=suit_md(str(frame.trump)),
                card=card_md(frame.trump_card),
            )
        )
    else:
        lines.append(t.fill("Trump: **{suit}**", suit=suit_md(str(frame.trump))))
    lines.append(
        t.fill(
            "Stock: {stock} · Discard: {discard} · Round {round}",
            stock=frame.stock,
            discard=frame.discard,
            round=frame.round,
        )
    )
    pairs = frame.closed_table or frame.table
    if pairs:
        lines.append(t.gettext("**On the table:**"))
        lines.append(_pairs_md(pairs))
    elif not frame.finished:
        lines.append(t.gettext("*The table is empty.*"))
    fields = [
        _field(
            _replay_seat(frame, seat, names[seat], t),
            " ".join(card_md(c) for c in hand) or t.gettext("*No cards.*"),
        )
        for seat, hand in enumerate(frame.hands)
    ]
    embed = _embed(
        t.fill(
            "Replay — game {game} · {rules}", game=view.game_id, rules=rules_title(view.rules, t)
        ),
        "\n".join(lines),
        color=RED if frame.finished else BLURPLE,
        fields=fields,
        footer=t.gettext("Only you see this replay: every hand is face up."),
    )
    gid = view.game_id
    steps = (
        ("prevround", replay.prev_round(index), t.gettext("Round"), "⏮️"),
        ("prev", replay.prev_move(index), t.gettext("Move"), "◀️"),
        ("next", replay.next_move(index), t.gettext("Move"), "▶️"),
        ("nextround", replay.next_round(index), t.gettext("Round"), "⏭️"),
    )
    components = tuple(
        Button(
            replay_id(gid, index if target is None else target, nav),
            label,
            "primary" if nav in ("prev", "next") else "secondary",
            disabled=target is None,
            emoji=emoji,
        )
        for nav, target, label, emoji in steps
    )
    return Reply(embeds=(embed,), components=components)


# ------------------------------------------------------------------------------ rules
_PROFILE_RULES = {
    "podkidnoy": {"throw_in": "neighbours", "first_round_limit": 6, "transfer": False},
    "perevodnoy": {"throw_in": "all", "first_round_limit": 6, "transfer": True},
    "classic": {"throw_in": "all", "first_round_limit": 5, "transfer": False},
}
_PROFILE_BLURB = {
    "podkidnoy": N_("Podkidnoy: the defender's neighbours throw in, no transfers."),
    "perevodnoy": N_("Perevodnoy: everyone throws in and the defender may transfer."),
    "classic": N_("Classic: everyone throws in, at most 5 attacks in the first round."),
}


def render_rules(profile: str | None, rules: dict[str, Any] | None, t: Catalog) -> Reply:
    """``/durak rules``: the essentials of RULES.md and the options of ``profile`` (or of
    ``rules``, the active table's options); with neither, the three profiles."""
    essentials = [
        t.gettext(
            "36 cards, 6 to ace. Everyone gets 6; the next card turned up is trump and "
            "lies under the stock."
        ),
        t.gettext(
            "A card is beaten by a higher card of its suit, or by any trump; a trump "
            "only by a higher trump."
        ),
        t.gettext(
            "The leader attacks the next player with one card or several of one rank. "
            "The defender covers every attack or takes all the cards."
        ),
        t.gettext(
            "Others may add cards of ranks already on the table, never more attacks than "
            "the defender held cards (and at most 6)."
        ),
        t.gettext(
            "After the round, everyone draws back up to 6, the leader first. Beaten "
            "cards go to the discard pile."
        ),
        t.gettext(
            "When the stock is empty, players without cards are out. The last player "
            "holding cards is the durak (the fool)."
        ),
    ]
    name = profile.strip().lower() if profile else None
    options = dict(rules) if rules else None
    if options is None and name in _PROFILE_RULES:
        options = dict(_PROFILE_RULES[name])
    fields = []
    if options is not None:
        throw_in = str(options.get("throw_in", "neighbours"))
        detail = [
            t.gettext("Throw-in: every player but the defender adds cards, the attacker first.")
            if throw_in == "all"
            else t.gettext("Throw-in: only the defender's two neighbours add cards."),
            t.fill(
                "First round: at most {limit} attacks",
                limit=int(options.get("first_round_limit", 6)),
            ),
        ]
        if options.get("transfer"):
            detail.append(
                t.gettext(
                    "Transfer: before covering anything, the defender may play cards of the "
                    "attacked rank; the next player then defends everything, if their hand is "
                    "big enough."
                )
            )
        else:
            detail.append(t.gettext("No transfers"))
        title = t.fill("Rules — {rules}", rules=name or t.gettext("this table"))
        fields.append(_field(t.gettext("Options"), "\n".join(f"• {line}" for line in detail)))
    else:
        title = t.gettext("Durak rules")
        fields.append(
            _field(
                t.gettext("Profiles"),
                "\n".join(f"• {t.gettext(b)}" for b in _PROFILE_BLURB.values()),
            )
        )
    fields.append(
        _field(
            t.gettext("Turns"),
            t.gettext(
                "Every turn has a time limit: then the defender takes, an attacker passes, a "
                "leader plays the lowest card. After two timeouts in a row the AI plays for you "
                "until you press a button again."
            ),
        )
    )
    embed = _embed(title, "\n".join(f"• {line}" for line in essentials), color=GREEN, fields=fields)
    return Reply(embeds=(embed,))


# ------------------------------------------------------------------------------ errors, notices
def render_error(message: Message, t: Catalog, names: Sequence[str] = ()) -> Reply:
    """A private refusal (a service error's or engine reason's message); ``names`` name its
    ``Seat`` parameters."""
    body = t.render(message, names, card_text=card_md)
    return Reply(content=_clip("⚠️ " + body[:1].upper() + body[1:], CONTENT_MAX))


_NOTICE_EMOJI = {
    "timeout": "⏰",
    "autopilot_on": "🤖",
    "autopilot_off": "👋",
    "stopped": "🛑",
    "series_ended": "🏁",
    "restored": "🔄",
    "forfeit": "🏳️",
    "kicked": "👢",
    "host": "👑",
    "stop_vote": "🗳️",
    "error": "⚠️",
}


def render_confirm_forfeit(game: int, message: Message, t: Catalog) -> Reply:
    """The private confirmation of leaving a running game (``message`` says what it means),
    with a "Leave and forfeit" button for game ``game``."""
    body = t.render(message, (), card_text=card_md)
    return Reply(
        content=_clip("⚠️ " + body[:1].upper() + body[1:], CONTENT_MAX),
        components=(Button(game_id(game, 0, "forfeit"), t.gettext("Leave and forfeit"), "danger"),),
    )


def render_forfeited(t: Catalog) -> Reply:
    """What the confirmation becomes once the player has left: no buttons any more."""
    return Reply(content="🏳️ " + t.gettext("You left the game: the AI plays your seat to the end."))


def render_notice(kind: str, message: Message, t: Catalog, names: Sequence[str] = ()) -> str:
    """A public one-line notice; ``names`` name its ``Seat`` parameters.  Mentions are
    neutralised: send it with ``allowed_mentions=none`` all the same."""
    body = t.render(message, names, card_text=card_md)
    body = body.replace("@", "@\u200b")
    body = body[:1].upper() + body[1:]
    emoji = _NOTICE_EMOJI.get(kind, "ℹ️")
    return _clip(f"{emoji} {body}", CONTENT_MAX)


# ------------------------------------------------------------------------------ config
_SWITCH = {True: N_("on"), False: N_("off")}
_THROW_IN_NAMES = {
    "neighbours": N_("the defender's neighbours"),
    "all": N_("everyone"),
}


def _house(value: object, t: Catalog) -> str:
    """A house option as the reader sees it (``None``: the profile's own value)."""
    if value is None:
        return t.gettext("the profile's")
    if isinstance(value, bool):
        return t.gettext(_SWITCH[value])
    if isinstance(value, str):
        return t.gettext(_THROW_IN_NAMES.get(value, value))
    return str(value)


def render_config(config: ServerConfig, t: Catalog, *, saved: bool = False) -> Reply:
    """``/durak config``: the server's settings (``saved``: just changed)."""
    channels = (
        ", ".join(f"<#{c}>" for c in sorted(config.channels))
        if config.channels
        else t.gettext("every channel")
    )
    lines = [
        t.fill("Rules profile: **{value}**", value=config.profile),
        t.fill("Transfer: **{value}**", value=_house(config.transfer, t)),
        t.fill("Who adds cards: **{value}**", value=_house(config.throw_in, t)),
        t.fill("First round limit: **{value}**", value=_house(config.first_round_limit, t)),
        t.fill("Turn time: {seconds} s", seconds=config.turn_timeout),
        t.fill("Games may be opened in: {channels}", channels=channels),
        t.fill(
            "Games with AI seats count for ratings: **{value}**",
            value=t.gettext("yes") if config.count_ai_games else t.gettext("no"),
        ),
    ]
    if saved:
        lines.insert(0, t.gettext("✅ **Settings saved.** New lobbies use them."))
    embed = _embed(
        t.gettext("Server settings"),
        "\n".join(lines),
        color=BLURPLE,
        footer=t.gettext(
            "Members with Manage Server change them with /durak config; “default” resets a setting."
        ),
    )
    return Reply(embeds=(embed,))


# ------------------------------------------------------------------------------ help
#: The commands listed by ``/durak help``, in the order a game uses them.
HELP_COMMANDS = (
    "new",
    "join",
    "addbot",
    "start",
    "hand",
    "table",
    "leave",
    "kick",
    "stop",
    "rules",
    "series",
    "stats",
    "leaderboard",
    "history",
    "config",
    "help",
)


def _command_name(name: str, t: Catalog) -> str:
    """``/durak <name>`` with the names Discord shows the reader (localised when they are)."""
    group = t.pgettext("cmd-name", "durak")
    sub = t.pgettext("cmd-name", name)
    return f"/{group} {sub}"


def render_help(t: Catalog) -> Reply:
    """``/durak help``: the commands and how a game goes, in the reader's language."""
    commands = [
        f"`{_command_name(name, t)}` — {t.pgettext('cmd', COMMANDS[name])}"
        for name in HELP_COMMANDS
        if name in COMMANDS
    ]
    steps = [
        t.gettext("1. Someone opens a lobby with /durak new; others press Join."),
        t.gettext("2. The host may add AI players, then presses Start (2 to 6 seats)."),
        t.gettext(
            "3. Press “Show my hand” on the table: your cards and your moves are shown to you "
            "alone."
        ),
        t.gettext(
            "4. The leader attacks, the defender covers or takes, the others add cards; "
            "the table shows whose turn it is and how long is left."
        ),
        t.gettext(
            "5. Whoever still holds cards at the end is the durak. Rematch keeps the seats "
            "and counts the losses of the series."
        ),
    ]
    # Two fields, since the whole list outgrows one field's 1,024 characters in some languages.
    half = (len(commands) + 1) // 2
    fields = [
        _field(t.gettext("Commands"), _clip_lines(commands[:half], FIELD_VALUE_MAX)),
        _field("\u200b", _clip_lines(commands[half:], FIELD_VALUE_MAX)),
        _field(t.gettext("How a game goes"), _clip_lines(steps, FIELD_VALUE_MAX)),
    ]
    embed = _embed(
        t.gettext("Durak — help"),
        t.gettext("Durak is the card game where nobody wins: the last player holding cards loses."),
        color=GREEN,
        fields=fields,
        footer=t.gettext("The rules in detail: /durak rules"),
    )
    return Reply(embeds=(embed,))


# ------------------------------------------------------------------------------ permissions
#: The bot's channel permissions a game needs, with their names as Discord shows them.
NEEDED_PERMISSIONS = (
    ("view_channel", N_("View Channel")),
    ("send_messages", N_("Send Messages")),
    ("embed_links", N_("Embed Links")),
    ("read_message_history", N_("Read Message History")),
)


def render_missing_permissions(missing: Sequence[str], t: Catalog) -> Reply:
    """The private refusal of ``/durak new`` when the bot lacks channel permissions
    (``missing``: names of :data:`NEEDED_PERMISSIONS`)."""
    labels = dict(NEEDED_PERMISSIONS)
    names = ", ".join(f"**{t.gettext(labels[m])}**" for m in missing if m in labels)
    text = t.fill(
        "I cannot run a game in this channel: I am missing the permission(s) {permissions}. "
        "Ask a moderator to grant them to me here; nothing was opened.",
        permissions=names,
    )
    return Reply(content=_clip("⚠️ " + text, CONTENT_MAX))


def render_hidden(what: str, channel_id: int, problem: str, t: Catalog) -> Reply:
    """The host's private warning that a public message could not be posted or edited:
    ``what`` is ``lobby`` (the lobby was closed) or ``table`` (the game is paused);
    ``problem`` is ``permissions``, ``gone`` or ``refused``."""
    reasons = {
        "permissions": N_("I am missing permissions there"),
        "gone": N_("the channel or the message is gone"),
        "refused": N_("Discord refused the message"),
    }
    reason = t.gettext(reasons.get(problem, reasons["refused"]))
    channel = "<#" + str(channel_id) + ">"
    if what == "lobby":
        text = t.fill(
            "I could not post the lobby in {channel} ({reason}), so I closed it. Check my "
            "permissions there (View Channel, Send Messages, Embed Links, Read Message "
            "History) and open it again.",
            channel=channel,
            reason=reason,
        )
    else:
        text = t.fill(
            "I could not show the table in {channel} ({reason}). The game is paused: no "
            "turn runs out and no AI moves until /durak table works there again, or the "
            "game is stopped.",
            channel=channel,
            reason=reason,
        )
    return Reply(content=_clip("⚠️ " + text, CONTENT_MAX))
