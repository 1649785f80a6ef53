"""The rule options of the engine's command-line tools (``bench``, ``tournament``): one set
of flags, read into :class:`~rules_engine.rules.Rules` the same way by each."""

from __future__ import annotations

import argparse

from rules_engine.errors import DurakError
from rules_engine.rules import PROFILES, Rules

__all__ = ["add_rule_arguments", "rules_from_args"]


def add_rule_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--rules``, ``--deck``, ``--show-trump`` and ``--teams`` to ``parser``."""
    parser.add_argument("--rules", default="podkidnoy", choices=sorted(PROFILES))
    parser.add_argument("--deck", type=int, default=36, choices=(24, 36, 52), help="pack size")
    parser.add_argument(
        "--show-trump", action="store_true", help="transfers by showing a trump (needs transfer)"
    )
    parser.add_argument("--teams", default="none", choices=("none", "2x2", "3x3"))


def rules_from_args(
    parser: argparse.ArgumentParser, args: argparse.Namespace, players: int
) -> Rules:
    """The rules the flags of :func:`add_rule_arguments` name, for ``players`` seats; a bad
    combination exits through ``parser.error`` with the reason."""
    spec: dict[str, object] = {"profile": args.rules, "deck": args.deck, "teams": args.teams}
    if args.show_trump:
        spec["show_trump"] = True
    try:
        return Rules.from_spec(spec, players=players)
    except DurakError as exc:
        parser.error(str(exc))
