"""The coach's review in words (present/review.py): the better move with the chances, the
summary, a decision's page, the labels, in English, Spanish and French."""

from __future__ import annotations

import dataclasses

from present.catalog import catalog
from present.review import (
    better_move_text,
    decision_lines,
    label_name,
    marked,
    summary_lines,
)
from present.style import Style
from rules_engine.ai.choices import ChoiceEstimate
from rules_engine.ai.review import DecisionReview, Label, assemble_review
from web.wording import WEB_WORDING

EN, ES, FR = (catalog(lang, WEB_WORDING) for lang in ("en", "es", "fr"))
CARDS = Style(card=lambda c: f"<{c}>")


def _decision(index: int, action: str, best: str, chances: dict[str, float]) -> DecisionReview:
    lost = round(chances[action] - chances[best], 4)
    return DecisionReview(
        index=index,
        action=action,
        best=best,
        label=Label.BEST if lost < 0.02 else Label.MISTAKE if lost < 0.2 else Label.BLUNDER,
        lost=lost,
        hand=("9♥", "10♥", "A♠"),
        choices=tuple(ChoiceEstimate(a, d, 0.02, False, 300) for a, d in chances.items()),
    )


TAKE = _decision(4, "1 take", "1 defend 9♥ 10♥", {"1 defend 9♥ 10♥": 0.38, "1 take": 0.61})
FINE = _decision(1, "1 attack A♠", "1 attack A♠", {"1 attack A♠": 0.4, "1 attack 9♥": 0.41})
REVIEW = assemble_review(1, 300, 0, True, (1,), [FINE, TAKE], 1)


def test_the_better_move_is_said_with_both_chances() -> None:
    assert better_move_text(TAKE, EN) == (
        "Cover 9♥ with 10♥ instead of taking: your chance of being the durak goes from 38% to 61%"
    )
    assert better_move_text(TAKE, ES) == (
        "Cubrir 9♥ con 10♥ en lugar de recoger: tu probabilidad de ser el durak pasa de 38% a 61%"
    )
    assert better_move_text(TAKE, FR).startswith("Couvrir 9♥ avec 10♥ au lieu de ramasser : ")
    assert "your team's chance of losing" in better_move_text(TAKE, EN, team=True)
    assert "<9♥>" in better_move_text(TAKE, EN, CARDS)  # cards in the adapter's style
    wrong_cover = _decision(
        2, "1 defend 8♥ A♠", "1 defend 8♥ 9♥", {"1 defend 8♥ 9♥": 0.1, "1 defend 8♥ A♠": 0.5}
    )
    assert better_move_text(wrong_cover, EN).startswith(
        "Cover 8♥ with 9♥ instead of covering 8♥ with A♠:"
    )


def test_the_summary_counts_labels_and_names_the_biggest_mistakes() -> None:
    lines = summary_lines(REVIEW, EN)
    assert lines[0] == f"Accuracy {REVIEW.accuracy:.1f}% over 2 decisions"
    assert lines[1] == "Best 1 · Good 0 · Inaccuracy 0 · Mistake 0 · Blunder 1"
    assert lines[2].startswith("Move 5 (Blunder): Cover 9♥ with 10♥ instead of taking")
    assert len(lines) == 3
    assert summary_lines(REVIEW, FR)[0].startswith("Précision ")
    assert summary_lines(REVIEW, ES)[1].startswith("Mejor 1 · Buena 0")
    clean = dataclasses.replace(REVIEW, decisions=(FINE,))
    assert summary_lines(clean, EN)[-1] == "No inaccuracy, mistake or blunder: well played."
    nothing = assemble_review(1, 300, 0, True, (1,), [])
    assert summary_lines(nothing, EN) == [
        "You never had a choice to make in this game: nothing to review."
    ]


def test_a_marked_decision_has_a_page_with_the_hand_and_every_choice() -> None:
    assert marked(REVIEW) == (TAKE,)
    page = decision_lines(TAKE, EN)
    assert page[:2] == ["Move 5: Blunder", "Your hand: 9♥ 10♥ A♠"]
    assert page[2].startswith("Cover 9♥ with 10♥ instead of taking")
    assert page[3:] == ["Cover 9♥ with 10♥: durak 38% (best)", "Take: durak 61% (your move)"]
    assert decision_lines(TAKE, ES)[1] == "Tu mano: 9♥ 10♥ A♠"


def test_every_label_has_a_name_in_each_language() -> None:
    for t in (EN, ES, FR):
        names = [label_name(label, t) for label in Label]
        assert len(set(names)) == len(Label) and all(names)
    assert label_name(Label.BLUNDER, FR) == "Gaffe"


def test_the_chart_is_an_svg_of_the_curve_with_a_dot_per_marked_move() -> None:
    import re

    from present.review_chart import CHART_HEIGHT, MARK_COLORS, chart_svg

    svg = chart_svg(REVIEW)
    assert svg.startswith("<svg ") and svg.endswith("</svg>") and "<text" not in svg
    (points,) = re.findall(r'<polyline points="([^"]+)"', svg)
    ys = [float(p.split(",")[1]) for p in points.split()]
    # one point per decision, higher for a better chance of not being the durak
    curve = [chance for _, chance in REVIEW.curve()]
    assert len(ys) == len(curve) == 2
    assert (ys[0] < ys[1]) == (curve[0] > curve[1]) and all(0 <= y <= CHART_HEIGHT for y in ys)
    assert svg.count(f'fill="{MARK_COLORS[Label.BLUNDER]}"') == 1  # the one blunder
    empty = chart_svg(assemble_review(1, 300, 0, True, (1,), []))
    assert "<polyline" not in empty and "<circle" not in empty
