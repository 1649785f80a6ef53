// The player's own hand, fanned below the table: one <button> per card named by the card's
// text ("9♥"), aria-disabled when it cannot be played now. On the player's turn a card that
// cannot be played is dimmed and described by its reason; on another's turn the whole hand
// waits in full colour, described by the "not your turn" note. Tap (or Enter) plays a card
// that has one legal use and asks when it has several; with hints on a card that cannot be
// played tells why. Take / Pass / Transfer / Show are the buttons above the hand: Show (a trump
// shown to transfer the attack, which stays in the hand) is named by its action, "Show 9♦".

import { t } from "./strings.js";
import { cardFace } from "./cards.js";
import { openChooser, closeChooser } from "./chooser.js";
import { Dragger } from "./drag.js";
import { toast } from "./toast.js";

/** The hint about ``card``: the reason alone when it names the card, else the card and the
 * reason (a card is named once). */
export function cardHint(card, reason) {
  if (reason.includes(card)) return reason[0].toUpperCase() + reason.slice(1);
  return t("cannot_play", { card, reason });
}

const MIN_STEP = 0.56; // the least visible part of an overlapped card, as a share of its width
const GAP = 8;
const EDGE = 12; // room at each side for the fan's tilt and glow

export class Hand {
  constructor(root, { act, state }) {
    this.root = root;
    this.act = act;
    this.state = state;
    this.buttons = new Map();
    this.dragger = new Dragger(this);
    this.take = document.getElementById("take-button");
    this.pass = document.getElementById("pass-button");
    this.transfer = document.getElementById("transfer-button");
    this.show = document.getElementById("show-button");
    this.waitingNote = document.getElementById("hand-waiting");
    this.take.addEventListener("click", () => this.playKind("take"));
    this.pass.addEventListener("click", () => this.playKind("pass"));
    this.transfer.addEventListener("click", () => this.playKind("transfer"));
    this.show.addEventListener("click", () => this.playKind("show"));
  }

  /** The legal actions that play ``card`` from the hand, as each says in ``uses``
   * (optionally only those ``where`` accepts). */
  choicesFor(card, where = () => true) {
    const hand = this.state.hand;
    if (!hand || hand.finished) return [];
    return hand.legal.filter((a) => a.uses.includes(card) && where(a));
  }

  /** Plays one of ``choices``: at once if there is one, else through the chooser. */
  decide(card, choices) {
    if (choices.length === 1) this.act(choices[0].text);
    else if (choices.length > 1) openChooser(card, choices, (text) => this.act(text));
  }

  playKind(kind) {
    const hand = this.state.hand;
    if (!hand) return;
    const choices = hand.legal.filter((a) => a.kind === kind);
    if (choices.length === 1) this.act(choices[0].text);
    else if (choices.length > 1) openChooser(this[kind].textContent, choices, (text) => this.act(text));
  }

  /** What the hand says of ``card`` (``null``: not in the hand). */
  info(card) {
    return (this.state.hand?.cards || []).find((c) => c.card === card) || null;
  }

  /** A tap, a click or Enter on a card. */
  pressed(card, button) {
    if (this.dragger.justDropped()) return;
    const info = this.info(card);
    if (!info) return;
    const choices = this.choicesFor(card);
    if (!info.playable || choices.length === 0) {
      this.refuse(card, button, info.reason);
      return;
    }
    this.decide(card, choices);
  }

  /** ``card`` cannot be played (there, or now): with hints on the hint says why (``reason``,
   * a sentence of the server or of the page), else the card shakes. */
  refuse(card, button, reason) {
    if (this.state.hints && reason) {
      toast(cardHint(card, reason), "hint");
      return;
    }
    button.classList.remove("shake");
    void button.offsetWidth; // restart the animation
    button.classList.add("shake");
  }

