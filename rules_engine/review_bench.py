"""Measurements of the game review (docs/AI.md, "The review"):
``python -m rules_engine.review_bench SECTION [options]``.

Sections (each prints its command line and its figures):

``levels``
    ``--games N`` two-player games of beginner vs expert and ``N`` of casual vs expert
    (the tournament's games: every deal once per seat rotation; the expert thinks by CPU time
    so that a busy machine does not weaken it), both seats reviewed at ``--deals K``: the mean
    chance lost per decision of each level, and the ratios to the expert's.  ``--records
    FILE`` keeps the games (JSON lines): a second run reviews them again without playing;
    ``--reviews FILE`` keeps each game's reviews (JSON lines, by game and ``--deals``), so an
    interrupted run goes on where it stopped; ``--sample M`` reviews about M games of each
    level, evenly spread.
``endgames``
    ``--positions N`` two-player positions with an empty stock and a choice (one per game of
    beginner vs casual, at a random moment of its endgame; with ``--first`` the first, which
    holds the most cards): whether the review's best choice has the value of the solver's
    best, checked on the real game by a fresh solver.
``timing``
    ``--games N`` reviews of a two-player and of a four-player game (casual players; the
    seat reviewed is seat 0), one process, at ``--deals K``: wall and CPU seconds, p50 / p95.
``stability``
    ``--games N`` two-player games (casual vs expert) reviewed with ``--seeds S`` seeds at
    ``--deals K``: the spread (largest minus smallest) of a choice's estimate and of a
    decision's chance lost between seeds, and how often every seed gives the same label.

``--jobs J`` runs games in J processes (levels, endgames, stability; timing always runs in
one).  ``--rules NAME`` picks the profile (default podkidnoy); ``--seed S`` the first deal.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from rules_engine.actions import parse_action
from rules_engine.ai.levels import make_agent
from rules_engine.ai.position import fast_clone
from rules_engine.ai.review import (
    DEFAULT_DEALS,
    GameRecord,
    GameReview,
    Label,
    review_decision,
    review_game,
)
from rules_engine.ai.solver import SearchAborted, Solver, state_from_game
from rules_engine.deal import deal_from_seed
from rules_engine.game import Game
from rules_engine.observation import observation
from rules_engine.rules import PROFILES, Rules
from rules_engine.tournament import play_game

__all__ = ["main"]

#: The reference solves of ``endgames`` may search this many nodes per position.
_REFERENCE_NODES = 50_000_000


def _pct(xs: Sequence[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else 0.0


def _map(fn: Callable[[Any], Any], tasks: Sequence[Any], jobs: int) -> Iterable[Any]:
    if jobs > 1:
        with multiprocessing.Pool(jobs) as pool:
            yield from pool.imap(fn, tasks, chunksize=1)
    else:
        yield from map(fn, tasks)


@contextlib.contextmanager
def _appending(path: str | None) -> Iterator[Callable[[dict[str, Any]], None]]:
    """Something that appends a JSON line to ``path`` at once (nothing without a path)."""
    if not path:
        yield lambda row: None
        return
    with open(path, "a", encoding="utf-8") as out:

        def keep(row: dict[str, Any]) -> None:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            out.flush()

        yield keep


def _tick(done: int, total: int, started: float) -> None:
    print(f"  {done}/{total} ({time.perf_counter() - started:.0f} s)", file=sys.stderr, end="\r")


# ---------------------------------------------------------------------------------- levels
_LEVELS = ("beginner", "casual")


def _play_task(args: tuple[Rules, int, int, str]) -> dict[str, Any]:
    """One game of ``level`` (at ``a_seat``) vs the expert, as a records-file line."""
    rules, seed, a_seat, level = args
    actions: list[str] = []
    result = play_game(
        rules, 2, seed, a_seat, level, "expert", options_b={"clock": "cpu"}, actions=actions
    )
    record = GameRecord(rules, deal_from_seed(2, seed), tuple(actions))
    return {
        "level": level,
        "seed": seed,
        "a_seat": a_seat,
        "error": result.error,
        "record": record.to_dict(),
    }


def _records(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The games of beginner vs expert and casual vs expert: read from ``--records`` when it
    holds them, played (and appended to it) when not."""
    rules = PROFILES[args.rules]
    wanted = [
        (level, args.seed + i, rot)
        for level in _LEVELS
        for i in range((args.games + 1) // 2)
        for rot in (0, 1)
    ]
    have: dict[tuple[str, int, int], dict[str, Any]] = {}
    if args.records and os.path.exists(args.records):
        with open(args.records, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    row = json.loads(line)
                    have[row["level"], row["seed"], row["a_seat"]] = row
    missing = [
        (rules, seed, rot, level) for level, seed, rot in wanted if (level, seed, rot) not in have
    ]
    if missing:
        started = time.perf_counter()
        with _appending(args.records) as keep:
            for done, row in enumerate(_map(_play_task, missing, args.jobs), 1):
                have[row["level"], row["seed"], row["a_seat"]] = row
                keep(row)
                _tick(done, len(missing), started)
        print(file=sys.stderr)
    return [have[key] for key in wanted]


def _review_task(
    args: tuple[dict[str, Any], int],
) -> tuple[dict[str, Any], list[float], list[float]]:
    """Both seats of one game reviewed: the game's row, the level's and the expert's chance
    lost per decision (nothing for a game that ended in an error)."""
    row, deals = args
    if row["error"]:
        return row, [], []
    record = GameRecord.from_dict(row["record"])
    seat = row["a_seat"]
    mine = review_game(record, seat, deals=deals, seed=row["seed"])
    expert = review_game(record, 1 - seat, deals=deals, seed=row["seed"])
    return row, [d.lost for d in mine.decisions], [d.lost for d in expert.decisions]


def _kept_reviews(
    path: str | None, deals: int
) -> dict[tuple[str, int, int], tuple[list[float], list[float]]]:
    """The reviews a previous run kept in ``path`` at the same budget, by game."""
    kept: dict[tuple[str, int, int], tuple[list[float], list[float]]] = {}
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    row = json.loads(line)
                    if row["deals"] == deals:
                        kept[row["level"], row["seed"], row["a_seat"]] = (
                            row["mine"],
                            row["expert"],
                        )
    return kept


def _levels(args: argparse.Namespace) -> None:
    deals = args.deals if args.deals is not None else DEFAULT_DEALS
    rows = _records(args)
    if args.sample < len(rows):  # every k-th game of each level (seat rotations kept whole)
        per_level = len(rows) // len(_LEVELS)
        picked = [i for i in range(per_level) if (i // 2) % max(1, per_level // args.sample) == 0]
        rows = [rows[lv * per_level + i] for lv in range(len(_LEVELS)) for i in picked]
    lost: dict[str, list[float]] = {level: [] for level in _LEVELS}
    expert_lost: dict[str, list[float]] = {level: [] for level in _LEVELS}
    games = {level: 0 for level in _LEVELS}

    def count(level: str, mine: list[float], theirs: list[float]) -> None:
        lost[level] += mine
        expert_lost[level] += theirs
        games[level] += 1 if mine or theirs else 0

    kept = _kept_reviews(args.reviews, deals)
    tasks = []
    for row in rows:
        key = (row["level"], row["seed"], row["a_seat"])
        if key in kept:
            count(row["level"], *kept[key])
        else:
            tasks.append((row, deals))
    started = time.perf_counter()
    with _appending(args.reviews) as keep:
        for done, (row, mine, theirs) in enumerate(_map(_review_task, tasks, args.jobs), 1):
            count(row["level"], mine, theirs)
            game = {"level": row["level"], "seed": row["seed"], "a_seat": row["a_seat"]}
            keep(game | {"deals": deals, "mine": mine, "expert": theirs})
            _tick(done, len(tasks), started)
    print(file=sys.stderr)
    print(f"{len(rows) - len(tasks)} games' reviews read from --reviews, {len(tasks)} reviewed")
    every_expert = expert_lost["beginner"] + expert_lost["casual"]
    base = statistics.mean(every_expert)
    print(f"reviews at {deals} sampled deals a choice")
    for level in _LEVELS:
        xs, ex = lost[level], expert_lost[level]
        print(
            f"{level:8s} vs expert: {games[level]} games; {level} {len(xs)} decisions, mean"
            f" chance lost {statistics.mean(xs):.4f} (blunders {_share(xs, 0.20)});"
            f" expert {len(ex)} decisions, mean {statistics.mean(ex):.4f}"
            f" (blunders {_share(ex, 0.20)})"
        )
    b, c = statistics.mean(lost["beginner"]), statistics.mean(lost["casual"])
    print(
        f"expert over both: {len(every_expert)} decisions, mean chance lost {base:.4f};"
        f" beginner/expert {b / base:.2f}x, casual/expert {c / base:.2f}x,"
        f" beginner/casual {b / c:.2f}x"
    )
    print(
        f"beginner >= 3x expert: {'yes' if b >= 3 * base else 'NO'};"
        f" casual between: {'yes' if base <= c <= b else 'NO'}"
    )


def _share(xs: Sequence[float], bound: float) -> str:
    return f"{sum(x >= bound for x in xs) / max(len(xs), 1):.1%}"


# ---------------------------------------------------------------------------------- endgames
def _endgame_position(rules: Rules, seed: int, first: bool) -> Game | None:
    """A two-player position with an empty stock and a choice, at a random moment of the
    endgame of a beginner vs casual game, or its first such position (the most cards) with
    ``first`` (``None`` when the game never gets there)."""
    rng = random.Random(seed)
    game = Game(rules, deal_from_seed(2, seed))
    agents = [make_agent("beginner", seed=seed), make_agent("casual", seed=seed + 1)]
    candidates: list[Game] = []
    while not game.finished and len(candidates) < 40:
        seat = game.to_act
        assert seat is not None
        if not game.stock and len(game.legal_codes()) > 1:
            candidates.append(game.clone())
        game.apply(parse_action(agents[seat].choose(observation(game, seat))))
    if not candidates:
        return None
    return candidates[0] if first else rng.choice(candidates)


def _endgames_task(args: tuple[Rules, int, int, bool]) -> tuple[str, float, int]:
    """``(verdict, review seconds, cards)``: verdict ``agree``, ``DISAGREE``, ``none`` (no
    position in that game) or ``unknown`` (the reference solve did not finish)."""
    rules, seed, deals, first = args
    game = _endgame_position(rules, seed, first)
    if game is None:
        return "none", 0.0, 0
    me = game.to_act
    assert me is not None
    opp = 1 - me
    obs = observation(game, me)
    t0 = time.perf_counter()
    review = review_decision(obs, obs["legal"][0], index=0, deals=deals, seed=seed)
    elapsed = time.perf_counter() - t0
    cards = sum(h.bit_count() for h in game.hands)
    # the reference: the real game (not the seat's view), a fresh solver, the root's best move
    ref = Solver(game.trump, rules.transfer, (), node_cap=_REFERENCE_NODES)
    try:
        _, best_value = ref.best_move(state_from_game(game, me, opp, []))
        after = fast_clone(game)
        after.apply_code(game.legal_codes()[game.legal_text().index(review.best)])
        if after.finished:
            got = 0 if after.loser is None else (1 if after.loser == opp else -1)
        else:
            check = Solver(game.trump, rules.transfer, (), node_cap=_REFERENCE_NODES)
            got = check.value(state_from_game(after, me, opp, []))
    except SearchAborted:  # too big even for the reference
        return "unknown", elapsed, cards
    verdict = "agree" if got == best_value else "DISAGREE"
    if not review.exact:
        verdict += " (sampled)"
    return verdict, elapsed, cards


def _endgames(args: argparse.Namespace) -> None:
    rules = PROFILES[args.rules]
    deals = args.deals if args.deals is not None else DEFAULT_DEALS
    verdicts: dict[str, int] = {}
    times: list[float] = []
    cards: list[int] = []
    seed = args.seed
    started = time.perf_counter()
    while sum(v for k, v in verdicts.items() if k != "none") < args.positions:
        need = args.positions - sum(v for k, v in verdicts.items() if k != "none")
        tasks = [(rules, seed + i, deals, args.first) for i in range(need)]
        seed += need
        for verdict, elapsed, n_cards in _map(_endgames_task, tasks, args.jobs):
            verdicts[verdict] = verdicts.get(verdict, 0) + 1
            if verdict != "none":
                times.append(elapsed)
                cards.append(n_cards)
            _tick(len(times), args.positions, started)
    print()
    verdicts.pop("none", None)
    print(
        f"positions {len(times)}: "
        + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items()))
        + f"; cards in play p50 {_pct(cards, 0.5):.0f}, max {max(cards)};"
        f" review time per position p50 {_pct(times, 0.5):.3f} s,"
        f" p95 {_pct(times, 0.95):.3f} s, max {max(times):.2f} s"
    )


# ---------------------------------------------------------------------------------- timing
def _casual_record(rules: Rules, players: int, seed: int) -> GameRecord:
    actions: list[str] = []
    play_game(rules, players, seed, 0, "casual", "casual", actions=actions)
    return GameRecord(rules, deal_from_seed(players, seed), tuple(actions))


def _timing(args: argparse.Namespace) -> None:
    rules = PROFILES[args.rules]
    deals = args.deals if args.deals is not None else DEFAULT_DEALS
    for players in (2, 4):
        wall: list[float] = []
        cpu: list[float] = []
        decisions: list[int] = []
        for i in range(args.games):
            record = _casual_record(rules, players, args.seed + i)
            t0, c0 = time.perf_counter(), time.process_time()
            review = review_game(record, 0, deals=deals, seed=args.seed + i)
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            decisions.append(len(review.decisions))
        print(
            f"{players} players, {args.games} games, {deals} deals:"
            f" wall p50 {_pct(wall, 0.5):.1f} s, p95 {_pct(wall, 0.95):.1f} s,"
            f" max {max(wall):.1f} s; cpu p50 {_pct(cpu, 0.5):.1f} s,"
            f" p95 {_pct(cpu, 0.95):.1f} s; decisions per review"
            f" p50 {_pct(decisions, 0.5):.0f}"
        )


# ---------------------------------------------------------------------------------- stability
_ORDER = list(Label)


def _stability_task(args: tuple[Rules, int, int, int]) -> list[GameReview]:
    rules, seed, deals, seeds = args
    actions: list[str] = []
    play_game(rules, 2, seed, 0, "casual", "expert", options_b={"clock": "cpu"}, actions=actions)
    record = GameRecord(rules, deal_from_seed(2, seed), tuple(actions))
    return [review_game(record, 0, deals=deals, seed=s) for s in range(1, seeds + 1)]


def _stability(args: argparse.Namespace) -> None:
    rules = PROFILES[args.rules]
    deals = args.deals if args.deals is not None else DEFAULT_DEALS
    tasks = [(rules, args.seed + i, deals, args.seeds) for i in range(args.games)]
    choice_spread: list[float] = []
    lost_spread: list[float] = []
    same_label = near_label = same_best = decisions = 0
    started = time.perf_counter()
    for done, reviews in enumerate(_map(_stability_task, tasks, args.jobs), 1):
        for ds in zip(*(r.decisions for r in reviews), strict=True):
            if ds[0].exact:
                continue
            decisions += 1
            lost = [d.lost for d in ds]
            lost_spread.append(max(lost) - min(lost))
            same_label += len({d.label for d in ds}) == 1
            steps = [_ORDER.index(d.label) for d in ds]
            near_label += max(steps) - min(steps) <= 1
            same_best += len({d.best for d in ds}) == 1
            for cs in zip(*(d.choices for d in ds), strict=True):
                if all(c.deals == deals for c in cs):  # never dropped early
                    durak = [c.durak for c in cs]
                    choice_spread.append(max(durak) - min(durak))
        _tick(done, len(tasks), started)
    print()
    print(
        f"{args.games} games, {decisions} sampled decisions, {args.seeds} seeds, {deals} deals:"
        f" a choice's estimate spread mean {statistics.mean(choice_spread):.3f},"
        f" p95 {_pct(choice_spread, 0.95):.3f};"
        f" chance lost spread mean {statistics.mean(lost_spread):.3f},"
        f" p95 {_pct(lost_spread, 0.95):.3f};"
        f" same label {same_label / decisions:.1%}, labels at most one step apart"
        f" {near_label / decisions:.1%}, same best {same_best / decisions:.1%}"
    )


# ---------------------------------------------------------------------------------- main
_SECTIONS = {
    "levels": _levels,
    "endgames": _endgames,
    "timing": _timing,
    "stability": _stability,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m rules_engine.review_bench", description=__doc__
    )
    parser.add_argument("section", choices=sorted(_SECTIONS))
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--positions", type=int, default=500)
    parser.add_argument("--deals", type=int, default=None, help=f"default {DEFAULT_DEALS}")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument(
        "--first",
        action="store_true",
        help="endgames: each game's first endgame position (the most cards), not a random one",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--rules", default="podkidnoy", choices=sorted(PROFILES))
    parser.add_argument(
        "--records",
        default=None,
        metavar="FILE",
        help="levels: JSON lines of the games; read when there, played and appended when not",
    )
    parser.add_argument(
        "--reviews",
        default=None,
        metavar="FILE",
        help="levels: JSON lines of each game's reviews; read when there, appended when not",
    )
    parser.add_argument(
        "--sample",
        type=int,
        default=10**9,
        help="levels: review about this many games of each level (evenly spread)",
    )
    args = parser.parse_args(argv)
    shown = " ".join(sys.argv[1:] if argv is None else argv)
    print(f"python -m rules_engine.review_bench {shown}")
    started = time.perf_counter()
    _SECTIONS[args.section](args)
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
