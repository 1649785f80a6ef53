// The page's entry point: the token, the WebSocket (hello, reconnect with backoff), the state
// the server pushes (welcome, table, hand) and the actions the player sends back.
// Protocol: docs/WEB.md (frames are JSON with a "t" field).

import { setStrings, t } from "./i18n.js";
import { renderTable, tickClock } from "./table.js";
import { Hand } from "./hand.js";
import { toast, banner } from "./toast.js";
import { load, save } from "./storage.js";

const TOKEN_KEY = "durak.token";
const HINTS_KEY = "durak.hints";
const FOUR_KEY = "durak.fourColours";
// Closing codes after which reconnecting cannot help (bad token, bad origin, game gone).
const FATAL_CODES = new Set([4001, 4003, 4004]);
const PING_EVERY_MS = 25000;
// An action whose result never came (a lost frame) stops blocking the hand after this long.
const PENDING_MS = 8000;

const state = {
  role: null, // "player" | "watcher"
  seat: null,
  table: null,
  hand: null,
  offset: 0, // server clock minus ours, in seconds (the deadline is the server's time)
  hints: load("local", HINTS_KEY) !== "off",
  pending: null, // seq of the action waiting for its result
};

let token = null;
let socket = null;
let attempt = 0;
let seq = 0;
let lastError = null;
let pingTimer = null;
let reconnectTimer = null;

/** The token from the link's fragment (kept for reconnects, then removed from the address
 * bar), else the one kept from earlier in this tab. */
function readToken() {
  const match = /(?:^#|&)t=([^&]+)/.exec(location.hash);
  if (match) {
    const found = decodeURIComponent(match[1]);
    save("session", TOKEN_KEY, found);
    history.replaceState(null, "", location.pathname + location.search);
    return found;
  }
  return load("session", TOKEN_KEY);
}

function socketUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws`;
}

function send(frame) {
  if (!socket || socket.readyState !== WebSocket.OPEN) return false;
  socket.send(JSON.stringify(frame));
  return true;
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

function connect() {
  clearTimeout(reconnectTimer);
  banner(attempt === 0 ? t("connecting") : t("reconnecting"), "wait");
  const ws = new WebSocket(socketUrl());
  socket = ws;
  ws.addEventListener("open", () => {
    ws.send(JSON.stringify({ t: "hello", token, lang: navigator.language || "en" }));
  });
  ws.addEventListener("message", (event) => {
    let frame;
    try {
      frame = JSON.parse(event.data);
    } catch {
      return;
    }
    if (socket === ws) handle(frame);
  });
  ws.addEventListener("close", (event) => {
    if (socket !== ws) return;
    socket = null;
    clearInterval(pingTimer);
    state.pending = null;
    if (FATAL_CODES.has(event.code)) {
      banner(lastError || t("closed"), "error");
      return;
    }
    attempt += 1;
    const delay = Math.min(10000, 400 * 2 ** Math.min(attempt - 1, 5));
    banner(t("reconnecting"), "wait");
    reconnectTimer = setTimeout(connect, delay * (0.8 + Math.random() * 0.4));
  });
}

function handle(frame) {
  switch (frame.t) {
    case "welcome":
      attempt = 0;
      lastError = null;
      setStrings(frame.strings);
      state.role = frame.role;
      state.seat = frame.seat ?? null;
      if (frame.role !== "player") state.hand = null;
      if (frame.lang) document.documentElement.lang = frame.lang;
      applyLabels();
      banner(null);
      // A later welcome may change the role (a forfeit makes a player a watcher).
      if (state.table) renderAll();
      clearInterval(pingTimer);
      pingTimer = setInterval(() => send({ t: "ping" }), PING_EVERY_MS);
      break;
    case "table":
      state.table = frame.table;
      state.offset = frame.table.now - Date.now() / 1000;
      renderAll();
      break;
    case "hand":
      state.hand = frame.hand;
      hands.render(state);
      break;
    case "result":
      if (frame.seq === state.pending) state.pending = null;
      if (!frame.ok) toast(frame.reason || "", frame.stale ? "stale" : "error");
      hands.render(state);
      break;
    case "notice":
      toast(frame.text, "notice");
      break;
    case "error":
      lastError = frame.reason;
      banner(frame.reason, "error");
      break;
    default:
      break;
  }
}

function renderAll() {
  renderTable(state, { onRematch: () => command("rematch"), onEndSeries: () => command("end_series") });
  hands.render(state);
}

/** Labels that are in the HTML in English, in the reader's language. */
function applyLabels() {
  const set = (id, key) => {
    const node = document.getElementById(id);
    if (node) node.textContent = t(key);
  };
  set("hints-label", "hints");
  set("four-label", "four_colours");
  set("chooser-cancel", "cancel");
  set("rematch-button", "rematch");
  set("end-series-button", "end_series");
  set("take-button", "take");
  set("pass-button", "pass");
  set("transfer-button", "transfer");
  document.getElementById("recent").setAttribute("aria-label", t("last_moves"));
  document.getElementById("settings-button").setAttribute("aria-label", t("settings"));
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
  applyLabels();
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
  if (!token) {
    banner(t("no_token"), "error");
    return;
  }
  connect();
}

start();
