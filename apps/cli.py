"""``durak-bot``: ``durak-bot play [...]`` plays in the terminal; with no subcommand the bot
starts on Discord (through ``apps.discord_bot``, the only module that imports discord.py)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import importlib.metadata
import math
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from bot.errors import ConfigError
from bot.limits import MAX_SEATS, MIN_SEATS, RULE_PROFILES
from bot.server_config import DECKS
from rules_engine.ai import DEFAULT_AI_LEVEL, OFFERED_LEVELS
from rules_engine.errors import InvalidRulesError
from rules_engine.rules import TEAM_SEATS, Rules

if TYPE_CHECKING:
    from apps.config import Settings

__all__ = ["EXIT_INTERRUPTED", "EXIT_OUTPUT_CLOSED", "MAX_AI_DELAY", "main"]

#: Exit code after Ctrl-C in terminal mode (128 + SIGINT, as shells report it).
EXIT_INTERRUPTED = 130
#: Exit code when the terminal game's output was closed (``durak-bot play | head``): 128 +
#: SIGPIPE, what a shell reports for a program stopped by a closed pipe.  Nothing is printed.
EXIT_OUTPUT_CLOSED = 141
#: The longest ``--ai-delay`` of terminal mode, in seconds; a longer one is played as this.
MAX_AI_DELAY = 1.0

_DESCRIPTION = (
    "Durak for Discord. `durak-bot` alone starts the Discord bot (it reads DISCORD_TOKEN and "
    "the other settings from the environment and from .env in the working directory; see "
    ".env.example). `durak-bot play` plays a game in this terminal, without Discord "
    "(`durak-bot play --web`: in the browser)."
)


def _version() -> str:
    """The installed package's version (``unknown`` when run from a source tree only)."""
    try:
        return importlib.metadata.version("durak-bot")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _review_deals(text: str) -> int:
    """``--review-deals``: a whole number, at least 2."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text!r}") from None
    if value < 2:
        raise argparse.ArgumentTypeError(f"must be at least 2, not {value}")
    return value


def _ai_delay(text: str) -> float:
    """``--ai-delay``: seconds from 0 up; above :data:`MAX_AI_DELAY` it is capped."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of seconds from 0 to {MAX_AI_DELAY:g}"
        )
    return min(value, MAX_AI_DELAY)


