"""The example systemd unit (``deploy/durak-bot.service``) is a well-formed unit that runs the
installed ``durak-bot`` command as its own user, restarts it after a failure and stops it the
way the bot shuts down cleanly; docs/OPERATING.md explains how to install it."""

from __future__ import annotations

import asyncio
import configparser
import os
import signal
import sys
import tomllib
from pathlib import Path, PurePosixPath

from tests.e2e.fakediscord import FakeDiscord
from tests.e2e.fakediscord.pytest_plugin import fake_discord  # noqa: F401
from tests.e2e.test_e2e_startup import VALID_LOOKING_TOKEN

ROOT = Path(__file__).resolve().parents[2]
# ``python -m apps`` with discord.py's REST base and gateway pointed at the fake Discord
# (``sys.argv[1]`` and ``[2]``): the real entry point, with no traffic leaving the machine.
RUN_BOT_AT = (
    "import runpy, sys, yarl, discord.http, discord.gateway; "
    "discord.http.Route.BASE = sys.argv.pop(1); "
    "discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(sys.argv.pop(1)); "
    "runpy.run_module('apps', run_name='__main__', alter_sys=True)"
)
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
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        RUN_BOT_AT,
        fake_discord.rest_url,
        fake_discord.gateway_url,
        cwd=tmp_path,
        env=env,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        await fake_discord.wait_until(
            lambda: any(e.op == 2 for e in fake_discord.gateway_log), 30, "the bot's IDENTIFY"
        )
        await asyncio.sleep(0.5)
        proc.send_signal(getattr(signal, signal_name))
        _, err = await asyncio.wait_for(proc.communicate(), 30)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    success = {0, *map(int, _unit()["Service"]["SuccessExitStatus"].split())}
    assert proc.returncode in success, err.decode()
    assert "Traceback" not in err.decode()
