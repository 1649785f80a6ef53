"""The public table message (and the finished game's result on it)."""

from __future__ import annotations

from bot.views import Role, SeatView, TableView
from cogs.custom_ids import game_id, review_id
from cogs.i18n import Catalog
from cogs.render.deck import deck_lines
from cogs.render.message import (
    FIELD_VALUE_MAX,
    GREEN,
    GREY,
    RED,
    Button,
    Reply,
    Select,
    clip_lines,
    embed_field,
    link_button,
    make_embed,
)
from cogs.render.records import standings
from cogs.render.text import (
    ENDING_EMOJI,
    MARKDOWN,
    TEAM_MARKS,
    card_md,
    cards_md,
    seat_names,
    when,
)
from present.moves import move_text
from present.names import ROLE_NAMES
from present.outcome import outcome_text
from present.rules import rules_title
from present.status import status
from present.teams import shown_texts, team_name

__all__ = ["RECENT_SHOWN", "render_table"]

#: How many of the last actions the table lists.
RECENT_SHOWN = 6


# ------------------------------------------------------------------------------ table


def _seat_line(s: SeatView, names: list[str], t: Catalog, over: bool) -> str:
    marker = "▶" if s.to_act and not over else "•"
    team = "" if s.team is None else TEAM_MARKS[s.team] + " "
    parts = [f"{marker} {team}**{names[s.seat]}**"]
    if s.ai_level:
        parts[0] += " 🤖"
    parts.append(t.nfill("{count} card", "{count} cards", s.cards))
    if s.role is not None:
        parts.append(t.gettext(ROLE_NAMES[s.role]))
    elif s.out:
        parts.append(t.gettext(ROLE_NAMES[Role.OUT]))
    if s.played_by is not None and s.played_by != s.seat:
        parts.append(t.fill("played by {name}", name=names[s.played_by]))
    if s.forfeited:
        parts.append(t.gettext("left: the AI plays"))
    elif s.autopilot:
        parts.append(t.gettext("autopilot"))
    return " · ".join(parts)


def render_table(view: TableView, t: Catalog, *, watch: str | None = None) -> Reply:
    """The public table: trump, pack size, stock, the teams (each seat marked with its
    team's colour), the trumps shown this round, pairs, seats and roles (and who plays a
    seat handed over to a partner), whose turn with a countdown, the last actions and Show my
    hand; when finished: the durak, the losing team (or draw), the series standings, Rematch
    and End series.  ``watch``: the channel's web table address, a "Watch" link button
    (while the game runs)."""
    seats = view.seats
    names = seat_names(seats, t)
    outcome = view.outcome
    over = outcome is not None
    lines: list[str] = []
    if outcome is not None:
        text = outcome_text(outcome, names, t)
        lines.append(f"{ENDING_EMOJI[outcome.ending]} **{text}**")
    lines += deck_lines(
        view.trump, view.trump_card, view.stock, view.discard, view.round, t, view.deck
    )
    if view.rules.team_game:
        lines.append(
            " · ".join(
                f"{TEAM_MARKS[team]} "
                + team_name((s.seat for s in seats if s.team == team), names, t, MARKDOWN)
                for team in (0, 1)
            )
        )
    if view.shown and view.round <= 1 and not over:
        lines.append(t.fill("Shown at the deal: {cards}", cards=cards_md(view.shown)))
    if not over:
        lines += ["👁️ " + text for text in shown_texts(view, names, t, MARKDOWN)]
    now = status(view, names, t, MARKDOWN)
    if now is not None:
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
            lines.append("*" + t.gettext("The table is empty.") + "*")
        if now.taking is not None:
            lines.append("📥 " + now.taking)
        if now.turn is not None:
            turn = "⏳ " + now.turn
            if view.deadline is not None:
                turn += " — " + t.fill("time runs out {when}", when=when(view.deadline))
            lines.append(turn)
        if now.stop_vote is not None:
            vote = "🛑 **" + now.stop_vote + "** — "
            vote += t.gettext("every player must press Stop to end the game")
            if view.stop_vote_deadline is not None:
                vote += " " + t.fill("(until {when})", when=when(view.stop_vote_deadline))
            lines.append(vote)
    fields = [
        embed_field(
            t.gettext("Players"),
            clip_lines([_seat_line(s, names, t, over) for s in seats], FIELD_VALUE_MAX),
        )
    ]
    if view.recent:
        recent = [move_text(r, names, t, MARKDOWN) for r in view.recent[-RECENT_SHOWN:]]
        fields.append(embed_field(t.gettext("Last moves"), clip_lines(recent, FIELD_VALUE_MAX)))
    played_out = outcome is not None and outcome.finished
    if played_out and view.series is not None:
        fields.append(embed_field(*standings(view.series, t)))
    title = (
        t.fill("Durak — {rules} · game over", rules=rules_title(view.rules, t))
        if over
        else t.fill("Durak — {rules}", rules=rules_title(view.rules, t))
    )
    color = GREEN if outcome is None else RED if outcome.finished else GREY
    embed = make_embed(
        title,
        "\n".join(lines),
        color=color,
        fields=fields,
        footer=t.fill("Game {game} · move {version}", game=view.game_id, version=view.version),
    )
    components: list[Button | Select] = []
    gid, ver = view.game_id, view.version
    if not over:
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
        if watch is not None:
            components.append(link_button(watch, t.gettext("Watch"), emoji="🌐"))
    elif played_out and (view.series is None or view.series.active):
        components += [
            Button(game_id(gid, ver, "rematch"), t.gettext("Rematch"), "success", emoji="🔁"),
            Button(game_id(gid, ver, "endseries"), t.gettext("End series"), "danger", emoji="🏁"),
        ]
    if played_out and gid and any(seat.ai_level is None for seat in seats):
        # each human player's own review, private (the presser's decisions only)
        components.append(
            Button(review_id(gid, 0, "open"), t.gettext("Review my game"), "secondary", emoji="🎓")
        )
    return Reply(embeds=(embed,), components=tuple(components))
