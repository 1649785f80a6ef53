"""Terminal mode (``durak-bot play``): lines apply to the position they were typed on, Ctrl-C
and the end of input stop at once, messages quote only what the user typed."""

from __future__ import annotations

import io
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

import apps.cli as cli
from bot.views import ActionChoice, HandCard, HandView
from rules_engine import ActionKind, parse_card
from rules_engine.messages import Message
from terminal.session import LEGEND, _card_refusal, _choices_using, turn_time

ROOT = Path(__file__).resolve().parents[2]
PROMPTS = ("> ", "Rematch? [y/N]")


class Console:
    """A fake terminal: stdout for the game, and a stdin that hands out the next burst of lines
    only once a new prompt has been printed, as a person reading the screen would type them.

    ``script`` yields one burst (a list of lines typed in one go) per prompt; when it ends, the
    input ends."""

    def __init__(self, script: Iterable[list[str]]) -> None:
        self._script: Iterator[list[str]] = iter(script)
        self._cond = threading.Condition()
        self._out = io.StringIO()
        self._prompts = 0  # prompts printed
        self._answered = 0  # prompts a burst was handed out for
        self._burst: list[str] = []

    # stdout
    def write(self, text: str) -> int:
        with self._cond:
            self._out.write(text)
            self._prompts += sum(1 for line in text.splitlines() if line in PROMPTS)
            self._cond.notify_all()
        return len(text)

    def flush(self) -> None:
        pass

    @property
    def text(self) -> str:
        return self._out.getvalue()

    # stdin
    def readline(self) -> str:
        with self._cond:
            if not self._burst:
                if not self._cond.wait_for(lambda: self._prompts > self._answered, timeout=30):
                    return ""
                self._answered = self._prompts
                self._burst = list(next(self._script, []))
                if not self._burst:
                    return ""
            return self._burst.pop(0) + "\n"


#: A line of the table's recent actions that the human player played.
PLAYED = r"^  Player (?:attacks|covers|transfers|takes|passes|throws in)"


def _play(console: Console, *args: str) -> int:
    return cli.main(["play", *args], stdin=console, stdout=console)  # type: ignore[arg-type]


