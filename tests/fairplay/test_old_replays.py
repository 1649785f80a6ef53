"""Replays of games stored before the table options (RULES.md §10) existed are unchanged.

``data/old_records_d3b2fe7.json`` holds three finished games as the release before the options
(commit d3b2fe7) stored them (rules, deal and action log) and the frames its replay built from
them (made by running that release's ``bot.replay.build_replay``).  Today's replay of the same
records must give the same frames, and no team data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.outcome import Outcome
from bot.replay import build_replay
from rules_engine import Deal, Rules

OLD = json.loads((Path(__file__).parent / "data" / "old_records_d3b2fe7.json").read_text())


def _digest(frame: Any) -> dict[str, Any]:
    """A frame as the old release's digest wrote it."""
    return {
        "index": frame.index,
        "round": frame.round,
        "action": None if frame.action is None else frame.action.text,
        "message": [frame.message.key, str(frame.message)],
        "events": [[e.key, str(e)] for e in frame.events],
        "hands": [[str(c) for c in h] for h in frame.hands],
        "table": [
            [str(p.attack), None if p.defence is None else str(p.defence)] for p in frame.table
        ],
        "stock": frame.stock,
        "discard": frame.discard,
        "out": sorted(frame.out),
        "defender": frame.defender,
        "to_act": frame.to_act,
        "outcome": None
        if frame.outcome is None
        else [str(frame.outcome.ending), list(frame.outcome.losers), list(frame.outcome.forfeits)],
    }


@pytest.mark.parametrize("record", OLD["games"], ids=lambda r: str(r["rules"]))
def test_an_old_record_replays_as_it_did(record: dict[str, Any]) -> None:
    assert "deck" not in record["deal"]  # stored before packs other than 36 existed
    rules = Rules.from_spec(record["rules"])
    assert (rules.deck, rules.show_trump, rules.teams) == (36, False, "none")
    replay = build_replay(rules, Deal.from_dict(record["deal"]), record["actions"], {})
    assert [_digest(f) for f in replay.frames] == record["frames"]
    last = replay.frames[-1]
    assert last.outcome is not None and not last.outcome.team
    assert all(f.played_by == () for f in replay.frames)
    assert isinstance(last.outcome, Outcome)
