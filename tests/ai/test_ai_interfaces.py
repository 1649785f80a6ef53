"""The agent protocol CLI, the tournament CLI, rebuilding a position from an observation,
and the per-move time limits."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from rules_engine import PROFILES, Game, deal_from_seed, observation, parse_action
from rules_engine.agent import serve
from rules_engine.ai import make_agent
from rules_engine.ai.parsed import ParsedObservation
from rules_engine.ai.position import build_game
from rules_engine.bench import main as bench_main
from rules_engine.tournament import GameResult, load_log, play_game, summarize, wilson
from rules_engine.tournament import main as tournament_main

from .ai_support import FAST, agent_cli_answers_legally, random_positions


def test_agent_protocol_in_process() -> None:
    game = Game(PROFILES["perevodnoy"], deal_from_seed(3, 4))
    seat = game.to_act
    assert seat is not None
    obs = observation(game, seat)
    lines = [
        json.dumps({"observation": obs}),
        "not json",
        json.dumps({"new_game": True}),
        json.dumps({"quit": True}),
        json.dumps({"observation": obs}),  # after quit: never read
    ]
    out = io.StringIO()
    code = serve(make_agent("casual", seed=1), io.StringIO("\n".join(lines) + "\n"), out)
    assert code == 0
    replies = [json.loads(x) for x in out.getvalue().splitlines()]
    assert len(replies) == 3
    assert replies[0]["action"] in obs["legal"]
    assert "error" in replies[1]
    assert replies[2] == {"ok": True}


def test_agent_protocol_subprocess() -> None:
    agent_cli_answers_legally("counter", "--seed", "3")


def test_tournament_cli_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert tournament_main(["--a", "casual", "--b", "beginner", "--deals", "3"]) == 0
    text = capsys.readouterr().out
    assert "loss rate" in text and "95% CI" in text and "elo(a - b)" in text
    assert "p50" in text and "p95" in text and "max" in text


def test_tournament_three_players_rotates_seats() -> None:
    seats = set()
    for rot in range(3):
        r = play_game(PROFILES["classic"], 3, 5, rot, "casual", "beginner")
        assert r.error is None
        seats.add(r.a_seat)
    assert seats == {0, 1, 2}


def test_wilson_interval() -> None:
    lo, hi = wilson(80, 100)
    assert 0.70 < lo < 0.72 and 0.86 < hi < 0.88


def test_position_rebuilt_from_an_observation_matches_the_engine() -> None:
    for game in random_positions(150, seed=21):
        seat = game.to_act
        assert seat is not None
        view = ParsedObservation(observation(game, seat))
        rebuilt = build_game(view, list(game.hands), list(reversed(game.stock)))
        assert rebuilt.legal_codes() == game.legal_codes()
        want = game.state_dict()
        got = rebuilt.state_dict()
        assert got == want
        # and both play on identically
        for _ in range(30):
            if game.finished:
                break
            code = game.legal_codes()[0]
            game.apply_code(code)
            rebuilt.apply_code(code)
            assert rebuilt.state_dict() == game.state_dict()


class CountingClock:
    """A clock that moves on by ``step`` seconds every time it is read: time is counted in
    reads, whatever the machine's load."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = 0.0

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_expert_respects_its_hard_budget_on_its_clock() -> None:
    """Every move stops searching once its clock passes the hard limit (a few reads of slack:
    the last playout is finished)."""
    clock = CountingClock(0.004)
    budget = 0.05
    game = Game(PROFILES["perevodnoy"], deal_from_seed(2, 77))
    agents = [
        make_agent("expert", seed=s, budget_s=budget, clock=clock, exact_node_cap=20_000)
        for s in range(2)
    ]
    spent = []
    while not game.finished:
        seat = game.to_act
        assert seat is not None
        before = clock.now
        game.apply(parse_action(agents[seat].choose(observation(game, seat))))
        spent.append(clock.now - before)
    assert max(spent) <= budget + 2 * clock.step, max(spent)
    assert max(spent) > budget * 0.5  # some moves did think: the limit, not idleness, bound them


def test_the_bench_prints_move_times_of_a_level(capsys: pytest.CaptureFixture[str]) -> None:
    """Speed is measured by ``python -m rules_engine.bench --ai LEVEL``, not asserted here."""
    assert bench_main(["--ai", "casual", "--players", "3", "--games", "1"]) == 0
    out = capsys.readouterr().out.splitlines()[-1]
    assert out.startswith("p50_ms=") and "p95_ms=" in out and "over_limit=" in out


def test_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError):
        make_agent("grandmaster")
    assert FAST


def test_tournament_log_holds_every_game_and_summarizes_like_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "games.jsonl"
    args = ["--a", "casual", "--b", "beginner", "--deals", "3", "--log", str(log)]
    assert tournament_main(args) == 0
    printed = capsys.readouterr().out
    games = load_log(str(log))
    assert sorted((g.seed, g.a_seat) for g in games) == [(s, r) for s in (1, 2, 3) for r in (0, 1)]
    assert all(g.cpu["a"] and g.times["a"] for g in games)
    # the loss-rate lines of a summary of the log are those the run printed
    lines = [line for line in summarize(games, 2, "casual", "beginner").splitlines()]
    assert lines[1] in printed and lines[2] in printed


def test_tournament_passes_clock_budget_and_options_to_the_sides(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[tuple[str, dict[str, object]]] = []

    def fake_task(args: tuple[object, ...]) -> GameResult:
        level_a, level_b, opts_a, opts_b = args[4], args[5], args[6], args[7]
        assert isinstance(level_a, str) and isinstance(level_b, str)
        assert isinstance(opts_a, dict) and isinstance(opts_b, dict)
        seen.extend([(level_a, opts_a), (level_b, opts_b)])
        return GameResult(seed=1, a_seat=0, loser_side="b", moves=1)

    monkeypatch.setattr("rules_engine.tournament._task", fake_task)
    argv = ["--a", "expert", "--b", "casual", "--deals", "1", "--clock", "cpu", "--budget", "0.5"]
    argv += ["--a-opt", "think_s=0.2", "--a-opt", "search=tree", "--b-opt", "tempo=3"]
    assert tournament_main(argv) == 0
    assert seen[0] == (
        "expert",
        {"think_s": 0.2, "search": "tree", "budget_s": 0.5, "clock": "cpu"},
    )
    # clock and budget go to clock-bound levels only
    assert seen[1] == ("casual", {"tempo": 3})
    with pytest.raises(SystemExit):
        tournament_main(["--a", "expert", "--b", "casual", "--a-opt", "think_s"])


def test_action_texts_read_again_give_the_same_codes_and_refusals() -> None:
    """``parse_code`` remembers the texts it read (each observation carries the whole
    history): a text read again gives the full parser's code, and a bad text is refused
    every time, never remembered."""
    from rules_engine.ai.parsed import _parse_code, parse_code

    game = Game(PROFILES["perevodnoy"], deal_from_seed(3, 11))
    while not game.finished and game.version < 60:
        game.apply(game.legal_actions()[-1])
    texts = game.history_text()
    assert len(texts) > 20
    for _ in range(2):
        for text in texts:
            action = parse_action(text)
            assert parse_code(text) == (action.seat, action.code)
    for bad in ("0 attack 1♣", "9", "0 fly 6♣"):
        with pytest.raises(Exception) as first:
            _parse_code(bad)
        for _ in range(2):
            with pytest.raises(type(first.value)):
                parse_code(bad)
