"""The public lobby message."""

from __future__ import annotations

from bot.views import (
    LobbyView,
)
from cogs.choices import LEVEL_TEXTS, OFFERED_LEVELS
from cogs.custom_ids import lobby_id
from cogs.i18n import Catalog
from cogs.render.message import (
    BLURPLE,
    FIELD_VALUE_MAX,
    GREY,
    Button,
    Reply,
    Select,
    SelectOption,
    clip,
    clip_lines,
    embed_field,
    make_embed,
)
from cogs.render.text import TEAM_MARKS, ai_label, esc, seat_names
from present.rules import rules_lines, rules_title
from present.teams import team_label

__all__ = ["render_lobby"]


def render_lobby(view: LobbyView, t: Catalog) -> Reply:
    """The public lobby: rules summary, seats (in a team lobby: each team's, with Switch
    team), Join / Leave / Start / Stop and the AI select."""
    lines = [
        t.fill("Host: **{name}**", name=esc(view.host_name)),
        *rules_lines(view.rules, t),
        t.fill("Turn time: {seconds} s", seconds=view.turn_timeout),
    ]
    if view.status == "closed":
        lines.insert(0, t.gettext("**This lobby is closed.**"))
    elif view.status == "started":
        lines.insert(0, t.gettext("**The game has started.**"))
    names = seat_names(view.seats, t)

    def seat_line(i: int) -> str:
        s = view.seats[i]
        line = f"`{i + 1}` " + names[i]
        if s.ai_level:
            line += " · " + t.fill("🤖 AI ({level})", level=ai_label(s.ai_level, t))
        if s.user_id is not None and s.user_id == view.host_id:
            line += " · " + t.gettext("host")
        return line

    free = "*" + t.gettext("free seat") + "*"
    title = t.fill("Seats ({taken}/{total})", taken=len(view.seats), total=view.max_seats)
    if view.team_size:
        # one field per team: its players, then its free places
        fields = []
        for team in (0, 1):
            members = [i for i, s in enumerate(view.seats) if s.team == team]
            team_lines = [seat_line(i) for i in members]
            team_lines += ["• " + free] * max(0, view.team_size - len(members))
            head = f"{TEAM_MARKS[team]} {team_label(team, t)}"
            head += f" ({len(members)}/{view.team_size})"
            fields.append(embed_field(head, clip_lines(team_lines, FIELD_VALUE_MAX), inline=True))
    else:
        seats = [
            seat_line(i) if i < len(view.seats) else f"`{i + 1}` " + free
            for i in range(max(view.max_seats, len(view.seats)))
        ]
        fields = [embed_field(title, clip_lines(seats, FIELD_VALUE_MAX))]
    footer = None
    if view.status == "open":
        footer = (
            t.gettext(
                "Press Join to take a seat, Switch team to change sides. The host adds AI "
                "players and presses Start when both teams are full."
            )
            if view.team_size
            else t.gettext(
                "Press Join to take a seat. The host adds AI players and presses Start (2–6 seats)."
            )
        )
    embed = make_embed(
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
        if view.team_size:
            components.append(
                Button(lobby_id(ch, "switch"), t.gettext("Switch team"), "secondary", row=0)
            )
        if not full:
            options = tuple(
                SelectOption(
                    clip(t.gettext(LEVEL_TEXTS[level].label), 100),
                    level,
                    clip(t.gettext(LEVEL_TEXTS[level].description), 100),
                )
                for level in OFFERED_LEVELS
            )
            components.append(
                Select(lobby_id(ch, "addai"), t.gettext("Add an AI player") + "…", options, row=1)
            )
    return Reply(embeds=(embed,), components=tuple(components))
