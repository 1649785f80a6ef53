"""Review one seat's decisions in a scenario file (docs/SCENARIOS.md, "Reviewing a game"):

``python -m rules_engine.review FILE --seat N [--deals K] [--seed S] [--json]``

For every action of seat ``N`` in the file's ``actions`` where it had more than one legal
choice, it prints each legal choice with the estimated chance that the seat ends as the durak
(from what the seat could see then), the best, the choice made and its label; ``--json`` prints
the review as one JSON object instead.  A file whose game does not reach its end is reviewed
all the same (the decisions it has, valued by playing on to the end), and says so.  Bad input
(no such file, not a scenario, a bad seat or budget, an illegal action) exits 2 with one line
on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import NoReturn

from rules_engine.ai.review import (
    DEFAULT_DEALS,
    DecisionReview,
    GameRecord,
    GameReview,
    review_game,
)
from rules_engine.errors import DurakError
from rules_engine.scenario import load_scenario

__all__ = ["format_review", "main"]

_PROG = "python -m rules_engine.review"


class _Parser(argparse.ArgumentParser):
    """Argument errors as one line (``PROG: error: …``) and exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


class _BadInput(Exception):
    pass


def _record(name: str) -> GameRecord:
    try:
        text = Path(name).read_text(encoding="utf-8")
    except OSError as exc:
        raise _BadInput(f"{name}: cannot read: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _BadInput(f"{name}: bad JSON: {exc.msg} at line {exc.lineno}") from None
    try:
        game, actions = load_scenario(data)
    except DurakError as exc:
        raise _BadInput(f"{name}: invalid scenario: {exc}") from None
    return GameRecord(game.rules, game.deal, tuple(actions))


def _pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def _decision_lines(d: DecisionReview) -> list[str]:
    head = f"#{d.index} {d.action}: {d.label.value}"
    if d.lost > 0:
        head += f", {100 * d.lost:.1f} points of durak chance lost; best {d.best}"
    lines = [head, f"  hand {' '.join(d.hand)}"]
    width = max(len(c.action) for c in d.choices)
    for c in d.choices:
        how = "exact" if c.exact else f"± {100 * c.stderr:.1f} ({c.deals} deals)"
        flags = (("chosen", c.action == d.action), ("best", c.action == d.best))
        marks = [mark for mark, on in flags if on]
        lines.append(
            f"  {c.action:{width}s}  durak {_pct(c.durak)} {how}"
            + (f"  <- {', '.join(marks)}" if marks else "")
        )
    return lines


def format_review(review: GameReview, name: str) -> str:
    """The review as text: a summary, then every decision with its choices."""
    n = len(review.decisions)
    accuracy = "-" if review.accuracy is None else f"{review.accuracy:.1f}"
    lines = [
        f"{name}, seat {review.seat}: {n} decision{'' if n == 1 else 's'} with a choice,"
        f" accuracy {accuracy} ({review.deals} sampled deals a choice, seed {review.seed})",
        ", ".join(f"{label.value} {count}" for label, count in review.counts().items()),
    ]
    if not review.finished:
        lines.append(
            "the game does not reach its end in this file: its decisions are valued by playing"
            " on to the end"
        )
    elif not review.losers and review.loser is None:
        lines.append("the game ended in a draw")
    elif review.loser is None:  # a team game: the losing team
        seats = " and ".join(str(s) for s in review.losers)
        lines.append(f"seats {seats} lost (their team is the durak)")
    else:
        lines.append(f"seat {review.loser} was the durak")
    worst = review.worst(3)
    if worst:
        lines.append(
            "biggest losses: "
            + "; ".join(f"#{d.index} {d.label.value} ({100 * d.lost:.1f} points)" for d in worst)
        )
    for d in review.decisions:
        lines.append("")
        lines += _decision_lines(d)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog=_PROG, description=__doc__)
    parser.add_argument("file", metavar="FILE", help="a scenario file (docs/SCENARIOS.md)")
    parser.add_argument("--seat", type=int, required=True, help="the seat to review")
    parser.add_argument(
        "--deals",
        type=int,
        default=DEFAULT_DEALS,
        help=f"sampled deals per choice (default {DEFAULT_DEALS})",
    )
    parser.add_argument("--seed", type=int, default=0, help="the random seed (default 0)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.deals < 2:
        print(f"{_PROG}: error: --deals must be at least 2, not {args.deals}", file=sys.stderr)
        return 2
    try:
        record = _record(args.file)
        review = review_game(record, args.seat, deals=args.deals, seed=args.seed)
    except _BadInput as exc:
        print(exc, file=sys.stderr)
        return 2
    except DurakError as exc:
        print(f"{args.file}: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(review.to_dict(), ensure_ascii=False))
    else:
        print(format_review(review, args.file))
    return 0


if __name__ == "__main__":
    sys.exit(main())
