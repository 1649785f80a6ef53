// The table page's entry point: the token, the socket (socket.js: hello, reconnects), the state
// the server pushes (welcome, table, hand) and the actions the player sends back.
// Protocol: docs/WEB.md (frames are JSON with a "t" field).

import { PageSocket } from "./socket.js";
import { setStrings, t } from "./strings.js";
import { fitFelt, renderNoGame, renderTable, tickClock } from "./table.js";
import { Hand } from "./hand.js";
import { toast, banner } from "./toast.js";
import { load, save } from "./storage.js";

const TOKEN_KEY = "durak.token";
const HINTS_KEY = "durak.hints";
const FOUR_KEY = "durak.fourColours";
// An action whose result never came (a lost frame) stops blocking the hand after this long.
const PENDING_MS = 8000;
// The largest frame the server reads (docs/WEB.md); a link whose hello is bigger is not valid.
const MAX_FRAME = 4096;
const BAD_LINK = Symbol("bad link");
// Where a play --web server deals a new game (docs/WEB.md).
const NEW_GAME = "/api/new-game";

const state = {
  role: null, // "player" | "watcher"
  seat: null,
  table: null,
  hand: null,
  offset: 0, // server clock minus ours, in seconds (the deadline is the server's time)
  hints: load("local", HINTS_KEY) !== "off",
  pending: null, // seq of the action waiting for its result
  seriesOver: false, // the series ended (no rematch): the end screen says so
  newGame: null, // whether this server deals a new game (play --web), once asked
};

let token = null;
let seq = 0;
const socket = new PageSocket("/ws", {
  hello: () => (token ? { t: "hello", token, lang: navigator.language || "en" } : null),
  onFrame: handle,
  onState: (what, detail) => {
    if (what === "open") return; // the welcome that follows clears the banner
    state.pending = null;
    if (what === "connecting") banner(t("connecting"), "wait");
    else if (what === "reconnecting") banner(lines(detail.reason, t("reconnecting")), "wait");
    else closedForGood(detail);
  },
});

/** The banner's text: the server's reason (if any) above the page's own line. */
function lines(reason, text) {
  return reason ? `${reason}\n${text}` : text;
}

/** The socket is closed for good: say why (the server's reason, else the page's words). A
 * table without a game (its series ended) offers a new game where the server deals one. */
async function closedForGood({ code, reason }) {
  state.hand = null; // nothing can be played any more
  hands.render(state);
  if (code === 4004 && (await newGameOffered())) {
    banner(null);
    state.seriesOver = true;
    renderNoGame(state, handlers);
    return;
  }
  const tooBig = code === 1009 || code === 4009; // only a hello with a bad link is that big
  banner(reason || (tooBig ? t("bad_link") : t("closed")), "error");
}

/** Whether this server deals a new game once the series is over (``play --web`` does; it
 * answers ``GET /api/new-game``). Asked once. */
async function newGameOffered() {
  if (state.newGame === null) {
    try {
      const answer = await fetch(NEW_GAME);
      state.newGame = answer.ok && (await answer.json()).new_game === true;
    } catch {
      state.newGame = false;
    }
  }
  return state.newGame;
}

/** Asks the server for a new game with the same options, then opens it (its new token). */
async function newGame() {
  const button = document.getElementById("new-game-button");
  button.disabled = true;
  socket.stop();
  try {
    const answer = await fetch(NEW_GAME, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ token, lang: navigator.language || "en" }),
    });
    let body = {};
    try {
      body = await answer.json();
    } catch {
      body = {};
    }
    if (!answer.ok || typeof body.token !== "string") throw new Error(body.error || t("new_game_failed"));
    token = body.token;
    save("session", TOKEN_KEY, token);
    Object.assign(state, { seriesOver: false, table: null, hand: null, pending: null });
    document.getElementById("game-over").hidden = true;
    document.body.classList.remove("game-done");
  } catch (error) {
    toast(error.message, "error");
  } finally {
    button.disabled = false;
    socket.restart();
  }
}

/** The token from the link's fragment (kept for reconnects, then removed from the address
 * bar), else the one kept from earlier in this tab; ``BAD_LINK`` when the fragment's token
 * cannot be a token (a malformed escape, or too long for the hello frame). */
