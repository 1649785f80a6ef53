"""A tiny fault campaign of each kind, so that CI keeps the campaign working, and the checker
caught in the act: fed a lost action, a duplicated acknowledgement, a lost join, a refused join
that was applied, a corrupted game and wrong series counts, it reports each.

The real campaigns (tens of kills, minutes of two processes) are run by hand:
``python -m tests.faults.campaign --help`` and the README's "Fault campaign".  The PostgreSQL
parts need a throwaway server (``CI=true`` makes its absence a failure, as elsewhere)."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot.storage import sqlite_url

from .acklog import read_logs
from .campaign import CampaignError, kill_campaign, main, refuse_used, two_process_campaign
from .checker import Report, check_database


@pytest.fixture(scope="module")
def sqlite_campaign(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """Three kills on SQLite, through the command line: ``(work directory, its output)``."""
    workdir = tmp_path_factory.mktemp("kill-sqlite")
    args = ["kill", "--kills", "3", "--channels", "3", "--min-delay", "0.3"]
    args += ["--max-delay", "0.6", "--workdir", str(workdir), "--seed", "1"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(args)
    assert status == 0, out.getvalue()
    return workdir, out.getvalue()


def _acks(workdir: Path) -> list[str]:
    return sorted(str(p) for p in (workdir / "acks").glob("ack-*.jsonl"))


def _planted(tmp_path: Path, workdir: Path, *lines: dict[str, Any]) -> list[str]:
    """The campaign's ack logs, and one more holding ``lines``."""
    extra = tmp_path / "planted.jsonl"
    extra.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return [*_acks(workdir), str(extra)]


def _db(workdir: Path) -> str:
    return sqlite_url(str(workdir / "durak.sqlite3"))


# ------------------------------------------------------------------------------ campaigns
async def test_a_kill_campaign_on_sqlite_loses_nothing(sqlite_campaign: tuple[Path, str]) -> None:
    workdir, out = sqlite_campaign
    assert "kills (SIGKILL)         3" in out and "verdict                 CLEAN" in out
    report = await check_database(_db(workdir), _acks(workdir))
    lines = read_logs(_acks(workdir))
    assert lines.ready == 3  # three processes restored, pressed and were killed
    assert report.acked_actions == len(lines.acts) > 0
    assert report.acked_joins == 6  # each channel's host and guest, once
    assert report.integrity == "ok" and report.clean, report.problems()


async def test_a_campaign_refuses_a_database_that_holds_games(
    sqlite_campaign: tuple[Path, str],
) -> None:
    with pytest.raises(CampaignError, match="already holds games"):
        await refuse_used(_db(sqlite_campaign[0]))


async def test_a_kill_campaign_on_postgresql_loses_nothing(
    postgres_url: str, tmp_path: Path
) -> None:
    figures = await kill_campaign(
        postgres_url, tmp_path, kills=3, channels=3, min_delay=0.3, max_delay=0.6, seed=2
    )
    assert figures.kills == 3 and figures.report.acked_actions > 0
    assert figures.clean, figures.text()


async def test_two_processes_on_the_same_channels_lose_nothing(
    postgres_url: str, tmp_path: Path
) -> None:
    figures = await two_process_campaign(
        postgres_url, tmp_path, seconds=3, channels=2, restart_min=1.0, restart_max=1.5, seed=3
    )
    report = figures.report
    assert figures.kills >= 1
    assert report.acked_joins > 0 and report.acked_actions > 0
    assert figures.clean, figures.text()


# ------------------------------------------------------------------------------ the checker
def _an_ack(workdir: Path) -> dict[str, Any]:
    return read_logs(_acks(workdir)).acts[-1]


async def test_the_checker_reports_an_acknowledged_action_that_is_not_stored(
    sqlite_campaign: tuple[Path, str], tmp_path: Path
) -> None:
    workdir, _ = sqlite_campaign
    last = _an_ack(workdir)
    beyond = {**last, "v": last["v"] + 500, "after": last["v"] + 500}
    elsewhere = {**last, "a": "9 take"}  # its position holds another action
    report = await check_database(_db(workdir), _planted(tmp_path, workdir, beyond, elsewhere))
    assert len(report.lost_actions) == 2, report.lost_actions
    assert "the stored log has" in report.lost_actions[0]
    assert "'9 take'" in report.lost_actions[1] and "is stored there" in report.lost_actions[1]
    assert len(report.duplicated_actions) == 1  # the second names a position acked already
    assert not report.clean


async def test_the_checker_reports_an_action_acknowledged_twice(
    sqlite_campaign: tuple[Path, str], tmp_path: Path
) -> None:
    workdir, _ = sqlite_campaign
    last = _an_ack(workdir)
    report = await check_database(_db(workdir), _planted(tmp_path, workdir, last))
    assert report.duplicated_actions == [
        f"game {last['game']} action {last['v']} acknowledged twice"
    ]
    assert report.lost_actions == [] and not report.clean


async def test_the_checker_reports_a_lost_join_and_a_refused_join_that_was_applied(
    sqlite_campaign: tuple[Path, str], tmp_path: Path
) -> None:
    workdir, _ = sqlite_campaign
    seated = read_logs(_acks(workdir)).joins[0]
    lost = {"k": "join", "ch": seated["ch"], "user": 424242}
    applied = {"k": "refused", "what": "join", "error": "ChannelMoved"}
    applied |= {"ch": seated["ch"], "user": seated["user"]}
    report = await check_database(_db(workdir), _planted(tmp_path, workdir, lost, applied))
    assert report.lost_joins == [f"user 424242 in channel {seated['ch']}"]
    assert report.refused_but_applied == [
        f"user {seated['user']} in channel {seated['ch']} (ChannelMoved)"
    ]
    assert report.refusals["ChannelMoved"] == 1


async def test_the_checker_reports_corrupted_games_and_wrong_series_counts(
    sqlite_campaign: tuple[Path, str], tmp_path: Path
) -> None:
    workdir, _ = sqlite_campaign
    copy = tmp_path / "durak.sqlite3"
    con = sqlite3.connect(workdir / "durak.sqlite3")
    try:
        con.execute("VACUUM INTO ?", (str(copy),))
    finally:
        con.close()
    con = sqlite3.connect(copy)
    try:
        with con:
            finished, actions = con.execute(
                "SELECT id, actions FROM games WHERE result IN ('loss', 'draw') LIMIT 1"
            ).fetchone()
            # the finished game's last action is gone: its log no longer ends the game
            shorter = json.dumps(json.loads(actions)[:-1])
            con.execute("UPDATE games SET actions = ? WHERE id = ?", (shorter, finished))
            live, snapshot = con.execute(
                "SELECT game_id, snapshot FROM live_games LIMIT 1"
            ).fetchone()
            # a live game's log no longer leads to its stored state
            data = json.loads(snapshot)
            data["actions"] = data["actions"][:-1]
            con.execute(
                "UPDATE live_games SET snapshot = ? WHERE game_id = ?", (json.dumps(data), live)
            )
            con.execute(
                "UPDATE series SET games = games + 1 WHERE id = (SELECT MIN(id) FROM series)"
            )
    finally:
        con.close()
    report: Report = await check_database(sqlite_url(str(copy)), _acks(workdir))
    assert len(report.corrupted_games) == 2, report.corrupted_games
    assert f"game {finished} is a" in report.corrupted_games[0]
    assert "does not end the game" in report.corrupted_games[0]
    assert f"game {live} (live) does not read back" in report.corrupted_games[1]
    assert len(report.series_mismatches) == 1
    assert not report.clean
