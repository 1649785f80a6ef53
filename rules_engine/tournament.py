"""Pit two AI levels against each other on seeded deals.

``python -m rules_engine.tournament --a LEVEL --b LEVEL --players P --deals N [--rules NAME]
[--deck 24|36|52] [--show-trump] [--teams 2x2|3x3] [--jobs J] [--seed S] [--budget SECONDS]
[--iterations N] [--a-iterations N] [--b-iterations N]``

``--iterations`` sets the search iterations of every ``ismcts`` seat; ``--a-iterations`` and
``--b-iterations`` set them for one side (so ``ismcts`` can meet itself at two strengths).
Other levels ignore these flags.

Seat layout: one seat plays ``--a``, every other seat plays ``--b``.  Every deal is played
``P`` times, with ``--a`` in each seat in turn (for two players: both seat rotations).  The
report gives each side's loss rate (the share of decided games in which that side was the
durak, with a 95% Wilson interval), draws, an Elo difference, and move times.

Team games (``--teams``, RULES.md §10.3): ``--a`` plays every seat of one team and ``--b``
every seat of the other; each deal is played twice, ``--a`` taking the even seats, then the
odd ones.  A side's loss rate is then the share of decided games its team lost, and the Elo
difference is the two-player one, team against team.  Each player has an agent of its side,
which also acts for the seats handed to it.

Elo: with two players from A's share of decided games won; with more, from A's pairwise score
against each B seat (1 when that B is the durak, 0 when A is, 1/2 when another B is).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any, TextIO

from rules_engine.actions import parse_action
from rules_engine.ai import counts_iterations, make_agent, thinks_by_clock
from rules_engine.deal import deal_from_seed
from rules_engine.errors import DurakError
from rules_engine.game import Game
from rules_engine.observation import observation
from rules_engine.rules import PROFILES, Rules

__all__ = ["GameResult", "load_log", "main", "play_game", "summarize", "wilson"]


def _option(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` of ``--a-opt``/``--b-opt``: the value as an int, a float or a string."""
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    value: Any = raw
    for kind in (int, float):
        try:
            value = kind(raw)
            break
        except ValueError:
            continue
    return key, value


@dataclass
class GameResult:
    seed: int
    #: The seat of ``--a``; in a team game the parity of its team's seats (0: even, 1: odd).
    a_seat: int
    loser_side: str | None  # "a", "b" or None for a draw
    moves: int
    times: dict[str, list[float]] = field(default_factory=dict)
    error: str | None = None
    #: CPU seconds of this process per move, by side (the tournament runs one game per
    #: process at a time, so it is the agent's own thinking).
    cpu: dict[str, list[float]] = field(default_factory=dict)


def play_game(
    rules: Rules,
    players: int,
    seed: int,
    a_seat: int,
    level_a: str,
    level_b: str,
    options_a: dict[str, Any] | None = None,
    options_b: dict[str, Any] | None = None,
    max_moves: int = 2000,
) -> GameResult:
    """One game: ``level_a`` at ``a_seat``, ``level_b`` elsewhere (team games: ``level_a``
    in every seat of the parity of ``a_seat``)."""
    game = Game(rules, deal_from_seed(players, seed, deck=rules.deck))
    teams = rules.teams != "none"
    agents = []
    sides = []
    for s in range(players):
        side = "a" if (s % 2 == a_seat % 2 if teams else s == a_seat) else "b"
        level = level_a if side == "a" else level_b
        opts = (options_a if side == "a" else options_b) or {}
        agents.append(make_agent(level, seed=seed * 7 + s, **opts))
        sides.append(side)
    times: dict[str, list[float]] = {"a": [], "b": []}
    cpu: dict[str, list[float]] = {"a": [], "b": []}
    moves = 0
    while not game.finished and moves < max_moves:
        seat = game.player_to_act  # the player who acts (a partner, for a seat handed over)
        assert seat is not None
        obs = observation(game, seat)
        t0 = time.perf_counter()
        c0 = time.process_time()
        try:
            text = agents[seat].choose(obs)
        except Exception as exc:  # an AI crash loses the game
            error = f"{type(exc).__name__}: {exc}"
            return GameResult(seed, a_seat, sides[seat], moves, times, error, cpu)
        times[sides[seat]].append(time.perf_counter() - t0)
        cpu[sides[seat]].append(time.process_time() - c0)
        if text not in obs["legal"]:
            return GameResult(seed, a_seat, sides[seat], moves, times, f"illegal {text!r}", cpu)
        game.apply(parse_action(text))
        moves += 1
    if not game.finished:
        return GameResult(seed, a_seat, None, moves, times, "move cap", cpu)
    losers = game.losers
    return GameResult(seed, a_seat, sides[losers[0]] if losers else None, moves, times, cpu=cpu)


