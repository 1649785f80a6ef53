"""The rules summary of a table or a lobby: the rule set's name and its options, one line each
(who adds cards, the first round's limit, transfers, and the table options of RULES.md §10
when they are not the default: the pack's size, showing a trump, teams)."""

from __future__ import annotations

import functools

from present.catalog import Catalog
from rules_engine.rules import Rules

__all__ = ["rules_lines", "rules_summary", "rules_title"]


def rules_title(rules: Rules, t: Catalog) -> str:
    """A rule set's name: its profile (a proper name, not translated), also when only table
    options (pack, show trump, teams) differ from it, else "custom rules" (the options
    themselves are listed by :func:`rules_lines`)."""
    return rules.profile or rules.base_profile or t.gettext("custom rules")


def rules_lines(rules: Rules, t: Catalog) -> list[str]:
    """The options of a rule set, one line each (who adds cards, first round, transfers; the
    pack when not 36 cards, showing a trump, teams)."""
    lines = [
        t.gettext("Everyone may add cards to an attack")
        if rules.throw_in == "all"
        else t.gettext("Only the defender's neighbours may add cards"),
        t.fill("First round: at most {limit} attacks", limit=rules.first_round_limit),
        t.gettext("The defender may transfer the attack")
        if rules.transfer
        else t.gettext("No transfers"),
    ]
    if rules.deck != 36:
        lines.append(t.fill("{deck}-card pack", deck=rules.deck))
    if rules.show_trump:
        lines.append(t.gettext("A trump of the attacked rank may be shown to transfer"))
    if rules.team_game:
        size = rules.teams[0]
        lines.append(t.fill("Teams of {size} against {size}", size=size))
    return lines


@functools.lru_cache(maxsize=256)
def rules_summary(rules: Rules, t: Catalog) -> str:
    """The name and the options on one line, separated by `` · ``."""
    return " · ".join([rules_title(rules, t), *rules_lines(rules, t)])
