"""``durak-bot``: ``durak-bot play [...]`` plays in the terminal; with no subcommand the bot
starts on Discord (through ``bot.discord_app``, the only module that imports discord.py)."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import sys
from typing import TextIO

from bot.errors import ConfigError
from bot.limits import MAX_SEATS, MIN_SEATS, RULE_PROFILES
from rules_engine.ai import DEFAULT_AI_LEVEL, OFFERED_LEVELS

__all__ = ["EXIT_INTERRUPTED", "main"]

#: Exit code after Ctrl-C in terminal mode (128 + SIGINT, as shells report it).
EXIT_INTERRUPTED = 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="durak-bot", description="Durak for Discord.")
    sub = parser.add_subparsers(dest="command")
    play = sub.add_parser("play", help="play a game against AI seats in this terminal")
    play.add_argument(
        "--players", type=int, default=2, help=f"seats at the table, {MIN_SEATS}–{MAX_SEATS}"
    )
    play.add_argument("--rules", default=RULE_PROFILES[0], help=" or ".join(RULE_PROFILES))
    play.add_argument(
        "--level",
        default=DEFAULT_AI_LEVEL,
        help=f"AI level of the other seats: {', '.join(OFFERED_LEVELS)}",
    )
    play.add_argument("--seed", type=int, default=None, help="seed of the first deal")
    play.add_argument(
        "--ai-delay",
        type=float,
        default=None,
        help="seconds AI seats wait before playing (default AI_DELAY, max 1)",
    )
    play.add_argument("--db", default=None, help="SQLite file (default: a temporary one)")
    backup = sub.add_parser(
        "backup", help="copy the SQLite database, even while the bot runs (README: Backups)"
    )
    backup.add_argument("file", help="the new file to write (never overwritten)")
    return parser


def main(
    argv: list[str] | None = None, *, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> int:
    args = _parser().parse_args(argv)
    out = stdout or sys.stdout
    from bot.config import Settings

    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.command == "backup":
        from bot.storage.backup import BackupRefused, backup_database

        try:
            print(backup_database(settings.storage_url, args.file), file=out)
        except BackupRefused as exc:
            print(exc, file=sys.stderr)
            return 2
        return 0
    if args.command == "play":
        settings.configure_logging(quiet=True)
        if not MIN_SEATS <= args.players <= MAX_SEATS:
            print(f"--players must be {MIN_SEATS}–{MAX_SEATS}", file=sys.stderr)
            return 2
        from bot.terminal import play

        delay = args.ai_delay if args.ai_delay is not None else min(settings.ai_delay, 1.0)
        try:
            return asyncio.run(
                play(
                    args.players,
                    args.rules,
                    args.level,
                    stdin=stdin or sys.stdin,
                    stdout=out,
                    db_path=args.db,
                    ai_delay=delay,
                    seed=args.seed,
                )
            )
        except KeyboardInterrupt:  # Ctrl-C: the game was stopped on the way out
            out.write("\nInterrupted: game stopped.\n")
            out.flush()
            return EXIT_INTERRUPTED
    settings.configure_logging()
    try:
        discord_app = importlib.import_module("bot.discord_app")
    except ModuleNotFoundError as exc:
        if exc.name != "bot.discord_app":
            raise
        print(
            "The Discord front end (bot.discord_app) is not installed yet; "
            "try `durak-bot play` to play in the terminal.",
            file=sys.stderr,
        )
        return 2
    result = discord_app.run(settings)
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