def _task(args: tuple[Any, ...]) -> GameResult:
    return play_game(*args)


def _log(log: TextIO | None, r: GameResult) -> None:
    """One game's result as a JSON line, flushed: partial results of a long run can be read."""
    if log is not None:
        log.write(json.dumps(asdict(r)) + "\n")
        log.flush()


def load_log(path: str) -> list[GameResult]:
    """The games of a ``--log`` file (to summarize a run that was stopped)."""
    with open(path, encoding="utf-8") as f:
        return [GameResult(**json.loads(line)) for line in f if line.strip()]


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion ``k/n``."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def _elo(score: float) -> float:
    score = min(max(score, 1e-4), 1 - 1e-4)
    return 400 * math.log10(score / (1 - score))


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return 0.0
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def summarize(
    results: list[GameResult], players: int, level_a: str, level_b: str, *, teams: bool = False
) -> str:
    """The report of a tournament; ``teams``: a team game, one team of each side."""
    n_games = len(results)
    draws = sum(1 for r in results if r.loser_side is None)
    a_lost = sum(1 for r in results if r.loser_side == "a")
    b_lost = sum(1 for r in results if r.loser_side == "b")
    decided = a_lost + b_lost
    errors = [r for r in results if r.error]
    lines = []
    a_seats = players // 2 if teams else 1
    lines.append(
        f"games={n_games} decided={decided} draws={draws} errors={len(errors)}"
        f" (a={level_a} in {a_seats} seat{'s' if a_seats > 1 else ''},"
        f" b={level_b} in {players - a_seats}{', team against team' if teams else ''})"
    )
    sides = 2 if teams else players
    lo, hi = wilson(a_lost, decided)
    lines.append(
        f"a {level_a:8s} loss rate {a_lost / max(decided, 1):6.1%}  95% CI [{lo:.1%}, {hi:.1%}]"
        f"  ({a_lost}/{decided}; fair share {1 / sides:.1%})"
    )
    lo, hi = wilson(b_lost, decided)
    lines.append(
        f"b {level_b:8s} loss rate {b_lost / max(decided, 1):6.1%}  95% CI [{lo:.1%}, {hi:.1%}]"
        f"  ({b_lost}/{decided}, any b seat)"
    )
    if sides == 2:
        score = b_lost / max(decided, 1)
    else:
        # pairwise score of A against each B seat
        pts = 0.0
        for r in results:
            if r.loser_side == "a":
                pts += 0.0
            elif r.loser_side == "b":
                pts += (1.0 + 0.5 * (players - 2)) / (players - 1)
        score = pts / max(decided, 1)
    lines.append(f"elo(a - b) = {_elo(score):+.0f}  (a score {score:.3f})")
    for side, level in (("a", level_a), ("b", level_b)):
        for what, key in (("move time", "times"), ("move cpu ", "cpu")):
            ts = [t for r in results for t in getattr(r, key).get(side, [])]
            lines.append(
                f"{what} {side} {level:8s} p50 {_pct(ts, 0.5) * 1000:7.2f} ms"
                f"  p95 {_pct(ts, 0.95) * 1000:7.2f} ms  max {max(ts, default=0) * 1000:7.2f} ms"
                f"  ({len(ts)} moves)"
            )
    for r in errors[:5]:
        lines.append(f"error seed={r.seed} a_seat={r.a_seat}: {r.error}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rules_engine.tournament", description=__doc__)
    parser.add_argument("--a", required=True, help="level in one seat")
    parser.add_argument("--b", required=True, help="level in the other seats")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--rules", default="podkidnoy", choices=sorted(PROFILES))
    parser.add_argument("--deck", type=int, default=36, choices=(24, 36, 52), help="pack size")
    parser.add_argument(
        "--show-trump", action="store_true", help="transfers by showing a trump (needs transfer)"
    )
    parser.add_argument("--teams", default="none", choices=("none", "2x2", "3x3"))
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1, help="first deal seed")
    parser.add_argument(
        "--budget",
        type=float,
        default=None,
        help="hard per-move limit (s) of expert seats (default 0.9; they normally think 0.3)",
    )
    parser.add_argument(
        "--iterations",
        type=int,
        default=None,
        help="iterations per move of ismcts seats (default 300)",
    )
    parser.add_argument("--a-iterations", type=int, default=None, help="the same, side a only")
    parser.add_argument("--b-iterations", type=int, default=None, help="the same, side b only")
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default=None,
        help="what expert seats think by: wall time (default) or this process's CPU time,"
        " which keeps their strength independent of the machine's load",
    )
    parser.add_argument(
        "--a-opt",
        type=_option,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an option of side a's agent (repeatable), e.g. think_s=0.3",
    )
    parser.add_argument("--b-opt", type=_option, action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--log", default=None, help="append one JSON line per finished game")
    args = parser.parse_args(argv)
    spec: dict[str, Any] = {"profile": args.rules, "deck": args.deck, "teams": args.teams}
    if args.show_trump:
        spec["show_trump"] = True
    try:
        rules = Rules.from_spec(spec, players=args.players)
    except DurakError as exc:
        parser.error(str(exc))
    teams = rules.teams != "none"
    opts_a: dict[str, Any] = dict(args.a_opt)
    opts_b: dict[str, Any] = dict(args.b_opt)
    for level, opts in ((args.a, opts_a), (args.b, opts_b)):
        if thinks_by_clock(level):
            if args.budget is not None:
                opts["budget_s"] = args.budget
            if args.clock is not None:
                opts["clock"] = args.clock
    label_a, label_b = args.a, args.b
    for level, side_its, opts, side in (
        (args.a, args.a_iterations, opts_a, "a"),
        (args.b, args.b_iterations, opts_b, "b"),
    ):
        its = side_its if side_its is not None else args.iterations
        if its is not None and counts_iterations(level):
            opts["iterations"] = its
            if side == "a":
                label_a = f"{level}@{its}"
            else:
                label_b = f"{level}@{its}"
    tasks = [
        (rules, args.players, args.seed + i, rot, args.a, args.b, opts_a, opts_b)
        for i in range(args.deals)
        for rot in range(2 if teams else args.players)
    ]
    start = time.perf_counter()
    results: list[GameResult] = []
    log = open(args.log, "a", encoding="utf-8") if args.log else None  # noqa: SIM115
    try:
        if args.jobs > 1:
            with multiprocessing.Pool(args.jobs) as pool:
                for r in pool.imap_unordered(_task, tasks, chunksize=1):
                    results.append(r)
                    _log(log, r)
        else:
            for t in tasks:
                results.append(_task(t))
                _log(log, results[-1])
    finally:
        if log is not None:
            log.close()
    elapsed = time.perf_counter() - start
    print(
        f"tournament: --a {args.a} --b {args.b} --players {args.players} --deals {args.deals}"
        f" --rules {args.rules} --seed {args.seed}"
        + (f" --deck {args.deck}" if args.deck != 36 else "")
        + (" --show-trump" if args.show_trump else "")
        + (f" --teams {args.teams}" if teams else "")
        + (f" --budget {args.budget}" if args.budget is not None else "")
        + (f" --iterations {args.iterations}" if args.iterations is not None else "")
        + (f" --a-iterations {args.a_iterations}" if args.a_iterations is not None else "")
        + (f" --b-iterations {args.b_iterations}" if args.b_iterations is not None else "")
        + (f" --clock {args.clock}" if args.clock is not None else "")
        + "".join(f" --a-opt {k}={v}" for k, v in args.a_opt)
        + "".join(f" --b-opt {k}={v}" for k, v in args.b_opt)
        + f"  ({elapsed:.0f} s)"
    )
    print(summarize(results, args.players, label_a, label_b, teams=teams))
    return 0


if __name__ == "__main__":
    sys.exit(main())
