"""The coach's review in words (issue 32), for every surface: the summary (accuracy, how many
decisions got each label, the biggest mistakes with the better move), one page per marked
decision, and the labels.  The review itself is :class:`~rules_engine.ai.review.GameReview`
(a :class:`~bot.views.ReviewView` from the service); the numbers are shown as whole
percentages.

- :func:`label_name`: "Best", "Good", "Inaccuracy", "Mistake", "Blunder";
- :func:`better_move_text`: "Cover 9♥ with 10♥ instead of taking: your chance of being the
  durak goes from 38% to 61%";
- :func:`summary_lines`: the summary page; :func:`marked`: the decisions that get a page;
  :func:`decision_lines`: one decision's page (the player's hand, every choice and its chance).
"""

from __future__ import annotations

from bot.views import ActionChoice
from present.actions import action_label
from present.catalog import Catalog
from present.style import PLAIN, Style
from rules_engine.actions import ActionKind, parse_action
from rules_engine.ai.review import DecisionReview, GameReview, Label
from rules_engine.cards import parse_card

__all__ = [
    "MARKED",
    "better_move_text",
    "chance_text",
    "choice_label",
    "decision_lines",
    "label_name",
    "marked",
    "summary_lines",
]

#: The labels that get a page of their own (and count as mistakes in the summary).
MARKED = (Label.INACCURACY, Label.MISTAKE, Label.BLUNDER)
#: The biggest mistakes the summary names.
WORST_SHOWN = 3


def label_name(label: Label, t: Catalog) -> str:
    """A label's name, capitalised as a heading."""
    if label is Label.BEST:
        return t.pgettext("review label", "Best")
    if label is Label.GOOD:
        return t.pgettext("review label", "Good")
    if label is Label.INACCURACY:
        return t.pgettext("review label", "Inaccuracy")
    if label is Label.MISTAKE:
        return t.pgettext("review label", "Mistake")
    return t.pgettext("review label", "Blunder")


def chance_text(chance: float) -> str:
    """A chance (0–1) as a whole percentage: ``38%``."""
    return f"{round(100 * chance)}%"


def choice_label(text: str, t: Catalog, style: Style = PLAIN) -> str:
    """A reviewed choice (``"SEAT ACTION"``) as its button says it: ``Cover 9♥ with 10♥``."""
    action = parse_action(text)
    return action_label(ActionChoice.of(action), t, style)


def _instead_of(text: str, t: Catalog, style: Style) -> str:
    """The choice made, after "instead of": ``taking``, ``covering 9♥ with 10♥``…"""
    action = parse_action(text)
    kind, cards = action.kind, action.cards
    if kind is ActionKind.TAKE:
        return t.gettext("taking")
    if kind is ActionKind.PASS:
        return t.gettext("passing")
    if kind is ActionKind.DEFEND and len(cards) == 2:
        return t.fill(
            "covering {attack} with {card}", attack=style.card(cards[0]), card=style.card(cards[1])
        )
    if kind is ActionKind.TRANSFER:
        return t.fill("transferring with {cards}", cards=style.cards(cards))
    if kind is ActionKind.SHOW:
        return t.fill("showing {cards}", cards=style.cards(cards))
    return t.fill("playing {cards}", cards=style.cards(cards))


def better_move_text(
    decision: DecisionReview, t: Catalog, style: Style = PLAIN, *, team: bool = False
) -> str:
    """The better move of a decision that lost something, in one sentence with the chances
    (the best choice's, then the one made).  ``team``: a team game, where the chance is the
    team's of losing."""
    params = {
        "better": choice_label(decision.best, t, style),
        "chosen": _instead_of(decision.action, t, style),
        "before": chance_text(decision.best_choice.durak),
        "after": chance_text(decision.chosen.durak),
    }
    if team:
        return t.fill(
            "{better} instead of {chosen}: your team's chance of losing goes from {before} to"
            " {after}",
            **params,
        )
    return t.fill(
        "{better} instead of {chosen}: your chance of being the durak goes from {before} to"
        " {after}",
        **params,
    )


def marked(review: GameReview) -> tuple[DecisionReview, ...]:
    """The decisions that get a page of their own (an inaccuracy or worse), in game order."""
    return tuple(d for d in review.decisions if d.label in MARKED)


def summary_lines(
    review: GameReview, t: Catalog, style: Style = PLAIN, *, team: bool = False
) -> list[str]:
    """The summary: the accuracy, the count of each label, and the biggest mistakes (at most
    :data:`WORST_SHOWN`) with the better move, each naming its move number (its place in the
    game's actions, from 1)."""
    if review.accuracy is None:
        return [t.gettext("You never had a choice to make in this game: nothing to review.")]
    total = len(review.decisions)
    lines = [
        t.nfill(
            "Accuracy {accuracy} over {count} decision",
            "Accuracy {accuracy} over {count} decisions",
            total,
            accuracy=format(review.accuracy, ".1f") + "%",
        ),
        " · ".join(f"{label_name(label, t)} {n}" for label, n in review.counts().items()),
    ]
    worst = [d for d in review.worst(WORST_SHOWN) if d.label in MARKED]
    if not worst:
        lines.append(t.gettext("No inaccuracy, mistake or blunder: well played."))
    for d in worst:
        lines.append(
            t.fill(
                "Move {move} ({label}): {text}",
                move=d.index + 1,
                label=label_name(d.label, t),
                text=better_move_text(d, t, style, team=team),
            )
        )
    return lines


def decision_lines(
    decision: DecisionReview, t: Catalog, style: Style = PLAIN, *, team: bool = False
) -> list[str]:
    """One decision's page: its move number and label, the player's hand then, the better
    move (when it lost anything), and every choice with its chance, the chosen and the best
    marked."""
    lines = [
        t.fill(
            "Move {move}: {label}",
            move=decision.index + 1,
            label=label_name(decision.label, t),
        ),
        t.fill(
            "Your hand: {cards}",
            cards=style.cards(tuple(parse_card(c) for c in decision.hand)),
        ),
    ]
    if decision.lost > 0:
        lines.append(better_move_text(decision, t, style, team=team))
    chosen_mark, best_mark = t.gettext("your move"), t.gettext("best")
    for c in sorted(decision.choices, key=lambda c: c.durak):
        flags = ((chosen_mark, c.action == decision.action), (best_mark, c.action == decision.best))
        marks = [mark for mark, on in flags if on]
        line = t.fill(
            "{choice}: durak {chance}",
            choice=choice_label(c.action, t, style),
            chance=chance_text(c.durak),
        )
        lines.append(line + (f" ({', '.join(marks)})" if marks else ""))
    return lines