  makeButton(card) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "card card-btn";
    button.dataset.card = card;
    button.setAttribute("aria-label", card);
    button.append(cardFace(card));
    button.addEventListener("click", () => this.pressed(card, button));
    this.dragger.attach(button, card);
    return button;
  }

  render(state) {
    this.state = state;
    document.body.classList.toggle("hints-on", Boolean(state.hints));
    const hand = state.role === "player" ? state.hand : null;
    document.body.classList.toggle("my-turn", Boolean(hand && hand.your_turn && !hand.finished));
    // Not this player's turn: the whole hand waits (a note says so), which is not the same as
    // a card that cannot be played on the player's turn (dimmed, with its reason).
    const waiting = Boolean(hand && !hand.your_turn && !hand.finished);
    this.root.classList.toggle("waiting", waiting);
    this.waitingNote.hidden = !waiting;
    if (!hand) {
      document.body.classList.remove("defending");
      this.root.replaceChildren();
      this.buttons.clear();
      for (const b of [this.take, this.pass, this.transfer, this.show]) b.hidden = true;
      return;
    }
    // The state shown, for scripts and tests that wait for the next one.
    this.root.dataset.game = String(hand.game);
    this.root.dataset.version = String(hand.version);
    const next = new Map();
    const order = [];
    for (const info of hand.cards) {
      const button = this.buttons.get(info.card) || this.makeButton(info.card);
      next.set(info.card, button);
      order.push(button);
      const usable = info.playable && this.choicesFor(info.card).length > 0;
      if (usable) button.removeAttribute("aria-disabled");
      else button.setAttribute("aria-disabled", "true");
      button.classList.toggle("playable", usable);
      button.classList.toggle("trump", Boolean(info.trump));
      // Described as waiting (the note), or by the reason it cannot be played (hints on).
      if (waiting) button.setAttribute("aria-describedby", this.waitingNote.id);
      else button.removeAttribute("aria-describedby");
      button.title = usable || waiting || !state.hints ? "" : info.reason || "";
    }
    for (const [card, button] of this.buttons) {
      if (!next.has(card)) button.remove();
    }
    this.buttons = next;
    // Keep the DOM order the hand's order (Tab goes left to right), moving only what moved.
    order.forEach((button, i) => {
      if (this.root.children[i] !== button) this.root.insertBefore(button, this.root.children[i] || null);
    });
    const kinds = new Set(hand.finished ? [] : hand.legal.map((a) => a.kind));
    this.take.hidden = !kinds.has("take");
    this.pass.hidden = !kinds.has("pass");
    this.transfer.hidden = !kinds.has("transfer");
    // The show's own words ("Show 9♦": one trump can be shown at a time), else "Show".
    const shows = hand.finished ? [] : hand.legal.filter((a) => a.kind === "show");
    this.show.hidden = shows.length === 0;
    this.show.textContent = shows.length === 1 ? shows[0].label || shows[0].text : t("show");
    document.body.classList.toggle("defending", kinds.has("defend"));
    this.root.classList.toggle("busy", state.pending !== null);
    if (!hand.your_turn) closeChooser();
    this.layout();
  }

  /** Fans the cards: overlapped only as much as the width needs, in two rows when one row
   * would leave too little of each card to see and tap. */
  layout() {
    const buttons = [...this.root.children];
    const n = buttons.length;
    if (n === 0) {
      this.root.style.height = "";
      return;
    }
    const width = this.root.clientWidth - 2 * EDGE;
    const cardW = buttons[0].offsetWidth || 64;
    const cardH = buttons[0].offsetHeight || cardW * 1.4;
    const minStep = cardW * MIN_STEP;
    const perRow = Math.max(1, Math.floor((width - cardW) / minStep) + 1);
    const rows = Math.ceil(n / perRow);
    const inRow = Math.ceil(n / rows);
    const rowShift = cardH * 0.55; // the row above still shows its cards' corners
    buttons.forEach((button, i) => {
      const row = Math.floor(i / inRow);
      const k = row === rows - 1 ? n - row * inRow : inRow;
      const j = i - row * inRow;
      const step = k > 1 ? Math.min(cardW + GAP, (width - cardW) / (k - 1)) : 0;
      const span = cardW + step * (k - 1);
      const mid = (k - 1) / 2;
      const spread = step < cardW ? Math.min(2.2, 18 / Math.max(k, 1)) : 1;
      const rot = (j - mid) * spread;
      const arc = Math.abs(j - mid) ** 2 * (step < cardW ? 0.9 : 0.5);
      button.style.setProperty("--x", `${EDGE + (width - span) / 2 + j * step}px`);
      button.style.setProperty("--y", `${row * rowShift + arc}px`);
      button.style.setProperty("--rot", `${rot}deg`);
      button.style.zIndex = String(i + 1);
    });
    const maxArc = Math.abs((inRow - 1) / 2) ** 2 * 0.9;
    this.root.style.height = `${cardH + (rows - 1) * rowShift + maxArc + 22}px`;
  }
}
