"""The scenario files of tests/scenarios/ and the runner contract of SCENARIOS.md.

CI checks every scenario's `expect` block here with the comparison of
../shared/tools/check_scenarios.py: ok flags in order; state keys given, with hands (per seat),
discard and out as sets and the table in order; legal as a set of normalised action texts.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "tests" / "scenarios"
FILES = sorted(SCENARIOS.glob("*.json"))
INVALID = sorted((SCENARIOS / "invalid").glob("*.json"))
SECTIONS = {
    "1", "2", "3", "5", "6.1", "6.2", "6.3", "6.4", "7.1", "7.2", "7.3", "9",
    "10.1", "10.2", "10.3",
}  # fmt: skip
STATE_KEYS = {
    "round", "first_round", "trump", "trump_card", "stock", "discard", "hands", "out", "leader",
    "attacker", "defender", "limit", "table", "taking", "to_act", "finished", "loser", "draw",
    "played_by", "shown", "losers",
}  # fmt: skip
SUIT_LETTERS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def run(*files: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rules_engine.scenario", *map(str, files)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        timeout=120,
    )


# ------------------------------------------------------------------ the comparison
def canon(card: str) -> str:
    rank, suit = card[:-1].upper(), card[-1]
    return ("10" if rank == "T" else rank) + SUIT_LETTERS.get(suit.upper(), suit)


def norm_action(text: str) -> str:
    parts = text.split()
    cards = [canon(c) for c in parts[2:]]
    if len(parts) > 1 and parts[1] in ("attack", "transfer"):
        cards.sort()  # the cards of one attack or transfer are a set
    return " ".join(parts[:2] + cards)


def differences(expect: dict[str, Any], got: dict[str, Any]) -> list[str]:
    out = []
    if "ok" in expect:
        got_ok = [step.get("ok") for step in got.get("steps", [])]
        if got_ok != expect["ok"]:
            out.append(f"ok flags: expected {expect['ok']}, got {got_ok}")
    state = got.get("state", {})
    for key, want in expect.get("state", {}).items():
        have = state.get(key)
        if key == "hands":
            want = [sorted(h) for h in want]
            have = [sorted(h) for h in (have or [])]
        elif key in ("discard", "out"):
            want, have = sorted(want), sorted(have or [])
        if want != have:
            out.append(f"state.{key}: expected {want!r}, got {have!r}")
    if "legal" in expect:
        want_legal = sorted(norm_action(a) for a in expect["legal"])
        have_legal = sorted(norm_action(a) for a in got.get("legal", []))
        if want_legal != have_legal:
            out.append(f"legal: expected {want_legal}, got {have_legal}")
    return out


def test_comparison_detects_differences() -> None:
    got = {
        "steps": [{"ok": True}, {"ok": False}],
        "state": {"hands": [["A♠", "6♥"], []], "discard": ["7♠", "8♠"], "out": [1],
                  "table": [["8♥", None], ["9♠", "J♦"]], "limit": 3},
        "legal": ["1 take", "1 attack 8♠ 8♥"],
    }  # fmt: skip
    same = {
        "ok": [True, False],
        "state": {"hands": [["6♥", "A♠"], []], "discard": ["8♠", "7♠"], "out": [1],
                  "table": [["8♥", None], ["9♠", "J♦"]], "limit": 3},
        "legal": ["1 attack 8h 8s", "1 take"],
    }  # fmt: skip
    assert differences(same, got) == []
    for key, value in [
        ("table", [["9♠", "J♦"], ["8♥", None]]),  # the table is ordered
        ("hands", [[], ["6♥", "A♠"]]),  # hands are per seat
        ("limit", 4),
        ("discard", ["7♠"]),
    ]:
        other = json.loads(json.dumps(same))
        other["state"][key] = value
        assert differences(other, got), key
    assert differences({**same, "ok": [True, True]}, got)
    assert differences({**same, "legal": ["1 take"]}, got)


# ------------------------------------------------------------------ every scenario file
@pytest.fixture(scope="module")
def traces() -> dict[str, dict[str, Any]]:
    """All scenario files in one runner call: one compact trace per line, in order."""
    proc = run(*FILES)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == len(FILES)
    return {f.name: json.loads(line) for f, line in zip(FILES, lines, strict=True)}


def test_enough_scenarios_named_after_rules_sections() -> None:
    ours = [f for f in FILES if re.match(r"s\d", f.name)]
    assert len(ours) >= 30
    for f in ours:
        m = re.fullmatch(r"s(\d+(?:\.\d+)?)-[a-z0-9.-]+\.json", f.name)
        assert m and m.group(1) in SECTIONS, f.name
    covered = {re.match(r"s(\d+(?:\.\d+)?)-", f.name).group(1) for f in ours}  # type: ignore[union-attr]
    assert covered == SECTIONS


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_scenario_expectations(path: Path, traces: dict[str, dict[str, Any]]) -> None:
    scenario = json.loads(path.read_text(encoding="utf-8"))
    expect = scenario["expect"]
    if re.match(r"s\d", path.name):
        # ours are complete: every step's flag, the whole state, the legal list
        assert set(expect) == {"ok", "state", "legal"}
        assert len(expect["ok"]) == len(scenario["actions"])
        assert set(expect["state"]) == STATE_KEYS
    trace = traces[path.name]
    assert [s["action"] for s in trace["steps"]] == scenario["actions"]
    for step in trace["steps"]:
        if not step["ok"]:
            assert step["error"] and "\n" not in step["error"]
    assert differences(expect, trace) == []


# ------------------------------------------------------------------ the runner contract
@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.name)
def test_invalid_file_exits_2_with_one_line(path: Path) -> None:
    proc = run(path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    message = proc.stderr.strip()
    assert message and "\n" not in message and "Traceback" not in message
    assert path.name in message


def test_enough_invalid_files() -> None:
    names = {p.stem for p in INVALID}
    for required in ("unknown-card", "duplicate-card", "bad-json", "wrong-trump", "bad-leader",
                     "seven-seats", "empty-hand-with-stock",
                     # RULES.md §10: options that do not go together or do not suit the seats
                     "teams-with-transfer", "show-trump-without-transfer", "deck-24-five-seats",
                     "teams-3x3-four-seats"):  # fmt: skip
        assert required in names


def test_enough_option_scenarios() -> None:
    """Issue 30: at least 40 scenarios for the options of RULES.md §10, every subsection."""
    ours = [f for f in FILES if f.name.startswith("s10.")]
    assert len(ours) >= 40
    assert {f.name[:5] for f in ours} == {"s10.1", "s10.2", "s10.3"}


def test_invalid_file_among_valid_ones_fails_the_run() -> None:
    proc = run(FILES[0], INVALID[0], FILES[1])
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1


def test_missing_file_and_no_arguments_exit_2() -> None:
    proc = run(SCENARIOS / "no-such-file.json")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    proc = run()
    assert proc.returncode == 2 and proc.stderr.strip()


def test_single_file_prints_one_json_trace() -> None:
    path = SCENARIOS / "s9-001-limit-take.json"
    proc = run(path)
    assert proc.returncode == 0 and proc.stderr == ""
    trace = json.loads(proc.stdout)
    assert set(trace) == {"steps", "state", "legal"}
    assert set(trace["state"]) == STATE_KEYS


def test_several_files_one_compact_line_each_in_order() -> None:
    picked = [
        SCENARIOS / "s9-001-limit-take.json",
        SCENARIOS / "s1-notation-letters.json",
        SCENARIOS / "s7.3-draw-all-hands-empty.json",
        SCENARIOS / "s9-001-limit-take.json",
    ]
    proc = run(*picked)
    assert proc.returncode == 0 and proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert len(lines) == len(picked)
    for path, line in zip(picked, lines, strict=True):
        trace = json.loads(line)
        assert line == json.dumps(trace, ensure_ascii=False, separators=(",", ":"))
        single = json.loads(run(path).stdout)
        assert trace == single
        actions = json.loads(path.read_text(encoding="utf-8"))["actions"]
        assert [s["action"] for s in trace["steps"]] == actions
    assert lines[0] == lines[3] != lines[1]


def test_unparsable_action_is_reported_in_the_trace(tmp_path: Path) -> None:
    path = tmp_path / "bad-action.json"
    path.write_text(
        json.dumps(
            {"hands": [["8♥"], ["9♥"]], "trump": "♦",
             "actions": ["0 fold", "² pass", "0 attack 8♥ 8♥", "0 attack 8♥"]},
            ensure_ascii=False,
        ),
        encoding="utf-8",
    )  # fmt: skip
    proc = run(path)
    assert proc.returncode == 0, proc.stderr
    steps = json.loads(proc.stdout)["steps"]
    assert [s["ok"] for s in steps] == [False, False, False, True]
    assert all(s["error"] for s in steps[:3])
