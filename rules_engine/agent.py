"""An AI seat over the agent protocol of SCENARIOS.md: JSON lines on standard input and output.

``python -m rules_engine.agent LEVEL [--seed N] [--budget SECONDS] [--iterations N]``

Each input line is ``{"observation": OBS}`` (answered with ``{"action": "SEAT ACTION"}``),
``{"new_game": true}`` (answered with ``{"ok": true}``) or ``{"quit": true}`` (exit 0).
A line that cannot be understood is answered with ``{"error": "..."}``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from rules_engine.ai import LEVELS, counts_iterations, make_agent, thinks_by_clock
from rules_engine.ai.base import Agent

__all__ = ["main", "serve"]


def serve(agent: Agent, stdin: TextIO, stdout: TextIO) -> int:
    for line in stdin:
        line = line.strip()
        if not line:
            continue
        reply: dict[str, Any]
        try:
            message = json.loads(line)
            if not isinstance(message, dict):
                raise ValueError("expected a JSON object")
            if message.get("quit"):
                return 0
            if message.get("new_game"):
                agent.new_game()
                reply = {"ok": True}
            elif "observation" in message:
                reply = {"action": agent.choose(message["observation"])}
            else:
                raise ValueError("expected observation, new_game or quit")
        except Exception as exc:
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        stdout.write(json.dumps(reply, ensure_ascii=False) + "\n")
        stdout.flush()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rules_engine.agent", description=__doc__)
    parser.add_argument("level", choices=list(LEVELS))
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument(
        "--budget",
        type=float,
        default=None,
        help="expert: hard per-move limit in seconds (default 0.9; it normally thinks 0.3)",
    )
    parser.add_argument(
        "--iterations",
        type=int,
        default=None,
        help="ismcts: search iterations per move (default 300)",
    )
    args = parser.parse_args(argv)
    options: dict[str, Any] = {}
    if args.budget is not None and thinks_by_clock(args.level):
        options["budget_s"] = args.budget
    if args.iterations is not None and counts_iterations(args.level):
        options["iterations"] = args.iterations
    agent = make_agent(args.level, seed=args.seed, **options)
    sys.stdout.reconfigure(encoding="utf-8")  # type: ignore[union-attr]
    sys.stdin.reconfigure(encoding="utf-8")  # type: ignore[union-attr]
    return serve(agent, sys.stdin, sys.stdout)


if __name__ == "__main__":
    sys.exit(main())
