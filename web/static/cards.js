// Card art drawn by code: every face is a small SVG built from the card's text ("10♦").
// Suits are told apart by shape (drawn paths, never a font glyph) and by colour; the
// colours come from CSS classes (suit-s/h/d/c), so the four-colour deck is a CSS switch.

const NS = "http://www.w3.org/2000/svg";

/** The suit letter used in class names, by symbol. */
export const SUIT_KEY = { "♠": "s", "♥": "h", "♦": "d", "♣": "c" };

// Each suit in a 100x100 box.
const SUIT_PATHS = {
  h: "M50 92C22 70 2 52 2 30 2 13 14 3 28 3c10 0 18 6 22 15C54 9 62 3 72 3c14 0 26 10 26 27 0 22-20 40-48 62z",
  d: "M50 2 90 50 50 98 10 50z",
  s: "M50 2C60 22 98 38 98 62c0 15-11 25-24 25-9 0-16-4-20-11 1 9 5 16 13 22H33c8-6 12-13 13-22-4 7-11 11-20 11C13 87 2 77 2 62 2 38 40 22 50 2z",
  c: "M50 4a21 21 0 0 1 18 32 21 21 0 1 1-12 36c1 11 5 18 13 24H31c8-6 12-13 13-24a21 21 0 1 1-12-36A21 21 0 0 1 50 4z",
};

// Where the pips of a number card go: [column, y] in the card's 100x140 box (the big
// corner indices take the left and right edges, so the pips keep to the middle).
const COLS = [38, 50, 62];
const T = 27, B = 113, M = 70;
const q = (i) => T + ((B - T) * i) / 3; // four evenly spaced rows
const PIPS = {
  2: [[1, T], [1, B]],
  3: [[1, T], [1, M], [1, B]],
  4: [[0, T], [2, T], [0, B], [2, B]],
  5: [[0, T], [2, T], [1, M], [0, B], [2, B]],
  6: [[0, T], [2, T], [0, M], [2, M], [0, B], [2, B]],
  7: [[0, T], [2, T], [1, 48], [0, M], [2, M], [0, B], [2, B]],
  8: [[0, T], [2, T], [1, 48], [0, M], [2, M], [1, 92], [0, B], [2, B]],
  9: [[0, q(0)], [2, q(0)], [0, q(1)], [2, q(1)], [1, M], [0, q(2)], [2, q(2)], [0, q(3)], [2, q(3)]],
  10: [[0, q(0)], [2, q(0)], [1, 42], [0, q(1)], [2, q(1)], [0, q(2)], [2, q(2)], [1, 98], [0, q(3)], [2, q(3)]],
};

// Court emblems (in a 100x100 box): a crown for the king, a tiara for the queen, a
// plumed cap for the jack, so the three differ by shape too.
const EMBLEMS = {
  K: "M14 80 10 30l22 20 18-32 18 32 22-20-4 50z",
  Q: "M18 80 12 40c12 10 20 8 24-4 4 10 10 12 14-6 4 18 10 16 14 6 4 12 12 14 24 4l-6 40z",
  J: "M12 78c0-22 16-36 38-36s38 14 38 36zM56 44C60 26 74 12 92 8 84 18 76 30 70 44z",
};

/** Splits a card text ("10♦") into its rank ("10") and suit symbol ("♦"). */
export function parseCard(text) {
  const suit = text.slice(-1);
  return { rank: text.slice(0, -1), suit, key: SUIT_KEY[suit] || "s" };
}

/** An SVG element ``name`` with ``attrs``, appended to ``parent`` when one is given. */
export function svgNode(name, attrs, parent) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

/** A suit shape of ``size`` centred on (cx, cy); ``flip`` turns it upside down. */
function pip(parent, key, cx, cy, size, flip = false) {
  const s = size / 100;
  const rot = flip ? ` rotate(180 50 50)` : "";
  svgNode("path", {
    d: SUIT_PATHS[key],
    transform: `translate(${cx - size / 2} ${cy - size / 2}) scale(${s})${rot}`,
  }, parent);
}

