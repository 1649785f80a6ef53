"""The fault campaign, repeatable and offline: ``python -m tests.faults.campaign --help``.

``kill``: one bot process (:mod:`tests.faults.player`, play mode) keeps ``--channels``
channels busy on a database; the campaign SIGKILLs it at a random moment (``--min-delay`` to
``--max-delay`` seconds after it restored and started pressing), starts it again, ``--kills``
times, then checks the database against every acknowledged command
(:mod:`tests.faults.checker`).  ``--backend sqlite`` uses a fresh file in the work directory,
``--backend postgresql`` a fresh database on a throwaway server the campaign starts itself
(:mod:`bot.storage.throwaway_pg`), unless ``--database-url`` names an empty database to use.

``two-process``: two bot processes (join mode) on the same channels of one PostgreSQL database
at once, as during a rolling restart: both open, join, start and play lobbies; every
``--restart-min`` to ``--restart-max`` seconds one of them is killed and replaced (half of the
time the new one starts first).  After ``--seconds`` the check runs.

Both print their figures and exit with status 1 if anything was lost, duplicated or corrupted
(2 if the campaign itself could not run).  The work directory (``--workdir``, default a new
temporary one) keeps the database (SQLite), the ack logs and each process's stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import sqlite3
import sys
import tempfile
import time
import warnings
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg

from bot.storage import parse_database_url, sqlite_url
from bot.storage.throwaway_pg import throwaway_database

from .checker import Report, check_database

__all__ = [
    "CampaignError",
    "Figures",
    "kill_campaign",
    "main",
    "postgres_database",
    "two_process_campaign",
]

#: The repository's root: where ``python -m tests.faults.player`` runs.
ROOT = Path(__file__).resolve().parents[2]
#: Seconds a player process may take to restore its service and say it is ready.
READY_TIMEOUT = 120.0


class CampaignError(RuntimeError):
    """The campaign could not run (a process did not start, a database already in use)."""


@dataclass
class Figures:
    """What a campaign did and what the check found."""

    kind: str
    backend: str
    channels: int
    kills: int
    elapsed: float
    report: Report
    #: Processes that stopped before they were killed, with their status and stderr's end.
    exited: list[str] = field(default_factory=list)
    workdir: str = ""

    @property
    def clean(self) -> bool:
        return self.report.clean and not self.exited

    def text(self) -> str:
        """The figures, for a person."""
        r = self.report
        moved = r.refusals.get("ChannelMoved", 0)
        refusals = ", ".join(f"{k} {v}" for k, v in sorted(r.refusals.items())) or "none"
        rows = [
            f"Fault campaign: {self.kind} on {self.backend}, {self.channels} channels",
            f"  kills (SIGKILL)         {self.kills}",
            f"  acknowledged actions    {r.acked_actions}",
            f"  acknowledged joins      {r.acked_joins}",
            f"  lost actions            {len(r.lost_actions)}",
            f"  duplicated actions      {len(r.duplicated_actions)}",
            f"  lost joins              {len(r.lost_joins)}",
            f"  refused yet applied     {len(r.refused_but_applied)}",
            f"  corrupted games         {len(r.corrupted_games)} of {r.games} "
            f"({r.finished_games} finished)",
            f"  series mismatches       {len(r.series_mismatches)} of {r.series} series",
            f"  channel conflicts       {len(r.channel_conflicts)}",
            f"  integrity_check         {r.integrity}",
            f"  ChannelMoved refusals   {moved}",
            f"  refusals                {refusals}",
            f"  torn ack-log lines      {r.torn_lines}",
            f"  exited by themselves    {len(self.exited)}",
            f"  elapsed                 {self.elapsed:.0f} s",
            f"  work directory          {self.workdir}",
            "  verdict                 "
            + ("CLEAN" if self.clean else "PROBLEMS: lost, duplicated or corrupted data"),
        ]
        rows += [f"  ! {line}" for line in r.problems()[:50]]
        rows += [f"  ! exited: {line}" for line in self.exited]
        return "\n".join(rows)


# ----------------------------------------------------------------------------- processes
@dataclass
class Child:
    """A running player process."""

    instance: int
    process: asyncio.subprocess.Process
    stderr: Path

    def tail(self) -> str:
        with contextlib.suppress(OSError):
            lines = self.stderr.read_text(errors="replace").strip().splitlines()
            return " | ".join(lines[-3:])
        return ""


async def start_child(
    url: str, workdir: Path, instance: int, mode: str, channels: int, *extra: str
) -> Child:
    """Start player ``instance`` and wait until it says it is ready."""
    (workdir / "acks").mkdir(parents=True, exist_ok=True)
    (workdir / "stderr").mkdir(parents=True, exist_ok=True)
    stderr = workdir / "stderr" / f"player-{instance}.txt"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    with stderr.open("wb") as err:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.faults.player",
            "--database-url",
            url,
            "--ack-log",
            str(workdir / "acks" / f"ack-{instance}.jsonl"),
            "--mode",
            mode,
            "--channels",
            str(channels),
            "--instance",
            str(instance),
            "--seed",
            str(instance),
            *extra,
            cwd=ROOT,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=err,
        )
    child = Child(instance, process, stderr)
    assert process.stdout is not None
    try:
        line = await asyncio.wait_for(process.stdout.readline(), READY_TIMEOUT)
    except TimeoutError:
        line = b""
    if line.strip() != b"ready":
        await kill(child)
        raise CampaignError(f"player {instance} did not start: {child.tail()}")
    return child


async def kill(child: Child) -> str | None:
    """SIGKILL ``child`` and reap it.  Returns why, if it had stopped by itself before."""
    early = child.process.returncode
    if early is None:
        with contextlib.suppress(ProcessLookupError):
            child.process.kill()
    await child.process.wait()
    if early is not None:
        return f"player {child.instance} exited with status {early}: {child.tail()}"
    return None


# ----------------------------------------------------------------------------- databases
async def refuse_used(url: str) -> None:
    """Raise :class:`CampaignError` if the database at ``url`` already holds games: the check
    reads the whole database, so a campaign starts on an empty one."""
    target = parse_database_url(url)
    if target.backend == "sqlite":
        if not Path(target.location).exists():
            return
        con = sqlite3.connect(target.location)
        try:
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
            used = "games" in tables and con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        finally:
            con.close()
    else:
        pg = await asyncpg.connect(target.location)
        try:
            exists = await pg.fetchval("SELECT to_regclass('games') IS NOT NULL")
            used = exists and await pg.fetchval("SELECT COUNT(*) FROM games")
        finally:
            await pg.close()
    if used:
        raise CampaignError(f"{url} already holds games: give the campaign an empty database")


@contextlib.asynccontextmanager
async def postgres_database(workdir: Path, url: str | None = None) -> AsyncIterator[str]:
    """``url`` (checked empty), or a fresh database on a throwaway server started under
    ``workdir`` and stopped afterwards."""
    if url is not None:
        await refuse_used(url)
        yield url
        return
    async with throwaway_database(workdir / "pg", "durak_faults") as fresh:
        yield fresh


def _ack_logs(workdir: Path) -> list[str]:
    return sorted(str(p) for p in (workdir / "acks").glob("ack-*.jsonl"))


async def _checked(
    kind: str, url: str, workdir: Path, channels: int, kills: int, started: float, exited: list[str]
) -> Figures:
    """The database at ``url`` checked against every acknowledgement logged under
    ``workdir``, and the figures of the campaign ``kind`` that began at ``started``."""
    report = await check_database(url, _ack_logs(workdir))
    backend = parse_database_url(url).backend
    elapsed = time.monotonic() - started
    return Figures(kind, backend, channels, kills, elapsed, report, exited, str(workdir))


# ----------------------------------------------------------------------------- campaigns
async def kill_campaign(
    url: str,
    workdir: Path,
    *,
    kills: int,
    channels: int = 8,
    min_delay: float = 0.3,
    max_delay: float = 3.0,
    ai_seats: int = 1,
    seed: int | None = None,
) -> Figures:
    """The kill -9 campaign (see the module) on the empty database at ``url``."""
    await refuse_used(url)
    rng = random.Random(seed)
    started = time.monotonic()
    exited: list[str] = []
    for instance in range(kills):
        child = await start_child(
            url, workdir, instance, "play", channels, "--ai-seats", str(ai_seats)
        )
        await asyncio.sleep(rng.uniform(min_delay, max_delay))  # a kill at a random moment
        why = await kill(child)
        if why is not None:
            exited.append(why)
    return await _checked("kill -9", url, workdir, channels, kills, started, exited)


async def two_process_campaign(
    url: str,
    workdir: Path,
    *,
    seconds: float,
    channels: int = 4,
    restart_min: float = 2.0,
    restart_max: float = 6.0,
    resync: float = 2.0,
    seed: int | None = None,
) -> Figures:
    """The two-process campaign (see the module) on the empty PostgreSQL database at ``url``."""
    if parse_database_url(url).backend != "postgresql":
        raise CampaignError("two processes need PostgreSQL (SQLite admits one process)")
    await refuse_used(url)
    rng = random.Random(seed)
    extra = ("--resync", str(resync))
    started = time.monotonic()
    children = [await start_child(url, workdir, i, "join", channels, *extra) for i in (0, 1)]
    end = time.monotonic() + seconds  # from when both serve
    instances = 2
    kills = 0
    exited: list[str] = []
    try:
        while (left := end - time.monotonic()) > 0:
            await asyncio.sleep(min(left, rng.uniform(restart_min, restart_max)))  # random time
            if time.monotonic() >= end:
                break
            which = rng.randrange(2)
            old = children[which]
            if rng.random() < 0.5:  # a rolling restart: the new process starts first
                children[which] = await start_child(
                    url, workdir, instances, "join", channels, *extra
                )
                why = await kill(old)
            else:
                why = await kill(old)
                children[which] = await start_child(
                    url, workdir, instances, "join", channels, *extra
                )
            instances += 1
            kills += 1
            if why is not None:
                exited.append(why)
    finally:
        for child in children:
            why = await kill(child)
            if why is not None:
                exited.append(why)
    return await _checked("two processes", url, workdir, channels, kills, started, exited)


# ----------------------------------------------------------------------------- command line
def _arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m tests.faults.campaign",
        description="Kill bot processes at random moments and check that nothing "
        "acknowledged was lost, duplicated or corrupted (tests/faults/campaign.py).",
    )
    sub = p.add_subparsers(dest="campaign", required=True)
    k = sub.add_parser("kill", help="SIGKILL one bot process again and again")
    k.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    k.add_argument("--kills", type=int, default=60, help="how many kills (default 60)")
    k.add_argument("--channels", type=int, default=8, help="busy channels (default 8)")
    k.add_argument("--min-delay", type=float, default=0.3, help="seconds (default 0.3)")
    k.add_argument("--max-delay", type=float, default=3.0, help="seconds (default 3)")
    k.add_argument("--ai-seats", type=int, default=1, help="AI seats per table (default 1)")
    t = sub.add_parser("two-process", help="two bot processes on the same channels")
    t.add_argument("--seconds", type=float, default=180.0, help="how long (default 180)")
    t.add_argument("--channels", type=int, default=4, help="shared channels (default 4)")
    t.add_argument("--restart-min", type=float, default=2.0, help="seconds (default 2)")
    t.add_argument("--restart-max", type=float, default=6.0, help="seconds (default 6)")
    for each in (k, t):
        each.add_argument(
            "--database-url",
            help="an empty database to use (default: a new SQLite file in the work directory, "
            "or a database on a throwaway PostgreSQL server the campaign starts)",
        )
        each.add_argument("--workdir", help="where the logs go (default: a new temporary one)")
        each.add_argument("--seed", type=int, default=None, help="seed of the random moments")
    return p.parse_args(argv)


async def _run(args: argparse.Namespace) -> Figures:
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="durak-faults-")).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    print(f"work directory: {workdir}", flush=True)
    if args.campaign == "two-process":
        async with postgres_database(workdir, args.database_url) as url:
            return await two_process_campaign(
                url,
                workdir,
                seconds=args.seconds,
                channels=args.channels,
                restart_min=args.restart_min,
                restart_max=args.restart_max,
                seed=args.seed,
            )

    async def kills(url: str) -> Figures:
        return await kill_campaign(
            url,
            workdir,
            kills=args.kills,
            channels=args.channels,
            min_delay=args.min_delay,
            max_delay=args.max_delay,
            ai_seats=args.ai_seats,
            seed=args.seed,
        )

    if args.backend == "sqlite":
        return await kills(args.database_url or sqlite_url(str(workdir / "durak.sqlite3")))
    async with postgres_database(workdir, args.database_url) as url:
        return await kills(url)


def main(argv: list[str] | None = None) -> int:
    """Run one campaign; print its figures.  0: clean, 1: problems found, 2: could not run."""
    args = _arguments(argv)
    # pgserver asks platformdirs for a runtime directory it does not use here
    warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR")
    try:
        figures = asyncio.run(_run(args))
    except CampaignError as exc:
        print(f"the campaign could not run: {exc}", file=sys.stderr)
        return 2
    print(figures.text())
    return 0 if figures.clean else 1


if __name__ == "__main__":
    sys.exit(main())
