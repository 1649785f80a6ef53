"""Records as private answers: a channel's series, a player's stats, the leaderboard, the
server's history and a finished game's replay."""

from __future__ import annotations

from collections.abc import Sequence

from bot.ratings import Rating
from bot.replay import ReplayFrame, TablePair
from bot.views import (
    HistoryPage,
    LeaderboardPage,
    ReplayView,
    Role,
    SeriesView,
    StatsView,
)
from cogs.custom_ids import history_id, replay_id
from cogs.i18n import Catalog
from cogs.render.deck import deck_lines
from cogs.render.message import (
    BLURPLE,
    BUTTONS_PER_ROW,
    FIELD_VALUE_MAX,
    GOLD,
    LABEL_MAX,
    RED,
    Button,
    Reply,
    Select,
    clip,
    clip_lines,
    embed_field,
    make_embed,
)
from cogs.render.text import (
    ENDING_EMOJI,
    MARKDOWN,
    TEAM_MARKS,
    bold,
    card_md,
    cards_md,
    esc,
    seat_names,
)
from present.names import ROLE_NAMES
from present.names import ai_label as level_name
from present.outcome import outcome_summary, outcome_text
from present.rules import rules_title
from present.standings import standings as present_standings
from present.standings import standings_title

__all__ = [
    "render_history",
    "render_leaderboard",
    "render_replay",
    "render_series",
    "render_stats",
    "standings",
]


def standings(series: SeriesView, t: Catalog) -> tuple[str, str]:
    """The series' standings as an embed field: its title, and a line per seat (fewest losses
    first) with the last game's durak marked."""
    lines = []
    for e in present_standings(series, t, MARKDOWN):
        line = f"**{e.name}**" + (" 🤖" if e.ai else "") + " — " + e.losses_text
        if e.note is not None:
            line += " · " + e.note
        lines.append(line)
    value = clip_lines(lines, FIELD_VALUE_MAX) or t.gettext("*nobody*")
    return standings_title(series, t), value


