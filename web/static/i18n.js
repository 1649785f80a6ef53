// The page's own words: the server sends them translated in the welcome frame
// (welcome.strings, from the bot's gettext catalogues); English is the fallback for a key
// the server did not send, so the page is never without a label.

const EN = {
  take: "Take",
  pass: "Pass",
  beaten: "Beaten",
  transfer: "Transfer",
  hints: "Hints",
  hint_on: "Hints on",
  hint_off: "Hints off",
  four_colours: "Four-colour suits",
  your_turn: "Your turn",
  waiting: "Waiting for the other players",
  stock: "Stock",
  discard: "Discard",
  trump: "Trump",
  rematch: "Rematch",
  end_series: "End series",
  watching: "You are watching",
  reconnecting: "Reconnecting…",
  connecting: "Connecting…",
  choose_action: "Choose what to do with {card}",
  cancel: "Cancel",
  game_over: "Game over",
  series: "Series",
  you: "you",
  last_moves: "Last moves",
  shown: "Shown at the deal",
  losses: "Losses",
  cards: "Cards",
  settings: "Settings",
  cannot_play: "{card} cannot be played now: {reason}",
  no_token: "This link has no table in it: open the table again from the game's link.",
  closed: "The table was closed.",
  drop_here: "Drop a card here",
  autopilot: "Autopilot",
  seconds: "{n} s",
};

let strings = {};

/** Uses the translated strings of a welcome frame (missing keys stay English). */
export function setStrings(next) {
  strings = next && typeof next === "object" ? next : {};
}

/** Whether the server sent ``key`` (in the reader's language). */
export function has(key) {
  return typeof strings[key] === "string";
}

/** The text of ``key`` with ``{name}`` placeholders filled from ``params``. */
export function t(key, params = {}) {
  const text = typeof strings[key] === "string" ? strings[key] : EN[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (all, name) => (name in params ? String(params[name]) : all));
}
