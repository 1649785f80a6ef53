"""``python -m tests.e2e.discord_bench`` plays a game against the fake Discord and prints its
``key=value`` lines; at full speed the table stays within the bot-token budget."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARGS = ("--games", "1", "--ai-delay", "0", "--think", "0", "--routes")


def test_one_game_at_full_speed_within_the_budget() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tests.e2e.discord_bench", *ARGS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("games=")]
    assert len(lines) == 2  # the game's line and the run's
    figures = dict(pair.split("=", 1) for pair in lines[-1].split())
    actions = int(figures["actions"])
    assert actions > 10 and int(figures["human_moves"]) > 0
    assert int(figures["interaction_requests"]) > 0 and int(figures["webhook_requests"]) > 0
    assert float(figures["bot_per_action"]) <= 0.5  # the budget
    assert float(figures["shown_max_ms"]) < 1500  # a move reaches the table (busy machine)
    # the table is posted and edited through press tokens, not the bot token
    assert "webhook POST /webhooks/…/…" in done.stdout
    assert "bot PATCH /channels/…/messages/…" not in done.stdout