/** A free-standing suit symbol (the trump indicator, the chooser), as an inline SVG. */
export function suitIcon(suit, className = "suit-icon") {
  const key = SUIT_KEY[suit] || "s";
  const svg = svgNode("svg", { viewBox: "0 0 100 100", class: `${className} suit-${key}`, "aria-hidden": "true" });
  svgNode("path", { d: SUIT_PATHS[key] }, svg);
  return svg;
}

function corner(g, rank, key) {
  const attrs = { x: 5, y: 30, class: "rank" };
  // "10" is squeezed into the width of one big digit, so it never runs into the pips.
  if (rank.length > 1) Object.assign(attrs, { textLength: 25, lengthAdjust: "spacingAndGlyphs" });
  const text = svgNode("text", attrs, g);
  text.textContent = rank;
  pip(g, key, 16, 43, 20);
}

/** The face of ``text`` as an SVG element (decorative: the button around it is named). */
export function cardFace(text) {
  const { rank, key } = parseCard(text);
  const svg = svgNode("svg", {
    viewBox: "0 0 100 140",
    class: `card-face suit-${key}`,
    "aria-hidden": "true",
    focusable: "false",
  });
  svgNode("rect", { x: 1, y: 1, width: 98, height: 138, rx: 9, class: "card-bg" }, svg);
  const top = svgNode("g", {}, svg);
  corner(top, rank, key);
  const bottom = svgNode("g", { transform: "rotate(180 50 70)" }, svg);
  corner(bottom, rank, key);
  if (PIPS[rank]) {
    const n = Number(rank);
    const size = n >= 9 ? 12 : 14;
    for (const [c, y] of PIPS[rank]) pip(svg, key, COLS[c], y, size, y > M);
  } else if (rank === "A") {
    pip(svg, key, 50, 70, 44);
  } else {
    svgNode("rect", { x: 29, y: 12, width: 42, height: 116, rx: 6, class: "court-frame" }, svg);
    const emblem = svgNode("g", { transform: "translate(33 22) scale(0.34)", class: "emblem" }, svg);
    svgNode("path", { d: EMBLEMS[rank] || EMBLEMS.K }, emblem);
    const letter = svgNode("text", { x: 50, y: 88, class: "court-letter" }, svg);
    letter.textContent = rank;
    pip(svg, key, 50, 106, 16);
  }
  return svg;
}

/** A face-down card (its pattern is CSS). */
export function cardBack(className = "") {
  const div = document.createElement("div");
  div.className = `card-back ${className}`.trim();
  div.setAttribute("aria-hidden", "true");
  return div;
}

/** A face-up card that is not a button (the table's cards, the trump card). */
export function staticCard(text, className = "") {
  const div = document.createElement("div");
  div.className = `card ${className}`.trim();
  div.setAttribute("role", "img");
  div.setAttribute("aria-label", text);
  div.dataset.card = text;
  div.appendChild(cardFace(text));
  return div;
}

/** A `span` of class `className` saying `text`. */
function label(className, text) {
  const span = document.createElement("span");
  span.className = className;
  span.textContent = text;
  return span;
}

/** Fill `fan` with `cards` face-down cards (at most `most` of them shown) and their count,
 * read out as "`name`: count". */
export function fillFan(fan, cards, most, name) {
  for (let i = 0; i < Math.min(cards, most); i += 1) fan.append(cardBack("mini"));
  const count = label("card-count", String(cards));
  count.setAttribute("aria-label", `${name}: ${cards}`);
  fan.append(count);
  return fan;
}

/** The stock's pile: its face-down cards with the trump card (if it is shown) upright under
 * them, its corner showing (stock-pile in style.css), and how many cards are left. */
export function stockPile(stock, trumpCard) {
  const pile = document.createElement("div");
  pile.className = "pile stock-pile";
  const backs = stock > (trumpCard ? 1 : 0);
  pile.classList.toggle("with-trump", Boolean(trumpCard && backs));
  pile.classList.toggle("only-trump", Boolean(trumpCard && !backs));
  if (trumpCard) pile.append(staticCard(trumpCard, "trump-card"));
  if (backs) pile.append(cardBack("stock-back"));
  if (stock > 0) pile.append(label("pile-count", String(stock)));
  return pile;
}
