"""``python -m rules_engine.review FILE --seat N [--deals K] [--seed S] [--json]``: its output
for a whole game, a game that stops early and a position that starts mid-game, and one clear
line with exit 2 for every kind of bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rules_engine.review import main

from .review_support import scenario_of, seeded_record

#: A mid-game position (seat 1 has taken before: 9 cards; 12 cards discarded) that the file
#: does not play to its end.
MID_GAME: dict[str, Any] = {
    "name": "mid-game: seat 0 leads with the stock nearly gone",
    "rules": "podkidnoy",
    "hands": [
        ["6♠", "7♥", "9♦", "J♣", "Q♠", "A♦"],
        ["6♥", "7♠", "8♠", "10♦", "J♥", "K♣", "K♦", "8♣", "9♣"],
    ],
    "stock": ["6♦", "7♦", "A♥", "10♥", "Q♥", "8♦", "10♣"],
    "discard": ["6♣", "7♣", "8♥", "9♥", "9♠", "10♠", "J♠", "J♦", "Q♦", "Q♣", "K♠", "K♥"],
    "leader": 0,
    "first_round": False,
    "actions": ["0 attack 6♠", "1 defend 6♠ 7♠", "0 attack 7♥", "1 take"],
}

#: A two-player endgame with an empty stock (and only 8 cards of the deck in play: the others
#: count as out of play), played to its end: every choice is exact.
ENDGAME: dict[str, Any] = {
    "rules": "podkidnoy",
    "hands": [["9♣", "K♠", "6♦", "10♥"], ["9♦", "7♥", "J♣", "Q♦"]],
    "trump": "♠",
    "first_round": False,
    "actions": [
        "0 attack 9♣",
        "1 defend 9♣ J♣",
        "1 attack 7♥",
        "0 defend 7♥ K♠",
        "0 attack 6♦",
        "1 defend 6♦ 9♦",
        "1 attack Q♦",
        "0 take",
    ],
}


def _write(tmp_path: Path, data: object, name: str = "game.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return str(path)


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_gives_every_decision_of_the_seat_with_its_choices(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = seeded_record(21, level="casual")
    path = _write(tmp_path, scenario_of(record))
    code, out, err = _run(capsys, path, "--seat", "1", "--deals", "6", "--seed", "3", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["seat"] == 1 and data["finished"] is True and data["deals"] == 6
    assert 0 <= data["accuracy"] <= 100
    assert data["decisions"]
    for d in data["decisions"]:
        assert record.actions[d["index"]] == d["action"] and d["action"].startswith("1 ")
        actions = [c["action"] for c in d["choices"]]
        assert len(actions) > 1 and d["action"] in actions and d["best"] in actions
        assert d["label"] in ("best", "good", "inaccuracy", "mistake", "blunder")
        assert d["lost"] >= 0
        for c in d["choices"]:
            assert 0 <= c["durak"] <= 1 and c["stderr"] >= 0 and isinstance(c["exact"], bool)
    again = _run(capsys, path, "--seat", "1", "--deals", "6", "--seed", "3", "--json")
    assert again[1] == out


def test_text_lists_each_decisions_choices_with_the_chosen_and_the_best(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = seeded_record(22, level="casual")
    path = _write(tmp_path, scenario_of(record))
    code, out, err = _run(capsys, path, "--seat", "0", "--deals", "6")
    assert code == 0 and err == ""
    _, as_json, _ = _run(capsys, path, "--seat", "0", "--deals", "6", "--json")
    data = json.loads(as_json)
    assert f"accuracy {data['accuracy']:.1f}" in out.splitlines()[0]
    for d in data["decisions"]:
        assert f"#{d['index']} {d['action']}: {d['label']}" in out
        for c in d["choices"]:
            assert f"{c['action']}" in out
    assert out.count("<- chosen") == len(data["decisions"])
    assert out.count("best") >= len(data["decisions"])


def test_a_mid_game_file_that_stops_early_is_reviewed_up_to_its_last_action(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, MID_GAME)
    code, out, err = _run(capsys, path, "--seat", "0", "--deals", "8", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["finished"] is False and data["loser"] is None
    # seat 0 chose at actions 0 (its lead) and 2 (adding 7♥ rather than passing)
    assert [d["index"] for d in data["decisions"]] == [0, 2]
    code, text, _ = _run(capsys, path, "--seat", "0", "--deals", "8")
    assert code == 0 and "does not reach its end" in text


def test_an_endgame_with_every_card_known_is_reviewed_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, ENDGAME)
    code, out, _ = _run(capsys, path, "--seat", "0", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["finished"] is True and data["loser"] == 0
    assert [d["index"] for d in data["decisions"]] == [0, 3, 4]
    for d in data["decisions"]:
        assert all(c["exact"] and c["stderr"] == 0 for c in d["choices"])
    last = data["decisions"][-1]
    assert last["action"] == "0 attack 6♦" and last["best"] == "0 attack 10♥"
    assert last["label"] == "blunder" and last["lost"] == 1
    assert data["worst"] == [4] and data["accuracy"] == round(200 / 3, 1)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.json", "--seat", "0"], "missing.json: cannot read"),
        (["{bad}", "--seat", "5"], "there is no seat 5 in this game (seats 0 to 1)"),
        (["{bad}", "--seat", "-1"], "there is no seat -1"),
        (["{bad}", "--seat", "x"], "argument --seat: invalid int value: 'x'"),
        (["{bad}"], "the following arguments are required: --seat"),
        (["{bad}", "--seat", "0", "--deals", "1"], "--deals must be at least 2"),
        (["{notjson}", "--seat", "0"], "bad JSON"),
        (["{notgame}", "--seat", "0"], "invalid scenario"),
        (["{illegal}", "--seat", "0"], "action 1 '1 defend 6♠ 6♥' is illegal"),
        (["{over}", "--seat", "0"], "comes after the end of the game"),
    ],
)
def test_bad_input_gets_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    files = {
        "{bad}": _write(tmp_path, MID_GAME, "mid.json"),
        "{notjson}": str(tmp_path / "notjson.json"),
        "{notgame}": _write(tmp_path, {"hands": "no"}, "notgame.json"),
        "{illegal}": _write(
            tmp_path, {**MID_GAME, "actions": ["0 attack 6♠", "1 defend 6♠ 6♥"]}, "illegal.json"
        ),
        "{over}": _write(
            tmp_path,
            {
                "hands": [["6♠"], ["7♥"]],
                "trump": "♦",
                "actions": ["0 attack 6♠", "1 take", "0 pass"],
            },
            "over.json",
        ),
    }
    (tmp_path / "notjson.json").write_text("{", encoding="utf-8")
    code = _exit_code([files.get(a, a) for a in args])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert message in err


def _exit_code(argv: list[str]) -> int:
    """``main``'s return value, or the code it exits with (argparse exits on bad options)."""
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


def test_the_module_runs_from_the_command_line(tmp_path: Path) -> None:
    path = _write(tmp_path, MID_GAME)
    done = subprocess.run(
        [sys.executable, "-m", "rules_engine.review", path, "--seat", "1", "--deals", "4"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "seat 1:" in done.stdout
    missing = subprocess.run(
        [sys.executable, "-m", "rules_engine.review", str(tmp_path / "nope.json"), "--seat", "0"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr.strip().endswith("cannot read: No such file or directory")
