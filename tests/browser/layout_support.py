"""The table's layout under stress, as the browser lays it out: a crowded table (2 or 6 seats,
a 12-card hand, six pairs, the cards shown at the deal, a long status and last moves) sent
by a fake server through Playwright's WebSocket routes, on the channel's table page or inside
a room's page, and :func:`layout_problems`, which reads the boxes of what a player must see
(the seats, the table's pairs, the stock with its trump card, the discard, the shown panel,
the hand's cards, the buttons) and says what overlaps or is cut off."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from bot.views import Role
from present.names import ROLE_NAMES
from web.strings import page_strings, room_strings
from web.wording import catalog

#: The screens the table is tested on (CSS pixels): phones, a tablet, laptops, a desktop.
VIEWPORTS: tuple[tuple[int, int], ...] = (
    (360, 640),
    (390, 844),
    (768, 1024),
    (1280, 720),
    (1366, 768),
    (1920, 1080),
)
#: A desktop screen of :data:`VIEWPORTS`.
DESKTOP_SIZE = (1366, 768)
#: A room's slug and guest token for the fake room (the page only checks the slug's shape).
ROOM = "L" * 22
ROOM_TOKEN = "guest-token-for-the-layout"
TABLE_TOKEN = "table-token-for-the-layout"

_NAMES = (
    "Alexandrina",
    "Bartholomew the Third",
    "Expert AI",
    "Casual AI 2",
    "Maximilian",
    "Beginner AI",
)
_HAND = ("6♠", "8♠", "10♠", "Q♠", "7♥", "9♥", "J♥", "6♦", "K♦", "A♣", "7♣", "9♣")
_PAIRS = (
    ("6♥", "8♥"),
    ("6♣", "10♣"),
    ("8♦", "10♦"),
    ("8♣", "Q♣"),
    ("10♥", "A♥"),
    ("Q♦", None),
)


@dataclass(frozen=True, slots=True)
class Crowd:
    """A crowded table: ``seats`` players (the page's player at seat 0, defending) with
    ``hand`` cards, six pairs on the table; ``shown``: the first round, with the cards shown
    at the deal (else a later round with a discard pile)."""

    seats: int
    hand: int = 12
    shown: bool = True
    lang: str = "en"
    #: False: another seat (the leader) is to act, and no card of the hand can be played.
    your_turn: bool = True


def table_frames(crowd: Crowd) -> list[dict[str, Any]]:
    """The ``welcome``, ``table`` and ``hand`` frames of ``crowd`` (docs/WEB.md's shapes)."""
    t = catalog(crowd.lang)
    roles: dict[int, Role] = {0: Role.DEFENDER, crowd.seats - 1: Role.LEADER}
    seats = []
    for i in range(crowd.seats):
        role = roles.get(i)
        name = _NAMES[i]
        seats.append(
            {
                "seat": i,
                "name": name,
                "ai_level": "expert" if " AI" in name else None,
                "cards": crowd.hand if i == 0 else 2 + i % 3,
                "role": None if role is None else role.value,
                "role_text": None if role is None else t.gettext(ROLE_NAMES[role]),
                "to_act": i == (0 if crowd.your_turn else crowd.seats - 1),
                "autopilot": i == 2,
                "forfeited": False,
                "losses": i % 3,
                "you": i == 0,
            }
        )
    shown = ["6♥", "7♥", "8♥", "9♥", "10♥", "J♥"][: crowd.seats] if crowd.shown else []
    cards = list(_HAND[: crowd.hand])
    legal = [
        {"kind": "take", "cards": [], "uses": [], "text": "take", "label": "Take the cards"},
        {
            "kind": "defend",
            "cards": ["Q♦", "K♦"],
            "uses": ["K♦"],
            "text": "defend Q♦ K♦",
            "label": "Cover Q♦ with K♦",
        },
        {
            "kind": "transfer",
            "cards": ["Q♠"],
            "uses": ["Q♠"],
            "text": "transfer Q♠",
            "label": "Transfer with Q♠",
        },
    ]
    if not crowd.your_turn:
        legal = []
    usable = {c for a in legal for c in a["uses"]}
    waiting_for = _NAMES[crowd.seats - 1]
    table = {
        "game": 1,
        "version": 40,
        "profile": "perevodnoy",
        "rules_text": "perevodnoy",
        "trump": "♥",
        "trump_card": "Q♥",
        "shown": shown,
        "shown_text": t.fill("Shown at the deal: {cards}", cards=" ".join(shown))
        if crowd.shown
        else None,
        "stock": 4,
        "discard": 0 if crowd.shown else 14,
        "round": 1 if crowd.shown else 5,
        "limit": 6,
        "taking": False,
        "pairs": [{"attack": a, "defence": d} for a, d in _PAIRS],
        "seats": seats,
        "to_act": 0 if crowd.your_turn else crowd.seats - 1,
        "deadline": 4_000_000_000.0,
        "now": 3_999_999_950.0,
        "turn_timeout": 60,
        "status_text": f"{_NAMES[0]} to defend against {_NAMES[crowd.seats - 1]} · "
        "the attackers may add up to 6 cards",
        "recent": [
            f"{_NAMES[crowd.seats - 1]} attacks with {a}" + (f", {_NAMES[0]} covers" if d else "")
            for a, d in _PAIRS
        ],
        "finished": False,
        "aborted": False,
        "draw": False,
        "loser": None,
        "over_text": None,
        "series": None,
        "stop_vote": None,
        "can_rematch": False,
    }
    hand = {
        "game": 1,
        "version": 40,
        "seat": 0,
        "your_turn": crowd.your_turn,
        "autopilot": False,
        "finished": False,
        "deadline": table["deadline"],
        "cards": [
            {
                "card": c,
                "trump": c.endswith("♥"),
                "playable": c in usable,
                "reason": None
                if c in usable
                else f"{c} does not beat Q♦"
                if crowd.your_turn
                else f"{waiting_for} may add cards or pass",
            }
            for c in cards
        ],
        "legal": legal,
        "forfeited": False,
    }
    welcome = {
        "t": "welcome",
        "role": "player",
        "seat": 0,
        "user_id": "1",
        "lang": t.locale,
        "strings": page_strings("table", t),
        "channel": "1",
    }
    return [welcome, {"t": "table", "table": table}, {"t": "hand", "hand": hand}]


def room_frames(crowd: Crowd) -> list[dict[str, Any]]:
    """The room socket's ``welcome`` and a ``room`` frame of ``crowd``'s game, playing."""
    t = catalog(crowd.lang)
    room = {
        "phase": "playing",
        "seats": [
            {"seat": i, "name": _NAMES[i], "ai_level": None, "you": i == 0, "host": i == 0}
            for i in range(crowd.seats)
        ],
        "max_seats": crowd.seats,
        "host": True,
        "seat": 0,
        "can_start": False,
        "rules_text": "perevodnoy",
        "turn_timeout": 60,
        "series_id": 1,
        "game": 1,
        "standings": None,
        "games": None,
        "stop_vote": [1, crowd.seats],
        "table_token": TABLE_TOKEN,
    }
    welcome = {
        "t": "welcome",
        "user_id": "1",
        "lang": t.locale,
        "strings": room_strings(t),
        "levels": [],
    }
    return [welcome, {"t": "room", "room": room}]


class FakeServer:
    """The page's side of the sockets, played by the test: every page socket's ``hello`` is
    answered with the frames of :attr:`crowd` (the table's ``/ws``, a room's ``/ws/room``)."""

    def __init__(self, crowd: Crowd) -> None:
        self.crowd = crowd
        self.tables: list[Any] = []

    async def install(self, context: Any) -> None:
        """Route ``context``'s page sockets (frames included) to this fake."""
        await context.route_web_socket("**/ws", self._table)
        await context.route_web_socket("**/ws/room", self._room)
        await context.add_init_script(
            f"try {{ localStorage.setItem('durak.room.{ROOM}', '{ROOM_TOKEN}') }} catch {{}}"
        )

    def _answer(self, ws: Any, frames: list[dict[str, Any]]) -> None:
        def on_message(message: str | bytes) -> None:
            if json.loads(message).get("t") == "hello":
                for frame in frames:
                    ws.send(json.dumps(frame, ensure_ascii=False))

        ws.on_message(on_message)

    def _table(self, ws: Any) -> None:
        self.tables.append(ws)
        self._answer(ws, table_frames(self.crowd))

    def _room(self, ws: Any) -> None:
        self._answer(ws, room_frames(self.crowd))

    def push(self, crowd: Crowd) -> None:
        """Send ``crowd``'s table and hand to every table page (a later state)."""
        self.crowd = crowd
        for ws in self.tables:
            for frame in table_frames(crowd)[1:]:
                ws.send(json.dumps(frame, ensure_ascii=False))


#: Reads the boxes of what a player must see on the table page, by group: boxes of one group
#: may overlap (the cards of a fan, a pile's cards), boxes of different groups may not.
_BOXES = """() => {
  const shown = (el) => {
    if (!el) return false;
    for (let n = el; n; n = n.parentElement) {
      const s = getComputedStyle(n);
      if (n.hidden || s.display === "none" || s.visibility === "hidden") return false;
    }
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const items = [];
  const add = (group, name, el) => {
    if (!shown(el)) return;
    const r = el.getBoundingClientRect();
    items.push({ group, name, x: r.left, y: r.top, r: r.right, b: r.bottom });
  };
  const all = (sel) => [...document.querySelectorAll(sel)];
  add("status", "the status line", document.getElementById("status"));
  add("clock", "the time left", document.getElementById("turn-left"));
  add("settings", "the settings button", document.getElementById("settings-button"));
  for (const el of all("#opponents .seat")) add(`seat ${el.dataset.seat}`, el.dataset.seat, el);
  add("my seat", "the player's seat", document.querySelector("#me-info .seat"));
  all("#pairs .pair").forEach((pair, i) => {
    for (const card of pair.querySelectorAll(".card")) {
      add(`pair ${i}`, `pair ${i}: ${card.dataset.card}`, card);
    }
  });
  for (const el of all("#stock .pile > *, #stock .trump-suit")) {
    add("stock", `stock: ${el.className}`, el);
  }
  for (const el of all("#discard .pile, #discard .pile > *, #discard .pile-label")) {
    add("discard", `discard: ${el.className}`, el);
  }
  add("shown", "the shown panel", document.getElementById("shown"));
  add("recent", "the last moves", document.getElementById("recent"));
  all("#hand .card-btn").forEach((el) => add("hand", `hand: ${el.dataset.card}`, el));
  all("#actions .action").forEach((el) => add(`button ${el.id}`, el.id, el));
  const felt = document.getElementById("felt").getBoundingClientRect();
  return {
    items,
    viewport: { w: document.documentElement.clientWidth, h: document.documentElement.clientHeight },
    felt: { x: felt.left, y: felt.top, r: felt.right, b: felt.bottom },
  };
}"""

#: The groups that are part of the table (the felt): they must stay inside it.
_ON_FELT = ("pair", "stock", "discard", "shown", "recent")
#: How far (CSS pixels) a box may reach past another before it counts (antialiased edges).
_SLACK = 1.0


def _overlap(a: dict[str, Any], b: dict[str, Any]) -> float:
    """How far ``a`` and ``b`` overlap (the smaller of the two extents; 0: apart)."""
    w = min(a["r"], b["r"]) - max(a["x"], b["x"])
    h = min(a["b"], b["b"]) - max(a["y"], b["y"])
    return min(w, h) if w > 0 and h > 0 else 0.0


def _inside(item: dict[str, Any], box: dict[str, Any]) -> bool:
    return (
        item["x"] >= box["x"] - _SLACK
        and item["y"] >= box["y"] - _SLACK
        and item["r"] <= box["r"] + _SLACK
        and item["b"] <= box["b"] + _SLACK
    )


async def layout_problems(frame: Any) -> list[str]:
    """What overlaps or is cut off on the table page in ``frame`` (a page or a frame), once
    its layout has settled (two animation frames: the felt's fitting runs before a paint)."""
    await frame.evaluate(
        "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
    )
    found = await frame.evaluate(_BOXES)
    items: list[dict[str, Any]] = found["items"]
    view = {"x": 0, "y": 0, "r": found["viewport"]["w"], "b": found["viewport"]["h"]}
    problems = []
    groups = {i["group"] for i in items}
    for needed in ("seat 1", "my seat", "pair 0", "stock", "discard", "hand", "button take-button"):
        if needed not in groups:
            problems.append(f"{needed} is not shown")
    for item in items:
        if not _inside(item, view):
            problems.append(f"{item['name']} is cut off by the screen: {_fmt(item)}")
        if item["group"].split(" ")[0] in _ON_FELT and not _inside(item, found["felt"]):
            problems.append(f"{item['name']} spills out of the table: {_fmt(item)}")
    for i, a in enumerate(items):
        for b in items[i + 1 :]:
            if a["group"] != b["group"] and _overlap(a, b) > _SLACK:
                problems.append(f"{a['name']} overlaps {b['name']}: {_fmt(a)} / {_fmt(b)}")
    return problems


def _fmt(item: dict[str, Any]) -> str:
    return f"({item['x']:.0f},{item['y']:.0f})-({item['r']:.0f},{item['b']:.0f})"


async def open_crowded(
    browser: Any, base: str, crowd: Crowd, viewport: tuple[int, int], *, in_room: bool
) -> tuple[Any, Any, FakeServer]:
    """A page at ``viewport`` showing ``crowd``'s table: the channel's table page, or a room's
    page with the table in its frame.  The page, the table's frame (the page itself outside a
    room) and the fake server."""
    from playwright.async_api import expect

    width, height = viewport
    context = await browser.new_context(
        viewport={"width": width, "height": height}, reduced_motion="reduce"
    )
    fake = FakeServer(crowd)
    await fake.install(context)
    page = await context.new_page()
    if in_room:
        await page.goto(f"{base}/room#{ROOM}")
        await expect(page.locator("#game")).to_be_visible()
        handle = await page.wait_for_selector("#table")
        frame = await handle.content_frame()
        assert frame is not None
    else:
        await page.goto(f"{base}/table#t={TABLE_TOKEN}")
        frame = page
    await expect(frame.locator("#hand .card-btn")).to_have_count(crowd.hand)
    await expect(frame.locator("#pairs .pair")).to_have_count(len(_PAIRS))
    return page, frame, fake


async def room_chrome_problems(page: Any) -> list[str]:
    """What overlaps or is cut off on a room's page around its table: the game bar's buttons
    and the table's frame, inside the screen and apart."""
    boxes = await page.evaluate(
        """() => {
          const out = [];
          for (const el of document.querySelectorAll("#game .game-bar button, #table")) {
            if (el.hidden) continue;
            const r = el.getBoundingClientRect();
            out.push({ group: el.id, name: el.id, x: r.left, y: r.top, r: r.right, b: r.bottom });
          }
          const root = document.documentElement;
          return { out, w: root.clientWidth, h: root.clientHeight };
        }"""
    )
    view = {"x": 0, "y": 0, "r": boxes["w"], "b": boxes["h"]}
    problems = [f"{i['name']} is cut off: {_fmt(i)}" for i in boxes["out"] if not _inside(i, view)]
    items = boxes["out"]
    for i, a in enumerate(items):
        for b in items[i + 1 :]:
            if _overlap(a, b) > _SLACK:
                problems.append(f"{a['name']} overlaps {b['name']}")
    return problems
