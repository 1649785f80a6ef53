// The table: players around it, the attacks with their beating cards, the stock with the
// trump card under it, the discard, the last moves, the turn's countdown and the game's end.
// Everything is drawn from the TABLE frame; nothing here decides a rule.

import { t } from "./strings.js";
import { cardBack, fillFan, staticCard, stockPile, suitIcon, svgNode } from "./cards.js";

const $ = (id) => document.getElementById(id);
const RING = 2 * Math.PI * 21; // the countdown ring's circumference (r = 21 in a 48 box)

function h(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function initials(name) {
  const letters = [...(name || "?").trim()];
  return (letters[0] || "?").toUpperCase();
}

/** A small robot face for AI seats (drawn, so it needs no emoji font). */
function robotIcon() {
  const svg = svgNode("svg", { viewBox: "0 0 24 24", class: "robot", "aria-hidden": "true" });
  svgNode("path", {
    d: "M11 2h2v3h4a3 3 0 0 1 3 3v8a3 3 0 0 1-3 3H7a3 3 0 0 1-3-3V8a3 3 0 0 1 3-3h4zM8.5 9.5a1.8 1.8 0 1 0 0 3.6 1.8 1.8 0 0 0 0-3.6zm7 0a1.8 1.8 0 1 0 0 3.6 1.8 1.8 0 0 0 0-3.6zM9 15v1.5h6V15zM1 10h2v5H1zm20 0h2v5h-2z",
    "fill-rule": "evenodd",
  }, svg);
  return svg;
}

function ringSvg() {
  const svg = svgNode("svg", { viewBox: "0 0 48 48", class: "ring", "aria-hidden": "true" });
  const circle = { cx: 24, cy: 24, r: 21 };
  svgNode("circle", { ...circle, class: "ring-track" }, svg);
  svgNode("circle", { ...circle, class: "ring-bar", "stroke-dasharray": RING }, svg);
  return svg;
}

/** One seat around the table (an opponent, or the player's own line with ``mine``). */
function seatNode(seat, table, mine = false) {
  const node = h("div", "seat");
  node.dataset.seat = String(seat.seat);
  if (seat.to_act && !table.finished) node.classList.add("to-act");
  if (seat.role) node.classList.add(`role-${seat.role}`);
  if (seat.role === "out") node.classList.add("out");
  if (seat.forfeited) node.classList.add("forfeited");
  const team = table.teams && seat.team != null ? table.teams[seat.team] : null;
  if (team) node.classList.add(`team-${seat.team}`);
  const avatar = h("div", "avatar");
  const face = h("span", "avatar-letter", seat.ai_level ? null : initials(seat.name));
  if (seat.ai_level) face.append(robotIcon());
  avatar.append(ringSvg(), face);
  const info = h("div", "seat-info");
  info.append(h("div", "seat-name", seat.name));
  const line = h("div", "seat-line");
  if (team) {
    // the seat's team at a glance: its colour (the seat's border) and its name
    const badge = h("span", `badge badge-team team-${seat.team}`, team.label);
    badge.title = team.name;
    line.append(badge);
  }
  if (seat.played_by != null && seat.played_by !== seat.seat) {
    const by = table.seats.find((s) => s.seat === seat.played_by);
    line.append(h("span", "badge badge-played-by", t("played_by", { name: by ? by.name : "?" })));
  }
  if (seat.role_text) line.append(h("span", `badge badge-${seat.role || "none"}`, seat.role_text));
  if (seat.autopilot) line.append(h("span", "badge badge-auto", t("autopilot")));
  if (seat.losses) line.append(h("span", "losses", `${t("losses")}: ${seat.losses}`));
  info.append(line);
  node.append(avatar, info);
  if (!mine) {
    node.append(fillFan(h("div", "mini-fan"), seat.cards, 6, t("cards")));
  }
  return node;
}

function renderSeats(state) {
  const table = state.table;
  const box = $("opponents");
  box.replaceChildren();
  const mine = table.seats.find((s) => s.you);
  // Opponents in turn order after the player, so the table reads clockwise.
  const seats = table.seats.filter((s) => !s.you);
  if (mine) {
    seats.sort((a, b) => ((a.seat - mine.seat + 99) % table.seats.length) - ((b.seat - mine.seat + 99) % table.seats.length));
  }
  box.dataset.count = String(seats.length);
  for (const seat of seats) box.append(seatNode(seat, table));
  const info = $("me-info");
  info.replaceChildren();
  if (mine) info.append(seatNode(mine, table, true));
  else info.append(h("p", "watching", t("watching")));
}

function renderDeck(table) {
  const stock = $("stock");
  stock.replaceChildren();
  const trumpCard = table.trump_card ? ` (${table.trump_card})` : "";
  const pack = table.deck_text ? ` (${table.deck_text})` : "";
  stock.setAttribute("aria-label", `${t("stock")}: ${table.stock}${pack}. ${t("trump")}: ${table.trump}${trumpCard}`);
  stock.append(stockPile(table.stock, table.trump_card));
  const trump = h("div", "trump-suit");
  trump.append(suitIcon(table.trump), h("span", "", t("trump")));
  stock.append(trump);
  if (table.deck_text) stock.append(h("div", "pile-label pack-size", table.deck_text));

  const discard = $("discard");
  discard.replaceChildren();
  discard.setAttribute("aria-label", `${t("discard")}: ${table.discard}`);
  const dpile = h("div", "pile discard-pile");
  if (table.discard > 0) {
    for (let i = 0; i < Math.min(3, Math.ceil(table.discard / 4)); i += 1) dpile.append(cardBack("discard-back"));
    dpile.append(h("span", "pile-count", String(table.discard)));
  }
  discard.append(dpile, h("div", "pile-label", t("discard")));
}

// The table's cards shown by the last render: a card that was not there arrives animated.
let onTable = new Set();

function renderPairs(state) {
  const table = state.table;
  const box = $("pairs");
  const before = onTable;
  onTable = new Set();
  const arrive = (node) => {
    onTable.add(node.dataset.card);
    if (before.size > 0 && !before.has(node.dataset.card)) node.classList.add("fresh");
    return node;
  };
  box.replaceChildren();
  box.dataset.count = String(table.pairs.length);
  table.pairs.forEach((pair, i) => {
    const node = h("div", "pair");
    node.style.setProperty("--tilt", `${((i * 37) % 7) - 3}deg`);
    const attack = arrive(staticCard(pair.attack, "attack"));
    if (!pair.defence) {
      attack.dataset.drop = "attack";
      attack.dataset.attack = pair.attack;
    }
    node.append(attack);
    if (pair.defence) node.append(arrive(staticCard(pair.defence, "defence")));
    box.append(node);
  });
  $("battle").classList.toggle("taking", Boolean(table.taking));
  $("battle").classList.toggle("empty", table.pairs.length === 0);
  $("drop-hint").textContent = table.pairs.length === 0 ? t("drop_here") : "";
}

function renderShown(table) {
  const box = $("shown");
  const dealt = table.shown && table.shown.length > 0 && table.round <= 1 && !table.finished;
  const shows = table.finished ? [] : table.round_shown || [];
  box.hidden = !dealt && shows.length === 0;
  box.replaceChildren();
  if (box.hidden) return;
  box.setAttribute("role", "group");
  if (dealt) {
    // A label and the cards; the server's sentence (which names them) is the group's name.
    const group = h("span", "shown-group");
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", table.shown_text || t("shown"));
    group.append(h("span", "shown-label", t("shown")));
    for (const card of table.shown) group.append(staticCard(card, "shown-card"));
    box.append(group);
  }
  // The trumps shown this round to transfer: "Ann showed 9♦" with the card, each in order.
  for (const show of shows) {
    const item = h("span", "shown-group round-shown");
    item.dataset.seat = String(show.seat);
    item.setAttribute("role", "note");
    item.setAttribute("aria-label", show.text);
    item.append(staticCard(show.card, "shown-card"), h("span", "shown-label", show.text));
    box.append(item);
  }
  box.setAttribute("aria-label", [dealt ? table.shown_text || t("shown") : null, ...shows.map((s) => s.text)].filter(Boolean).join(". "));
}

// The last moves of the last table drawn (fitRecent shows the newest that fit).
let recentLines = [];

function renderRecent(table) {
  recentLines = (table.recent || []).slice(-6);
  fitRecent();
}

/** The last moves, newest last, as many as fit in their box (a phone shows the last two). */
function fitRecent() {
  const box = $("recent");
  box.replaceChildren(...recentLines.map((line) => h("li", "", line)));
  while (box.children.length > 1 && box.scrollHeight > box.clientHeight + 1) box.firstElementChild.remove();
}

// A pair's box (style.css, .pair) in pair widths, and the least gap between two pairs.
const PAIR_W = 1.4;
const PAIR_H = 1.84;
const PAIR_GAP = 12;

/** The largest table card (CSS px) on this screen: the size the felt's cards grow to. */
function tableCardCap() {
  const width = window.innerWidth;
  return width >= 700 ? Math.min(88, Math.max(64, width * 0.07)) : Math.min(82, Math.max(46, width * 0.15));
}

/** Sizes the felt's cards to the felt: the deck's two piles to the deck's height, the pairs to
 * the battle's box (the rows and size that fit them biggest), the last moves to theirs. */
export function fitFelt() {
  const felt = $("felt");
  const cap = tableCardCap();
  const deck = $("deck");
  const piles = [...deck.querySelectorAll(".pile")];
  if (piles.length === 2) {
    // what the deck holds besides its two piles: their labels and the gaps
    const gap = parseFloat(getComputedStyle(deck).rowGap) || 0;
    const parts = [...deck.children].reduce((sum, part) => sum + part.offsetHeight, 0);
    const labels = parts + gap * (deck.children.length - 1) - piles[0].offsetHeight - piles[1].offsetHeight;
    const fit = (deck.clientHeight - labels) / 2.8;
    felt.style.setProperty("--deck-w", `${Math.max(24, Math.min(cap, fit))}px`);
  }
  const pairs = $("pairs");
  const n = pairs.children.length;
  if (n > 0) {
    const battle = $("battle");
    const width = battle.clientWidth - 8;
    const height = battle.clientHeight - 8;
    let best = 0;
    for (let rows = 1; rows <= n; rows += 1) {
      const cols = Math.ceil(n / rows);
      const w = Math.min((width - PAIR_GAP * (cols - 1)) / (cols * PAIR_W), (height - PAIR_GAP * (rows - 1)) / (rows * PAIR_H));
      best = Math.max(best, w);
    }
    const grow = n <= 2 ? 1.3 : n <= 4 ? 1.12 : 1; // fewer pairs: bigger cards
    const w = Math.max(20, Math.min(best * 0.98, cap * grow)); // a little room for rounding
    pairs.style.setProperty("--pair-w", `${w}px`);
    // As many rows as that size needs, the pairs shared evenly between them (3 + 3, not 5 + 1).
    const fits = Math.max(1, Math.floor((width + PAIR_GAP) / (w * PAIR_W + PAIR_GAP)));
    const cols = Math.ceil(n / Math.ceil(n / Math.min(n, fits)));
    pairs.style.maxWidth = `${cols * w * PAIR_W + (cols - 1) * PAIR_GAP + 1}px`;
  }
  fitRecent();
}

let watching = null;

/** Fits the felt again whenever its size changes (a resized window, a row that grew). */
function watchFelt() {
  if (watching || typeof ResizeObserver === "undefined") return;
  watching = new ResizeObserver(() => fitFelt());
  watching.observe($("felt"));
}

function renderGameOver(state, handlers) {
  const table = state.table;
  const over = $("game-over");
  const done = Boolean(table.finished || table.aborted);
  over.hidden = !done;
  document.body.classList.toggle("game-done", done);
  if (!done) return;
  $("over-title").textContent = state.seriesOver ? t("series_over") : t("game_over");
  $("over-text").textContent = table.over_text || "";
  const standings = $("standings");
  standings.replaceChildren();
  if (table.series && table.series.standings) {
    standings.append(h("caption", "", t("series")));
    const body = h("tbody");
    // Standings come in seat order: the durak's rows are the losers' seats (a team's, together).
    const losers = table.losers || (table.loser == null ? [] : [table.loser]);
    for (const [seat, row] of table.series.standings.entries()) {
      const tr = h("tr", losers.includes(seat) && !table.draw ? "durak" : "");
      tr.append(h("th", "", row.name), h("td", "", `${t("losses")}: ${row.losses}`));
      body.append(tr);
    }
    standings.append(body);
  }
  const canAct = state.role === "player" && table.can_rematch && !state.seriesOver;
  const rematch = $("rematch-button");
  const end = $("end-series-button");
  rematch.hidden = !canAct;
  end.hidden = !canAct;
  rematch.onclick = handlers.onRematch;
  end.onclick = handlers.onEndSeries;
  // the coach's review of the player's own decisions, for a game played to its end
  const review = $("review-button");
  review.hidden = !(state.role === "player" && table.finished && !table.aborted);
  review.onclick = handlers.onReview;
  showNewGame(state, handlers);
}

/** The New game button: once the series is over, where the server deals one. */
function showNewGame(state, handlers) {
  const button = $("new-game-button");
  button.hidden = !(state.seriesOver && state.newGame);
  button.onclick = handlers.onNewGame;
}

/** The end screen without a table: this link's table has no game now (its series ended),
 * with the New game button where the server deals one. */
export function renderNoGame(state, handlers) {
  $("game-over").hidden = false;
  document.body.classList.add("game-done");
  $("over-title").textContent = t("no_game");
  $("over-text").textContent = "";
  $("standings").replaceChildren();
  $("rematch-button").hidden = true;
  $("end-series-button").hidden = true;
  $("review-button").hidden = true;
  showNewGame(state, handlers);
}

/** Whether the player of seat ``me`` acts now: for their own seat, or (a team game) for a
 * partner's seat they took over. */
function playsToAct(table, me) {
  const seat = table.seats.find((s) => s.seat === table.to_act);
  return Boolean(seat && (seat.played_by ?? seat.seat) === me.seat);
}

/** Draws the whole table from ``state.table``. */
export function renderTable(state, handlers) {
  const table = state.table;
  if (!table) return;
  document.body.classList.toggle("watcher", state.role !== "player");
  const me = table.seats.find((s) => s.you);
  const mine = Boolean(me && playsToAct(table, me) && !table.finished);
  // A tab in the background says when the player is awaited.
  document.title = mine ? `● ${t("your_turn")} · Durak` : "Durak";
  $("status").textContent = table.finished || table.aborted ? table.over_text || "" : table.status_text || "";
  renderSeats(state);
  renderDeck(table);
  renderPairs(state);
  renderShown(table);
  renderRecent(table);
  fitFelt();
  watchFelt();
  renderGameOver(state, handlers);
  tickClock(state);
}

/** Moves the countdown (ring on the seat to act, bar at the top on the player's turn). */
export function tickClock(state) {
  const table = state.table;
  const bar = $("turn-bar");
  const clock = $("turn-left");
  if (!table || table.deadline == null || table.finished || table.to_act == null) {
    bar.hidden = true;
    clock.hidden = true;
    return;
  }
  const now = Date.now() / 1000 + state.offset;
  const left = Math.max(0, table.deadline - now);
  const frac = Math.max(0, Math.min(1, left / (table.turn_timeout || 60)));
  const urgent = left <= 10;
  for (const ring of document.querySelectorAll(".seat.to-act .ring-bar")) {
    ring.setAttribute("stroke-dashoffset", String(RING * (1 - frac)));
    ring.classList.toggle("urgent", urgent);
  }
  const me = table.seats.find((s) => s.you);
  bar.hidden = false;
  bar.classList.toggle("urgent", urgent);
  bar.classList.toggle("mine", Boolean(me && playsToAct(table, me)));
  $("turn-bar-fill").style.transform = `scaleX(${frac})`;
  const secs = Math.ceil(left);
  clock.hidden = false;
  clock.classList.toggle("urgent", urgent);
  clock.textContent = secs >= 60 ? `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, "0")}` : t("seconds", { n: secs });
}
