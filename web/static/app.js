// The table page's entry point: the token, the socket (socket.js: hello, reconnects), the state
// the server pushes (welcome, table, hand) and the actions the player sends back.
// Protocol: docs/WEB.md (frames are JSON with a "t" field).

import { PageSocket } from "./socket.js";
import { setStrings, t } from "./strings.js";
import { renderTable, tickClock } from "./table.js";
import { Hand } from "./hand.js";
import { toast, banner } from "./toast.js";
import { load, save } from "./storage.js";

const TOKEN_KEY = "durak.token";
const HINTS_KEY = "durak.hints";
const FOUR_KEY = "durak.fourColours";
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
let seq = 0;
const socket = new PageSocket("/ws", {
  hello: () => (token ? { t: "hello", token, lang: navigator.language || "en" } : null),
  onFrame: handle,
  onState: (what, detail) => {
    state.pending = null;
    if (what === "closed") banner((detail && detail.reason) || t("closed"), "error");
    else banner(what === "connecting" ? t("connecting") : t("reconnecting"), "wait");
  },
});

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
  if (!token) {
    banner(t("no_token"), "error");
    return;
  }
  socket.start();
}

start();
