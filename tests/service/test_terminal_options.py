"""``durak-bot play --deck 24|36|52 --show-trump --teams 2x2|3x3`` (RULES.md §10): a
combination the engine refuses is its one sentence and exit 2; a team game and a 24-card
show-trump game are played through the terminal's input to their end."""

from __future__ import annotations

from pathlib import Path

import pytest

import apps.cli as cli

from .test_terminal import Console, _play


@pytest.mark.parametrize(
    ("args", "sentence"),
    [
        (
            ["--teams", "2x2", "--rules", "perevodnoy"],
            "teams '2x2' are played without transfers: turn transfer off",
        ),
        (["--show-trump"], "show_trump needs transfer on: showing a trump is a way to transfer"),
        (
            ["--deck", "24", "--players", "5"],
            "a 24-card pack deals six cards to at most 4 players, not 5",
        ),
        (["--teams", "3x3", "--players", "4"], "teams '3x3' need exactly 6 players, not 4"),
        (
            ["--teams", "2x2", "--web"],
            "--deck, --show-trump and --teams are not offered with --web",
        ),
    ],
)
def test_an_invalid_combination_is_one_sentence_and_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], sentence: str
) -> None:
    assert cli.main(["play", *args]) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [sentence] and captured.out == ""


def test_the_options_reach_the_game(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[object, ...]] = []

    async def fake_play(players: int, rules: str, level: str, **kw: object) -> int:
        seen.append((players, rules, kw["deck"], kw["show_trump"], kw["teams"]))
        return 0

    monkeypatch.setattr("terminal.session.play", fake_play)
    assert cli.main(["play", "--teams", "3x3", "--deck", "52"]) == 0
    assert cli.main(["play", "--rules", "perevodnoy", "--deck", "24", "--show-trump"]) == 0
    assert cli.main(["play"]) == 0
    assert seen == [
        (6, "podkidnoy", 52, None, "3x3"),  # --teams alone sets the seats
        (2, "perevodnoy", 24, True, None),
        (2, "podkidnoy", None, None, None),
    ]


def test_a_team_game_is_played_to_its_end(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    console = Console([["1"]] * 300)  # the first action each time; "1" then ends the series
    code = _play(console, "--teams", "2x2", "--seed", "7", "--ai-delay", "0")
    out = console.text
    assert code == 0
    assert "Durak (podkidnoy, teams 2x2) with 1 beginner AI against 2 beginner AI" in out
    assert "  Team 1: Player & Beginner AI 2\n  Team 2: Beginner AI & Beginner AI 3" in out
    assert "0: Player: 6 card(s) (" in out and "Team 1)" in out
    assert "36-card pack" in out
    assert " lost!" in out or "A draw" in out
    assert out.rstrip().endswith("Bye!")


def test_a_24_card_game_offers_and_shows_a_trump(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)

    def script():  # show a trump when offered, else the first action
        while True:
            text = console.text
            offered = [
                line.split(".")[0].strip()
                for line in text[text.rfind("Your hand") :].splitlines()
                if ". show " in line
            ]
            yield [offered[0] if offered else "1"]

    console = Console(script())
    code = _play(
        console,
        *("--rules", "perevodnoy", "--deck", "24", "--show-trump", "--seed", "1"),
        *("--ai-delay", "0"),
    )
    out = console.text
    assert code == 0
    assert "— perevodnoy, 24-card pack, show trump, round 1" in out
    assert "   5. show K♦" in out and "  Player showed K♦" in out
    assert "Game over" in out
