"""The example systemd unit (``deploy/durak-bot.service``) is a well-formed unit that runs the
installed ``durak-bot`` command as its own user, restarts it after a failure and stops it the
way the bot shuts down cleanly; docs/OPERATING.md explains how to install it."""

from __future__ import annotations

import asyncio
import configparser
import os
import signal
import tomllib
from pathlib import Path, PurePosixPath

from tests.e2e.bot_process import VALID_LOOKING_TOKEN, bot_is_up, bot_process
from tests.e2e.fakediscord import FakeDiscord
from tests.e2e.fakediscord.pytest_plugin import fake_discord  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "deploy" / "durak-bot.service"


def _unit() -> configparser.ConfigParser:
    """The unit as an INI file: sections, ``Key=value`` lines, case kept, no duplicate key."""
    unit = configparser.ConfigParser(interpolation=None, strict=True, delimiters=("=",))
    unit.optionxform = str  # type: ignore[assignment,method-assign]  # systemd keys are case-sensitive
    unit.read_string(UNIT.read_text(encoding="utf-8"), source=str(UNIT))
    return unit


def _console_script() -> str:
    """The console script ``pyproject.toml`` declares for the bot (``apps.cli:main``)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (name,) = [n for n, target in project["scripts"].items() if target == "apps.cli:main"]
    return str(name)


def _seconds(value: str) -> float:
    """A systemd time span of the simple forms used here: ``30``, ``30s``, ``2min``."""
    for suffix, factor in (("min", 60.0), ("s", 1.0)):
        if value.endswith(suffix):
            return float(value[: -len(suffix)]) * factor
    return float(value)


def test_the_unit_parses_with_its_three_sections() -> None:
    unit = _unit()
    assert unit.sections() == ["Unit", "Service", "Install"]
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    assert "network-online.target" in unit["Unit"]["After"].split()


def test_exec_start_is_the_venvs_console_script() -> None:
    service = _unit()["Service"]
    command = PurePosixPath(service["ExecStart"].split()[0])
    assert command.is_absolute()
    assert command.name == _console_script() == "durak-bot"
    assert command.parent.name == "bin" and command.parent.parent.name == ".venv"
    assert len(service["ExecStart"].split()) == 1  # no subcommand: the Discord bot


def test_it_runs_as_a_dedicated_user_in_a_writable_working_directory() -> None:
    service = _unit()["Service"]
    assert service["User"] == service["Group"] == "durak-bot"
    assert service["User"] != "root"
    workdir = PurePosixPath(service["WorkingDirectory"])
    assert workdir.is_absolute()
    # SQLite writes durak.sqlite3-wal, -shm and the .lock file beside the database: the whole
    # working directory must stay writable under ProtectSystem=strict.
    assert service["ProtectSystem"] == "strict"
    assert str(workdir) in service["ReadWritePaths"].split()
    assert workdir == PurePosixPath("/var/lib") / service["StateDirectory"]
    assert PurePosixPath(service["EnvironmentFile"].lstrip("-")).is_absolute()
    assert service["NoNewPrivileges"] == "yes"


def test_restart_policy_and_a_clean_stop() -> None:
    service = _unit()["Service"]
    assert service["Restart"] == "on-failure"
    assert 1 <= _seconds(service["RestartSec"]) <= 60
    assert "2" in service["RestartPreventExitStatus"].split()  # a setting to fix: no loop
    # discord.py closes the bot on SIGINT; the service then stores the turns' remaining time
    assert service["KillSignal"] == "SIGINT"
    assert service["KillMode"] == "mixed"  # the AI workers are closed by the bot, not signalled
    assert 15 <= _seconds(service["TimeoutStopSec"]) <= 120


def test_the_operators_page_explains_the_service_and_upgrades() -> None:
    page = (ROOT / "docs" / "OPERATING.md").read_text(encoding="utf-8")
    assert "## Running it as a service" in page
    assert "deploy/durak-bot.service" in page
    assert "journalctl -u durak-bot" in page
    assert "## Upgrading" in page


async def test_the_units_stop_signal_stops_the_bot_cleanly(
    fake_discord: FakeDiscord,  # noqa: F811
    tmp_path: Path,
) -> None:
    """``KillSignal=SIGINT``: the real ``durak-bot`` (a subprocess talking to the fake Discord)
    closes and exits with a success code, without a traceback, as ``systemctl stop`` expects."""
    signal_name = _unit()["Service"]["KillSignal"]
    env = {k: v for k, v in os.environ.items() if k not in ("DEV_GUILD_ID", "DATABASE_URL")}
    fake_discord.token = VALID_LOOKING_TOKEN  # the bot checks a token's shape before use
    env.update(
        DISCORD_TOKEN=fake_discord.token,
        DATABASE_PATH=str(tmp_path / "durak.sqlite3"),
        PYTHONPATH=str(ROOT),
        AI_WORKERS="1",
    )
    async with bot_process(fake_discord, tmp_path, env, stderr=asyncio.subprocess.PIPE) as proc:
        await bot_is_up(fake_discord, proc, 30)
        proc.send_signal(getattr(signal, signal_name))
        _, err = await asyncio.wait_for(proc.communicate(), 30)
    success = {0, *map(int, _unit()["Service"]["SuccessExitStatus"].split())}
    assert proc.returncode in success, err.decode()
    assert "Traceback" not in err.decode()


def test_the_unit_raises_the_open_files_limit_above_the_web_servers_connections() -> None:
    from web.http_server import FILES_KEPT, ServerLimits

    limit = _unit()["Service"].get("LimitNOFILE")
    assert limit is not None and limit.isdecimal(), "LimitNOFILE must be set to a number"
    # systemd's default soft limit is 1,024: the unit must raise it so that the server's
    # connection cap, not the file limit, is what stops a flood of connections
    assert int(limit) >= ServerLimits().max_connections + FILES_KEPT
