"""``python -m apps.bench`` runs briefly on both backends and prints its one ``key=value`` line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KEYS = {
    "backend",
    "processes",
    "games",
    "ai",
    "actions_per_s",
    "p50_ms",
    "p99_ms",
    "loop_lag_p99_ms",
    "loop_lag_max_ms",
    "peak_rss_mb",
    "cpu_s",
    "ai_cpu_s",
    "db_cpu_s",
    "p99_ms_each",
}


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["AI_WORKERS"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "apps.bench", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def result(done: subprocess.CompletedProcess[str]) -> dict[str, str]:
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1, done.stdout
    fields = dict(item.split("=", 1) for item in lines[0].split())
    assert set(fields) >= KEYS, sorted(KEYS - set(fields))
    return fields


def test_sqlite_one_process_with_an_ai_level() -> None:
    r = result(bench("--backend", "sqlite", "--games", "4", "--seconds", "2", "--ai", "counter"))
    assert (r["backend"], r["processes"], r["games"], r["ai"]) == ("sqlite", "1", "4", "counter")
    assert float(r["actions_per_s"]) > 0 and float(r["p99_ms"]) >= float(r["p50_ms"]) > 0
    assert r["db_cpu_s"] == "embedded" and len(r["cpu_s"].split(",")) == 1


def test_reviews_run_beside_the_games_and_are_counted() -> None:
    args = ("--games", "2", "--seconds", "3", "--players", "2", "--reviews", "1")
    r = result(bench("--backend", "sqlite", *args, "--review-deals", "4"))
    assert r["reviews"] == "1" and int(r["reviews_done"]) >= 1
    assert float(r["ai_p99_ms"]) >= float(r["ai_p50_ms"]) > 0 and float(r["actions_per_s"]) > 0


def test_postgres_two_processes_start_their_own_server() -> None:
    done = bench("--backend", "postgres", "--processes", "2", "--games", "4", "--seconds", "2")
    if done.returncode == 2 and "cannot start a throwaway PostgreSQL" in done.stderr:
        if os.environ.get("CI"):
            pytest.fail(done.stderr)
        pytest.skip(done.stderr.strip())
    r = result(done)
    assert (r["backend"], r["processes"]) == ("postgres", "2")
    assert len(r["cpu_s"].split(",")) == 2 and len(r["p99_ms_each"].split(",")) == 2
    assert float(r["actions_per_s"]) > 0 and float(r["db_cpu_s"]) >= 0


def test_sqlite_refuses_several_processes() -> None:
    done = bench("--backend", "sqlite", "--processes", "2", "--games", "1", "--seconds", "1")
    assert done.returncode == 2 and "held by one process" in done.stderr
    assert done.stdout == ""


class _FakeServer:
    def url(self) -> str:
        return "postgresql://throwaway.invalid/bench"

    def stop(self) -> None:
        pass


def test_postgres_never_writes_into_an_exported_database_url(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bench's games go to a throwaway server unless a URL is given on its command line:
    an exported ``DATABASE_URL`` is most likely the bot's own database."""
    from apps import bench as bench_module
    from bot.storage import throwaway_pg

    used: list[str] = []

    def fake_run(_args: object, url: str, _postmaster: int | None) -> dict[str, object]:
        used.append(url)
        return {}

    monkeypatch.setattr(bench_module, "_run", fake_run)
    monkeypatch.setattr(bench_module, "_line", lambda *_a: "done")
    monkeypatch.setattr(throwaway_pg, "start_throwaway_postgres", lambda _root: _FakeServer())
    monkeypatch.setattr(bench_module, "_postmaster_pid", lambda _root: None)
    monkeypatch.setenv("DATABASE_URL", "postgresql://bot:secret@db.invalid/durak")
    assert bench_module.main(["--backend", "postgres", "--games", "1", "--seconds", "1"]) == 0
    given = "postgresql://bench@db.invalid/scratch"
    args = ["--backend", "postgres", "--games", "1", "--seconds", "1", "--database-url", given]
    assert bench_module.main(args) == 0
    assert used == ["postgresql://throwaway.invalid/bench", given]


def test_a_database_url_needs_postgres() -> None:
    done = bench("--backend", "sqlite", "--database-url", "postgresql://x.invalid/db")
    assert done.returncode == 2 and "--database-url takes a postgresql:// URL" in done.stderr
    assert done.stdout == ""


def test_the_web_bench_opens_more_pages_than_one_address_may_hold() -> None:
    """``python -m apps.web_bench`` opens every page from 127.0.0.1: more than the rooms' cap of
    sockets per address (20), which the bench lifts for its run."""
    done = subprocess.run(
        [sys.executable, "-m", "apps.web_bench", "--games", "6", "--pages", "4", "--seconds", "3"],
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (line,) = done.stdout.strip().splitlines()
    fields = dict(item.split("=", 1) for item in line.split())
    assert fields["pages"] == "24" and int(fields["actions"]) > 0
    assert float(fields["p99_ms"]) >= float(fields["p50_ms"]) > 0