def test_a_line_typed_ahead_is_refused_as_stale(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    # "1⏎1⏎" at the first prompt, then quit at the next one after the refusal
    console = Console([["1", "1"], ["q"]])
    # the AI waits 0.3 s, so the second line is read while the first position is on screen
    assert _play(console, "--seed", "1", "--ai-delay", "0.3") == 0
    out = console.text
    first_prompt = out.index("\n> \n")
    refusal = out.index(
        "! '1' was typed before the position above was shown: nothing was played. Choose again."
    )
    second_hand = out.index("Your hand", first_prompt)
    assert first_prompt < second_hand < refusal  # refused at the second position
    moves_after_first_prompt = re.findall(r"^  Player attacks with (.+)$", out[first_prompt:], re.M)
    assert moves_after_first_prompt == ["6♠"]  # the first "1" only
    assert out.rstrip().endswith("Game stopped.")


def test_a_line_typed_at_the_prompt_is_played() -> None:
    console = Console([["1"], ["1"], ["q"]])
    assert _play(console, "--seed", "1", "--ai-delay", "0") == 0
    assert "was typed before" not in console.text
    assert len(re.findall(PLAYED, console.text, re.M)) == 2


def test_unknown_action_quotes_only_what_was_typed() -> None:
    console = Console([["blah"], ["0 attack 6♠"], ["attack"], ["attack 6x"], ["q"]])
    assert _play(console, "--seed", "1", "--ai-delay", "0") == 0
    out = console.text
    assert "! unknown action 'blah': use attack, defend, transfer, take or pass" in out
    assert "'0 blah'" not in out and "seat" not in out
    assert "! '0 attack 6♠' is not an action: type the number of an action alone" in out
    assert "! attack needs at least one card" in out
    assert "! unknown card '6x'" in out
    assert not re.search(PLAYED, out, re.M)  # nothing was played


def test_a_card_typed_alone_plays_the_one_action_that_uses_it() -> None:
    # seed 1: Player leads holding 6♠ 6♥ 7♥ A♥ 8♣ 6♦
    console = Console([["K♠", "6♠", "7♥"], ["q"]])
    assert _play(console, "--seed", "1", "--ai-delay", "0") == 0
    out = console.text
    assert "! K♠ is not in your hand" in out
    assert (
        "! 6♠ can be played in several ways: type the number of one "
        "(1. attack 6♠, 4. attack 6♠ 6♥, 5. attack 6♠ 6♦, 7. attack 6♠ 6♥ 6♦)"
    ) in out
    assert re.findall(PLAYED, out, re.M) == ["  Player attacks"]
    assert "  Player attacks with 7♥" in out


def test_a_typed_card_is_matched_to_the_choices_by_the_cards_they_use() -> None:
    """The terminal reads which hand cards a choice plays from the choice's ``uses``, not
    from its kind and cards (as showing a card would use a card it does not play)."""
    nine, queen = parse_card("9♠"), parse_card("Q♥")
    shown = ActionChoice(ActionKind.ATTACK, (nine,), uses=(queen,))
    take = ActionChoice(ActionKind.TAKE, (), ())
    legal = (take, shown)
    assert _choices_using(queen, legal) == [(2, shown)]
    assert _choices_using(nine, legal) == []
    hand = HandView(
        channel_id=1,
        game_id=1,
        user_id=1,
        seat=0,
        name="Player",
        version=3,
        cards=(
            HandCard(nine, False, Message("the limit is {limit} attacks this round", limit=1)),
            HandCard(queen, False, None),
        ),
        legal=legal,
        your_turn=True,
        role=None,
        trump="♦",
        deadline=None,
        autopilot=False,
        finished=False,
    )
    assert (
        _card_refusal(nine, [], hand, ["Player"])
        == "9♠ cannot be played now: the limit is 1 attacks this round"
    )
    assert _card_refusal(parse_card("A♣"), [], hand, ["Player"]) == "A♣ is not in your hand"


def test_cards_in_parentheses_are_explained() -> None:
    console = Console([["1"]] * 40 + [["q"]])
    assert _play(console, "--seed", "2", "--ai-delay", "0") == 0
    hands = re.findall(
        r"^Your hand \(trump .\): (.*)\n((?:   ?\d+\..*\n)*)(.*)$", console.text, re.M
    )
    assert hands
    explained = [after == LEGEND for _cards, _actions, after in hands]
    with_parentheses = ["(" in cards for cards, _actions, _after in hands]
    assert explained == with_parentheses  # the legend under exactly the hands that need it
    assert any(with_parentheses)


def test_the_turn_time_reads_per_turn_until_a_second_has_passed() -> None:
    now = 1_000.0
    assert turn_time(None, 60, now) is None
    assert turn_time(now + 60, 60, now) == "60 s per turn"
    assert turn_time(now + 59.5, 60, now) == "60 s per turn"  # not "59 s left" at once
    assert turn_time(now + 58.5, 60, now) == "59 s left"
    assert turn_time(now - 3, 60, now) == "0 s left"
    console = Console([["q"]])
    assert _play(console, "--seed", "1", "--ai-delay", "0") == 0
    assert "\n  Player to lead the round, 600 s per turn\n" in console.text
    assert " s left" not in console.text


def test_terminal_mode_plays_a_game_through_its_input(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    # always choose the first action; after the game: "1" is no to the rematch question
    console = Console([["h"], ["t"], ["zzz"], ["99"]] + [["1"]] * 300)
    code = _play(
        console, "--players", "3", "--rules", "perevodnoy", "--seed", "3", "--ai-delay", "0"
    )
    out = console.text
    assert code == 0
    assert "Durak (perevodnoy) against 2 beginner AI" in out
    assert "Your hand" in out and "1. " in out
    assert "! choose 1–" in out  # "99" is out of range
    assert "! unknown action 'zzz'" in out
    assert "was typed before" not in out
    assert "Game over" in out and "\nSeries: 1 game — " in out
    assert out.rstrip().endswith("Bye!")


def test_end_of_input_stops_the_game(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    stdout = io.StringIO()
    assert (
        cli.main(["play", "--seed", "1", "--ai-delay", "0"], stdin=io.StringIO(""), stdout=stdout)
        == 0
    )
    assert stdout.getvalue().rstrip().endswith("Game stopped.")
    assert cli.main(["play", "--players", "9"], stdin=io.StringIO(""), stdout=stdout) == 2


def _read_until(proc: subprocess.Popen[bytes], marker: bytes, timeout: float) -> bytes:
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    seen = b""
    deadline = time.monotonic() + timeout
    while marker not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"no {marker!r} in {seen.decode(errors='replace')!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 65536)
            assert chunk, f"output ended before {marker!r}: {seen!r}"
            seen += chunk
    return seen


def _start_play(tmp_path: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.Popen(
        [sys.executable, "-m", "apps", "play", "--seed", "1", "--ai-delay", "0"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_ctrl_c_exits_at_once_without_a_traceback(tmp_path: Path) -> None:
    proc = _start_play(tmp_path)
    try:
        shown = _read_until(proc, b"\n> \n", 60)
        proc.send_signal(signal.SIGINT)  # stdin stays open: no line is needed to exit
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == cli.EXIT_INTERRUPTED
    assert err == b""  # no traceback, no warning
    assert (shown + out).decode().rstrip().endswith("Interrupted: game stopped.")


def test_end_of_input_exits_at_once(tmp_path: Path) -> None:
    proc = _start_play(tmp_path)
    try:
        _read_until(proc, b"\n> \n", 60)
        assert proc.stdin is not None
        proc.stdin.close()
        proc.stdin = None  # communicate() must not flush the closed pipe
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and err == b""
    assert out.decode().rstrip().endswith("Game stopped.")


#: The lines of the game's log: actions, throw-ins and round ends (two spaces, then a name).
LOG_LINE = re.compile(
    r"^  (?:(?P<end>Round (?P<round>\d+) over: (?:beaten off|(?P<taker>.+) took the cards)\.)"
    r"|(?P<take>.+) takes the cards"
    r"|(?P<attack>.+) attacks with .+"
    r"|(?P<thrower>.+) throws in .+ for (?P<to>.+) to take"
    r"|.+)$",
    re.M,
)


def _games_with_rematch(games: int) -> Console:
    """A console that plays the first action at every prompt and says yes to ``games - 1``
    rematches (the script looks at the screen, as a player would)."""

    def script() -> Iterator[list[str]]:
        asked = 0
        while True:
            if console.text.rstrip().endswith("Rematch? [y/N]"):
                asked += 1
                yield ["y" if asked < games else "n"]
            else:
                yield ["1"]

    console = Console(script())
    return console


def test_the_log_shows_the_opening_throw_ins_and_each_rounds_end() -> None:
    console = _games_with_rematch(2)
    assert _play(console, "--players", "3", "--seed", "3", "--ai-delay", "0") == 0
    out = console.text
    first, second = out.split("Rematch? [y/N]")[:2]
    # who leads and why, before the first move of each game
    opening = re.search(r"^The lowest trump, (\S+), is (.+)'s: \2 leads\.$", first, re.M)
    assert opening is not None, first[:2000]
    first_move = re.search(r"^  (.+) attacks with (.+)$", first, re.M)
    assert first_move is not None and first_move.start() > opening.end()
    assert first_move.group(1) == opening.group(2)  # the holder of the lowest trump leads
    assert "Shown at the deal" not in first  # with six players only: the dealer's card
    assert re.search(r"^(.+) deals; (.+), on the dealer's left, leads\.$", second, re.M)
    # cards added to a take go to the taker; each round ends once, beaten off or taken
    for game in (first, second):
        rounds, taker = 0, None
        for m in LOG_LINE.finditer(game):
            if m["end"]:
                rounds += 1
                assert int(m["round"]) == rounds
                assert m["taker"] == taker  # "took the cards" exactly after a take
                taker = None
            elif m["take"]:
                taker = m["take"]
            elif m["attack"]:
                assert taker is None, f"an attack on {taker}, who is taking: {m[0]!r}"
            elif m["thrower"]:
                assert m["to"] == taker
        assert rounds >= 5 and taker is None
        assert "Game over" in game
    assert "throws in" in out


def test_with_six_players_the_dealers_shown_card_names_the_trump() -> None:
    console = _games_with_rematch(2)
    assert _play(console, "--players", "6", "--seed", "2", "--ai-delay", "0") == 0
    first, second = console.text.split("Rematch? [y/N]")[:2]
    dealt = (
        r"^Shown at the deal: (\S+), the last card dealt to (.+) \(the dealer\), names the trump\."
    )
    shown = re.search(dealt, first, re.M)
    assert shown is not None
    # seed 2: the dealer's shown card is the lowest trump, so the dealer leads
    assert f"\nThe lowest trump, {shown[1]}, is {shown[2]}'s: {shown[2]} leads.\n" in first
    shown = re.search(dealt, second, re.M)
    assert shown is not None
    assert re.search(
        rf"^{re.escape(shown[2])} deals; .+, on the dealer's left, leads\.$", second, re.M
    )


def test_at_game_over_the_coach_reviews_the_players_decisions() -> None:
    def script() -> Iterator[list[str]]:
        asked = 0
        while True:
            if console.text.rstrip().endswith("Rematch? [y/N]"):
                asked += 1
                yield ["r" if asked == 1 else "n"]
            else:
                yield ["1"]

    console = Console(script())
    args = ("--seed", "1", "--ai-delay", "0", "--review-deals", "4")
    assert _play(console, *args) == 0
    out = console.text
    offer = out.index("Type r for the coach's review of your decisions.")
    review = out.index("The coach is reviewing your decisions…", offer)
    summary = re.search(r"^Accuracy \d+\.\d% over \d+ decisions?$", out[review:], re.M)
    assert summary is not None, out[review:]
    assert re.search(
        r"^Best \d+ · Good \d+ · Inaccuracy \d+ · Mistake \d+ · Blunder \d+$", out, re.M
    )
    pages = re.findall(r"^Move \d+: (Inaccuracy|Mistake|Blunder)$", out, re.M)
    assert len(pages) == len(re.findall(r"^Your hand: ", out, re.M))
    # asked again after the review, then no rematch
    assert out.count("Rematch? [y/N]") == 2 and out.rstrip().endswith("Bye!")


def test_a_bad_review_budget_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    stdout = io.StringIO()
    with pytest.raises(SystemExit) as exc:
        cli.main(["play", "--review-deals", "1"], stdin=io.StringIO(""), stdout=stdout)
    assert exc.value.code == 2 and "at least 2" in capsys.readouterr().err