function readToken() {
  const match = /(?:^#|&)t=([^&]+)/.exec(location.hash);
  if (!match) return load("session", TOKEN_KEY);
  history.replaceState(null, "", location.pathname + location.search);
  let found;
  try {
    found = decodeURIComponent(match[1]);
  } catch {
    return BAD_LINK; // "%E0%A4%A": a cut or mangled link
  }
  if (!fitsHello(found)) return BAD_LINK;
  save("session", TOKEN_KEY, found);
  return found;
}

/** Whether a hello with ``candidate`` fits in one frame (the server refuses a bigger one). */
function fitsHello(candidate) {
  const hello = { t: "hello", token: candidate, lang: navigator.language || "en" };
  return new TextEncoder().encode(JSON.stringify(hello)).length <= MAX_FRAME;
}

function send(frame) {
  return socket.send(frame);
}

/** Sends a legal action's text with the game and version the page shows. */
function act(actionText) {
  const hand = state.hand;
  if (!hand || state.pending !== null) return;
  seq += 1;
  if (send({ t: "act", seq, game: hand.game, version: hand.version, action: actionText })) {
    const mine = seq;
    state.pending = mine;
    hands.render(state);
    setTimeout(() => {
      if (state.pending === mine) {
        state.pending = null;
        hands.render(state);
      }
    }, PENDING_MS);
  }
}

function command(kind) {
  seq += 1;
  send({ t: kind, seq });
}

function handle(frame) {
  switch (frame.t) {
    case "welcome":
      setStrings(frame.strings, frame.lang);
      state.role = frame.role;
      state.seat = frame.seat ?? null;
      if (frame.role !== "player") state.hand = null;
      banner(null);
      // A later welcome may change the role (a forfeit makes a player a watcher).
      if (state.table) renderAll();
      break;
    case "table":
      if (!frame.table.finished && !frame.table.aborted) state.seriesOver = false;
      state.table = frame.table;
      state.offset = frame.table.now - Date.now() / 1000;
      renderAll();
      break;
    case "hand":
      state.hand = frame.hand;
      hands.render(state);
      fitFelt(); // the hand's height may have changed the felt's
      break;
    case "review_progress":
      if (review) review.progress(frame);
      break;
    case "review":
      if (review) review.show(frame);
      break;
    case "result":
      if (!frame.ok && review) review.refused(frame.seq);
      if (frame.seq === state.pending) state.pending = null;
      if (!frame.ok) toast(frame.reason || "", frame.stale ? "stale" : "error");
      hands.render(state);
      break;
    case "notice":
      if (frame.kind === "series_ended") {
        seriesEnded();
        if (document.body.classList.contains("game-done")) break; // the end screen says it
      }
      toast(frame.text, "notice");
      break;
    case "error":
      banner(frame.reason, "error");
      break;
    default:
      break;
  }
}

/** The series is over: the end screen says so, without Rematch and End series (and with New
 * game where the server deals one). */
async function seriesEnded() {
  state.seriesOver = true;
  if (state.table) renderAll();
  await newGameOffered();
  if (state.table && state.seriesOver) renderAll();
}

const handlers = {
  onRematch: () => command("rematch"),
  onEndSeries: () => command("end_series"),
  onNewGame: () => newGame(),
  onReview: async () => {
    if (!state.table) return;
    seq += 1;
    const asked = seq;
    const game = state.table.game;
    const panel = await reviewPanel();
    panel.ask(game, asked);
  },
};

// The review panel's script is loaded the first time a review is asked for (after a game),
// not with the page: a page that never asks does not download it.
let review = null;

async function reviewPanel() {
  if (!review) {
    const { ReviewPanel } = await import("./review.js");
    review = review || new ReviewPanel(send);
  }
  return review;
}

function renderAll() {
  renderTable(state, handlers);
  hands.render(state);
  fitFelt(); // the hand's height may have changed the felt's
}

function setupSettings() {
  const button = document.getElementById("settings-button");
  const panel = document.getElementById("settings");
  button.addEventListener("click", () => {
    panel.hidden = !panel.hidden;
    button.setAttribute("aria-expanded", String(!panel.hidden));
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !panel.hidden) {
      panel.hidden = true;
      button.setAttribute("aria-expanded", "false");
    }
  });
  const hints = document.getElementById("hints-toggle");
  hints.checked = state.hints;
  hints.addEventListener("change", () => {
    state.hints = hints.checked;
    save("local", HINTS_KEY, state.hints ? "on" : "off");
    hands.render(state);
  });
  const four = document.getElementById("four-toggle");
  four.checked = load("local", FOUR_KEY) === "on";
  document.body.classList.toggle("four-colours", four.checked);
  four.addEventListener("change", () => {
    save("local", FOUR_KEY, four.checked ? "on" : "off");
    document.body.classList.toggle("four-colours", four.checked);
  });
}

const hands = new Hand(document.getElementById("hand"), { act, state });

async function start() {
  setupSettings();
  setInterval(() => tickClock(state), 250);
  window.addEventListener("resize", () => hands.layout());
  const params = new URLSearchParams(location.search);
  if (params.has("frame_id") && params.has("instance_id")) {
    // Inside Discord: the Embedded App SDK identifies the player (loaded only here).
    try {
      const activity = await import("./activity.js");
      token = await activity.activityToken(params);
      save("session", TOKEN_KEY, token);
    } catch (error) {
      token = load("session", TOKEN_KEY);
      if (!token) {
        banner(String(error && error.message ? error.message : error), "error");
        return;
      }
    }
  } else {
    token = readToken();
  }
  if (token === BAD_LINK) {
    token = null;
    banner(t("bad_link"), "error");
    return;
  }
  if (!token) {
    banner(t("no_token"), "error");
    return;
  }
  socket.start();
}

start();
