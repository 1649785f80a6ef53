"""The real ``durak-bot`` in a subprocess, talking to a fake Discord (its REST API and
gateway): started, waited for until it is up (an event, not a time), and killed if a test
leaves it running."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from .fakediscord import FakeDiscord

#: A token of the shape Discord gives (the bot checks a token's shape before use).
VALID_LOOKING_TOKEN = "AAAAAAAAAAAAAAAAAAAAAAAA.BBBBBB.CCCCCCCCCCCCCCCCCCCCCCCCCCC"
#: ``durak-bot`` (``python -m apps``) with discord.py's REST base and gateway pointed at the
#: fake Discord (argv: their URLs): the real entry point, with no traffic leaving the machine.
RUN_BOT_ON_FAKE = (
    "import runpy, sys, yarl, discord.http, discord.gateway; "
    "discord.http.Route.BASE = sys.argv.pop(1); "
    "discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(sys.argv.pop(1)); "
    "runpy.run_module('apps', run_name='__main__', alter_sys=True)"
)


@asynccontextmanager
async def bot_process(
    fake: FakeDiscord, cwd: Path, env: dict[str, str], **streams: Any
) -> AsyncIterator[asyncio.subprocess.Process]:
    """``durak-bot`` on ``fake`` in ``cwd`` with ``env`` (``streams``: stdout/stderr as for
    :func:`asyncio.create_subprocess_exec`); killed on exit if it still runs."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        RUN_BOT_ON_FAKE,
        fake.rest_url,
        fake.gateway_url,
        cwd=cwd,
        env=env,
        **streams,
    )
    try:
        yield proc
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def bot_is_up(fake: FakeDiscord, proc: asyncio.subprocess.Process, timeout: float) -> None:
    """Wait until the bot process holds a gateway session and has read its guilds (the
    gateway's barrier after GUILD_CREATE); fail with its stderr if it exits first."""
    await fake.wait_until(
        lambda: (
            proc.returncode is not None
            or any(e.direction == "send" and e.name == "GUILD_CREATE" for e in fake.gateway_log)
        ),
        timeout,
        "the bot's gateway session",
    )
    if proc.returncode is not None:
        _out, err = await proc.communicate()
        said = err.decode() if err else "(stderr not kept)"
        raise AssertionError(f"the bot exited with {proc.returncode}: {said}")
    await fake.gateway_barrier()