def render_series(view: SeriesView, t: Catalog) -> Reply:
    """``/durak series``: loss counts of the channel's series."""
    name, value = standings(view, t)
    lines = [t.fill("Rules: **{rules}**", rules=rules_title(view.rules, t))]
    if not view.active:
        lines.append(t.gettext("This series is over."))
    embed = make_embed(
        t.gettext("Durak series"), "\n".join(lines), color=GOLD, fields=[embed_field(name, value)]
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
    name = esc(view.name) if view.name else f"<@{view.user_id}>"
    # a title shows no mention: without a name (an adapter that gave none), none is shown
    title = (
        t.fill("Durak stats — {name}", name=clip(view.name, 80))
        if view.name
        else t.gettext("Durak stats")
    )
    if not view.games:
        desc = t.fill("{name} has not finished a game here yet.", name=name)
        return Reply(embeds=(make_embed(title, desc, color=GOLD),))
    desc = "\n".join(
        [
            _totals(view.games, view.losses, view.draws, t) + _forfeits(view.forfeits, t),
            t.fill("Loss rate: **{rate}**", rate=_percent(view.loss_rate)),
        ]
    )
    if view.profile:
        desc = t.fill("Rules: **{rules}**", rules=view.profile) + "\n" + desc
    if view.review_accuracy is not None:
        desc += "\n" + t.nfill(
            "The coach's accuracy: **{accuracy}** over {count} reviewed game",
            "The coach's accuracy: **{accuracy}** over {count} reviewed games",
            view.reviewed,
            accuracy=format(view.review_accuracy, ".1f") + "%",
        )
    lines = []
    for p in view.by_profile:
        line = f"**{esc(p.profile)}** — " + _totals(p.games, p.losses, p.draws, t)
        line += _forfeits(p.forfeits, t)
        line += " · " + _percent(p.loss_rate)
        if p.rating is not None:
            line += "\n   " + _rating_text(p.rating, t)
            line += " · " + t.nfill("{count} rated game", "{count} rated games", p.rated_games)
        else:
            line += "\n   " + t.gettext("not rated yet")
        lines.append(line)
    fields = (
        [embed_field(t.gettext("By rules"), clip_lines(lines, FIELD_VALUE_MAX))] if lines else []
    )
    ai_lines = []
    for a in view.by_ai_level:
        label = esc(t.fill("{level} AI", level=level_name(a.level, t)))
        ai_lines.append(
            f"**{label}** — "
            + _totals(a.games, a.losses, a.draws, t)
            + " · "
            + _percent(a.loss_rate)
        )
    if ai_lines:
        fields.append(
            embed_field(t.gettext("Games with AI players"), clip_lines(ai_lines, FIELD_VALUE_MAX))
        )
    return Reply(embeds=(make_embed(title, desc, color=GOLD, fields=fields),))


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
        f"`{r.rank:>3}` **{esc(r.name)}** — **{r.display}** · "
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
    return Reply(embeds=(make_embed(title, "\n".join(lines), color=GOLD, footer=footer),))


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
        outcome = entry.outcome
        result = ENDING_EMOJI[outcome.ending] + " " + outcome_summary(outcome, names, t, MARKDOWN)
        lines.append(
            f"`#{entry.game_id}` <t:{int(entry.ended_at)}:f> · **{rules_title(entry.rules, t)}**"
        )
        lines.append("   " + ", ".join(names) + " — " + result)
        if entry.replayable and len(components) < 2 * BUTTONS_PER_ROW:
            components.append(
                Button(
                    replay_id(entry.game_id, 0, "open"),
                    clip(t.fill("Replay #{game}", game=entry.game_id), LABEL_MAX),
                    "secondary",
                    emoji="🎞️",
                    row=len(components) // BUTTONS_PER_ROW,
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
    embed = make_embed(title, "\n".join(lines), color=BLURPLE, footer=footer)
    return Reply(embeds=(embed,), components=tuple(components))


def _pairs_md(pairs: Sequence[TablePair]) -> str:
    return "   ".join(
        f"{card_md(p.attack)} ⟵ {card_md(p.defence)}" if p.defence else f"{card_md(p.attack)} ⟵ ❔"
        for p in pairs
    )


def _replay_seat(
    frame: ReplayFrame, seat: int, names: list[str], t: Catalog, teams: bool = False
) -> str:
    """A seat's field title in a replay: its name (after its team's mark in a team game),
    cards, and what it is at that frame (durak, out, forfeited, to play, defender, played by
    a partner)."""
    name = names[seat]
    marks = []
    playing = frame.outcome is None
    if frame.outcome is not None and seat in frame.outcome.losers:
        marks.append(t.gettext("🃏 durak"))
    elif seat in frame.out:
        marks.append(t.gettext(ROLE_NAMES[Role.OUT]))
    if seat in frame.forfeited:
        marks.append(t.gettext("forfeited"))
    if frame.to_act == seat and playing:
        marks.append(t.gettext("to play"))
    if frame.defender == seat and playing:
        marks.append(t.gettext(ROLE_NAMES[Role.DEFENDER]))
    if frame.played_by and frame.played_by[seat] != seat and playing:
        marks.append(t.fill("played by {name}", name=names[frame.played_by[seat]]))
    team = TEAM_MARKS[seat % 2] + " " if teams else ""
    head = ("▶ " if frame.to_act == seat and playing else "") + team + name
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
    bold_names = [bold(name) for name in names]
    events = [t.render(event, bold_names, card_text=card_md) for event in frame.events]
    if frame.outcome is not None:
        events.append(outcome_text(frame.outcome, names, t, MARKDOWN))
    lines = [
        t.fill(
            "Move {index}/{total} · Round {round}",
            index=frame.index,
            total=replay.total - 1,
            round=frame.round,
        ),
        "",
        "**" + t.render(frame.message, names, card_text=card_md) + "**",
        *("• " + event for event in events),
        "",
    ]
    # the pack's size when it is not the 36 cards every replay of an older game was dealt
    deck = view.rules.deck if view.rules.deck != 36 else None
    lines += deck_lines(
        str(frame.trump), frame.trump_card, frame.stock, frame.discard, frame.round, t, deck
    )
    if frame.shown and frame.outcome is None:  # trumps shown this round (RULES.md §10.2)
        lines.append("👁️ " + t.fill("Shown to transfer: {cards}", cards=cards_md(frame.shown)))
    pairs = frame.closed_table or frame.table
    if pairs:
        lines.append(t.gettext("**On the table:**"))
        lines.append(_pairs_md(pairs))
    elif frame.outcome is None:
        lines.append("*" + t.gettext("The table is empty.") + "*")
    fields = [
        embed_field(
            _replay_seat(frame, seat, names, t, view.rules.team_game),
            " ".join(card_md(c) for c in hand) or "*" + t.gettext("No cards.") + "*",
        )
        for seat, hand in enumerate(frame.hands)
    ]
    embed = make_embed(
        t.fill(
            "Replay — game {game} · {rules}", game=view.game_id, rules=rules_title(view.rules, t)
        ),
        "\n".join(lines),
        color=BLURPLE if frame.outcome is None else RED,
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