def _port(text: str) -> int:
    """``--port``: 1–65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (1–65535)")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="durak-bot", description=_DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command")
    play = sub.add_parser(
        "play",
        help="play a game against AI seats in this terminal",
        description="Play a game of Durak against AI seats in this terminal.",
    )
    play.add_argument(
        "--players",
        type=int,
        default=None,
        help=f"seats at the table, {MIN_SEATS}–{MAX_SEATS} (default: 2); --teams sets 4 or 6",
    )
    play.add_argument(
        "--rules",
        default=RULE_PROFILES[0],
        choices=RULE_PROFILES,
        help="rule profile: %(choices)s (default: %(default)s)",
    )
    play.add_argument(
        "--level",
        default=DEFAULT_AI_LEVEL,
        choices=OFFERED_LEVELS,
        help="AI level of the other seats, weakest first: %(choices)s (default: %(default)s)",
    )
    play.add_argument(
        "--seed", type=int, default=None, help="seed of the first deal (default: random)"
    )
    play.add_argument(
        "--deck",
        type=int,
        default=None,
        choices=DECKS,
        help="pack size: %(choices)s cards (default: 36)",
    )
    play.add_argument(
        "--show-trump",
        action="store_true",
        help="transfer by showing the trump of the attacked rank (needs transfers: perevodnoy)",
    )
    play.add_argument(
        "--teams",
        default=None,
        choices=tuple(TEAM_SEATS),
        help="play in two teams, 2 against 2 or 3 against 3 (you and your team's AI seats)",
    )
    play.add_argument(
        "--ai-delay",
        type=_ai_delay,
        default=None,
        metavar="SECONDS",
        help=(
            f"seconds AI seats wait before playing, 0–{MAX_AI_DELAY:g}; more is played as "
            f"{MAX_AI_DELAY:g} (default: AI_DELAY, at most {MAX_AI_DELAY:g})"
        ),
    )
    play.add_argument(
        "--db", default=None, metavar="FILE", help="SQLite file (default: a temporary one)"
    )
    play.add_argument(
        "--review-deals",
        type=_review_deals,
        default=None,
        metavar="K",
        help="the coach's budget at game over: sampled deals per choice (default: 300)",
    )
    play.add_argument(
        "--web",
        action="store_true",
        help="play in the browser: serve the web table on 127.0.0.1 and print its address",
    )
    play.add_argument(
        "--port",
        type=_port,
        default=None,
        help="with --web: the port to listen on (default: 8080, else any free port)",
    )
    play.add_argument(
        "--no-browser",
        action="store_true",
        help="with --web: print the address without opening a browser",
    )
    web = sub.add_parser(
        "web",
        help="serve rooms in the browser (no Discord): the home page, invite links, tables",
        description=(
            "Run the game service and the web server only (no DISCORD_TOKEN needed): people "
            "create rooms on the home page and invite others with a link. PUBLIC_URL is the "
            "address they reach (docs/OPERATING.md, Rooms)."
        ),
    )
    web.add_argument("--host", default=None, help="address to listen on (default: WEB_HOST)")
    web.add_argument(
        "--port", type=_port, default=None, help="port to listen on (default: WEB_PORT)"
    )
    backup = sub.add_parser(
        "backup",
        help="copy the SQLite database, even while the bot runs (docs/OPERATING.md: Backups)",
        description=(
            "Copy the bot's SQLite database (DATABASE_URL or DATABASE_PATH, from the "
            "environment and .env as the bot reads them) into the new file FILE, while the bot "
            "runs: one consistent copy holding every action the bot had acknowledged, checked "
            "before FILE is written. FILE is never overwritten; its directory is created if "
            "missing. A PostgreSQL database is refused: back it up with pg_dump. Restoring: "
            "docs/OPERATING.md, Backups."
        ),
    )
    backup.add_argument("file", metavar="FILE", help="the new file to write (never overwritten)")
    forget = sub.add_parser(
        "forget",
        help="erase a Discord user's name and id from every record (docs/OPERATING.md)",
        description=(
            "Erase a Discord user's name and id from every record, as /durak forget-me does. "
            "Stop the bot first on SQLite (it holds the file); on PostgreSQL it may run."
        ),
    )
    forget.add_argument("user_id", type=int, help="the user's Discord id (a number)")
    return parser


def _report(work: Callable[[], str], refused: type[Exception], stdout: TextIO | None) -> int:
    """Run an operator's one-shot tool: print what it reports (0), or why it refused, on
    stderr (2)."""
    try:
        print(work(), file=stdout or sys.stdout)
    except refused as exc:
        print(exc, file=sys.stderr)
        return 2
    return 0


def main(
    argv: list[str] | None = None, *, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> int:
    args = _parser().parse_args(argv)
    from apps.config import Settings

    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.command == "backup":
        from bot.storage.backup import BackupRefused, backup_database

        return _report(
            lambda: backup_database(settings.storage_url, args.file), BackupRefused, stdout
        )
    if args.command == "forget":
        from apps.forget import ForgetRefused, forget_user

        return _report(
            lambda: forget_user(settings.storage_url, args.user_id), ForgetRefused, stdout
        )
    if args.command == "play":
        return _play(args, settings, stdin or sys.stdin, stdout or sys.stdout)
    if args.command == "web":
        return _web(args, settings, stdout or sys.stdout)
    settings.configure_logging()
    try:
        discord_app = importlib.import_module("apps.discord_bot")
    except ModuleNotFoundError as exc:
        if exc.name != "apps.discord_bot":
            raise
        print(
            "The Discord front end (apps.discord_bot) is not installed yet; "
            "try `durak-bot play` to play in the terminal.",
            file=sys.stderr,
        )
        return 2
    result = discord_app.run(settings)
    return int(result or 0)


def _play(args: argparse.Namespace, settings: Settings, stdin: TextIO, out: TextIO) -> int:
    """``durak-bot play``: one line on stderr for a bad option or a database in use; quiet
    exit (:data:`EXIT_OUTPUT_CLOSED`) when the output is closed."""
    settings.configure_logging(quiet=True)
    if args.players is None:
        args.players = TEAM_SEATS.get(args.teams, 2)
    if not MIN_SEATS <= args.players <= MAX_SEATS:
        print(f"--players must be {MIN_SEATS}–{MAX_SEATS}", file=sys.stderr)
        return 2
    problem = _table_options_problem(args)
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    from bot.storage import DatabaseUnavailable
    from terminal.session import OutputClosed, play

    delay = args.ai_delay if args.ai_delay is not None else min(settings.ai_delay, MAX_AI_DELAY)
    if args.web:
        if args.deck is not None or args.show_trump or args.teams is not None:
            print("--deck, --show-trump and --teams are not offered with --web", file=sys.stderr)
            return 2
        return _play_web(args, out, delay)
    if args.port is not None or args.no_browser:
        print("--port and --no-browser go with --web", file=sys.stderr)
        return 2
    try:
        return asyncio.run(
            play(
                args.players,
                args.rules,
                args.level,
                stdin=stdin,
                stdout=out,
                db_path=args.db,
                ai_delay=delay,
                seed=args.seed,
                **({} if args.review_deals is None else {"review_deals": args.review_deals}),
                deck=args.deck,
                show_trump=args.show_trump or None,
                teams=args.teams,
            )
        )
    except DatabaseUnavailable as exc:  # --db names a file another process holds
        print(exc, file=sys.stderr)
        return 2
    except OutputClosed:
        _silence(out)
        return EXIT_OUTPUT_CLOSED
    except KeyboardInterrupt:  # Ctrl-C: the game was stopped on the way out
        try:
            out.write("\nInterrupted: game stopped.\n")
            out.flush()
        except (OSError, ValueError):
            _silence(out)
        return EXIT_INTERRUPTED


def _table_options_problem(args: argparse.Namespace) -> str | None:
    """The engine's one sentence when ``play``'s rule options do not go together or do not
    suit ``--players`` (RULES.md §10), else ``None``."""
    spec: dict[str, object] = {"profile": args.rules}
    if args.deck is not None:
        spec["deck"] = args.deck
    if args.show_trump:
        spec["show_trump"] = True
    if args.teams is not None:
        spec["teams"] = args.teams
    try:
        Rules.from_spec(spec, players=args.players)
    except InvalidRulesError as exc:
        return str(exc)
    return None


def _play_web(args: argparse.Namespace, out: TextIO, delay: float) -> int:
    """``durak-bot play --web``: the game in the browser, until Ctrl-C."""
    from apps.play_web import play_web
    from bot.storage import DatabaseUnavailable

    try:
        return asyncio.run(
            play_web(
                args.players,
                args.rules,
                args.level,
                out=out,
                port=args.port,
                db_path=args.db,
                ai_delay=delay,
                seed=args.seed,
                open_browser=not args.no_browser,
            )
        )
    except DatabaseUnavailable as exc:
        print(exc, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        with contextlib.suppress(OSError, ValueError):
            out.write("\nInterrupted: game stopped.\n")
            out.flush()
        return EXIT_INTERRUPTED


def _web(args: argparse.Namespace, settings: Settings, out: TextIO) -> int:
    """``durak-bot web``: rooms in the browser, until Ctrl-C."""
    from apps.web_rooms import serve_rooms
    from bot.storage import DatabaseUnavailable, storage_problem
    from web.rooms import RoomLimits

    settings.configure_logging()
    try:
        limits = RoomLimits.from_env(settings.values)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    problem = storage_problem(settings.storage_url)
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    host = args.host or settings.web_host
    port = args.port or settings.web_port
    try:
        return asyncio.run(serve_rooms(settings, limits, host=host, port=port, out=out))
    except DatabaseUnavailable as exc:
        print(exc, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


def _silence(out: TextIO) -> None:
    """Point a closed standard output at the null device, so that the interpreter's last
    flush at exit does not report the broken pipe."""
    if out is not sys.stdout:
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, out.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
