// The coach's review of the player's own game (the REVIEW frame): a progress bar while it is
// made, then its summary with the chart, and one page per marked decision with Previous and
// Next.  A decision's page replays the table as the player saw it then on a small felt of the
// table's own cards (their hand, the pairs, the stock and trump, the others' card counts),
// with the move made marked "You" and the better move glowing, marked "Better".  The server
// writes every word in the reader's language and sends only what that player saw; this only
// lays it out.

import { t } from "./strings.js";
import { fillFan, staticCard, stockPile, suitIcon } from "./cards.js";

const $ = (id) => document.getElementById(id);

function h(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function line(text, className) {
  return h("p", className || "", text);
}

/** The marks ("you", "better") a card of the hand or the table gets from the two moves. */
function marksOf(card, moves) {
  return moves.filter((m) => m.move.cards.includes(card));
}

/** A mark's label, as a small pill under a card or a chip. */
function markLabel(m) {
  const label = h("span", `rf-mark rf-mark-${m.key}`, m.move.mark);
  label.dataset.mark = m.key;
  return label;
}

/** A seat of the other players: name, role and card count (face down). */
function seatChip(seat) {
  const node = h("div", "rf-seat");
  node.dataset.seat = String(seat.seat);
  if (seat.to_act) node.classList.add("to-act");
  if (seat.role === "out") node.classList.add("out");
  node.append(h("span", "rf-seat-name", seat.name));
  if (seat.role_text) node.append(h("span", `badge badge-${seat.role}`, seat.role_text));
  node.append(fillFan(h("span", "rf-fan"), seat.cards, 3, t("cards")));
  return node;
}

/** The stock with the trump card under it, and the trump suit (as on the table). */
function deckNode(felt) {
  const stock = h("div", "rf-stock");
  const trumpCard = felt.trump_card ? ` (${felt.trump_card})` : "";
  stock.setAttribute("role", "img");
  stock.setAttribute("aria-label", `${t("stock")}: ${felt.stock}. ${t("trump")}: ${felt.trump}${trumpCard}`);
  const pile = stockPile(felt.stock, felt.trump_card);
  const trump = h("div", "trump-suit");
  trump.append(suitIcon(felt.trump), h("span", "", t("trump")));
  const discard = h("div", "pile-label rf-discard", `${t("discard")}: ${felt.discard}`);
  stock.append(pile, trump, discard);
  return stock;
}

/** The table's pairs; an attack a move covers is ringed in that move's colour. */
function pairsNode(felt, moves) {
  const box = h("div", "pairs rf-pairs");
  box.dataset.count = String(felt.pairs.length);
  felt.pairs.forEach((pair, i) => {
    const node = h("div", "pair");
    node.style.setProperty("--tilt", `${((i * 37) % 7) - 3}deg`);
    const attack = staticCard(pair.attack, "attack");
    for (const m of marksOf(pair.attack, moves)) attack.classList.add(`rf-target-${m.key}`);
    node.append(attack);
    if (pair.defence) node.append(staticCard(pair.defence, "defence"));
    box.append(node);
  });
  return box;
}

/** The player's hand then: the cards of the move made marked "You", the better move's glowing
 * and marked "Better"; take and pass are chips shaped as the table's buttons. */
function handNode(felt, moves) {
  const hand = h("div", "rf-hand");
  hand.setAttribute("role", "group");
  hand.setAttribute("aria-label", t("your_hand"));
  for (const card of felt.hand) {
    const slot = h("div", "rf-slot");
    const node = staticCard(card, "rf-card");
    const marks = marksOf(card, moves);
    for (const m of marks) {
      node.classList.add(`rf-${m.key}`);
      slot.classList.add(`rf-${m.key}`);
    }
    slot.append(node, ...marks.map(markLabel));
    hand.append(slot);
  }
  for (const m of moves) {
    if (m.move.kind !== "take" && m.move.kind !== "pass") continue;
    const slot = h("div", `rf-slot rf-chip-slot rf-${m.key}`);
    const chip = h("span", `action ${m.move.kind} rf-chip rf-${m.key}`, m.move.text);
    chip.dataset.kind = m.move.kind;
    slot.append(chip, markLabel(m));
    hand.append(slot);
  }
  return hand;
}

/** The legend under the felt: each move's mark and its words. */
function legendNode(moves) {
  const list = h("ul", "rf-legend");
  for (const m of moves) {
    const item = h("li", `rf-legend-${m.key}`);
    item.append(markLabel(m), h("span", "rf-move", m.move.text));
    list.append(item);
  }
  return list;
}

/** A decision's table as the player saw it, with the two moves drawn on it. */
export function feltNode(felt) {
  const moves = [{ key: "you", move: felt.chosen }];
  if (felt.better) moves.push({ key: "better", move: felt.better });
  const root = h("section", "review-felt");
  const seats = h("div", "rf-seats");
  for (const seat of felt.seats) if (!seat.you) seats.append(seatChip(seat));
  const middle = h("div", "rf-middle");
  middle.append(deckNode(felt), pairsNode(felt, moves));
  const me = felt.seats.find((s) => s.you);
  const mine = h("div", "rf-me");
  if (me) {
    mine.append(h("span", "rf-seat-name", me.name));
    if (me.role_text) mine.append(h("span", `badge badge-${me.role}`, me.role_text));
  }
  root.append(seats, middle, mine, handNode(felt, moves));
  return [root, legendNode(moves)];
}

/** The review panel: ``ask()`` sends the request, ``progress`` and ``show`` take frames. */
export class ReviewPanel {
  constructor(send) {
    this.send = send;
    this.review = null;
    this.page = 0;
    this.seq = null;
    $("review-prev").onclick = () => this.go(this.page - 1);
    $("review-next").onclick = () => this.go(this.page + 1);
    $("review-close").onclick = () => this.close();
  }

  /** Ask for the review of ``game`` (request number ``seq``): the panel opens on its progress. */
  ask(game, seq) {
    this.seq = seq;
    this.review = null;
    $("review").hidden = false;
    const bar = $("review-progress");
    bar.hidden = false;
    bar.value = 0;
    bar.max = 1;
    $("review-body").replaceChildren(line(t("reviewing")));
    $("review-chart").hidden = true;
    $("review-prev").hidden = true;
    $("review-next").hidden = true;
    this.send({ t: "review", seq, game });
  }

  progress(frame) {
    if (frame.seq !== this.seq) return;
    const bar = $("review-progress");
    bar.max = Math.max(frame.total, 1);
    bar.value = frame.done;
  }

  show(frame) {
    if (frame.seq !== this.seq) return;
    this.review = frame;
    $("review-progress").hidden = true;
    this.go(0);
  }

  /** A refusal of the request: the panel closes (the page shows the reason). */
  refused(seq) {
    if (seq === this.seq) this.close();
  }

  go(page) {
    const review = this.review;
    if (!review) return;
    const pages = review.pages.length;
    this.page = Math.min(Math.max(page, 0), pages);
    const body = $("review-body");
    const chart = $("review-chart");
    if (this.page === 0) {
      body.replaceChildren(...review.summary.map((text, i) => line(text, i === 0 ? "review-head" : "")));
      if (review.chart) {
        chart.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(review.chart);
        chart.alt = t("chart_alt");
        chart.hidden = false;
      } else {
        chart.hidden = true;
      }
    } else {
      const shown = review.pages[this.page - 1];
      const lines = shown.lines.map((text, i) => line(text, i === 0 ? `review-head review-${shown.label}` : ""));
      // the heading, the table then with the two moves, then the words and every choice
      const felt = shown.felt ? feltNode(shown.felt) : [];
      body.replaceChildren(lines[0], ...felt, ...lines.slice(1));
      chart.hidden = true;
    }
    $("review-prev").hidden = false;
    $("review-next").hidden = false;
    $("review-prev").disabled = this.page === 0;
    $("review-next").disabled = this.page >= pages;
  }

  close() {
    this.seq = null;
    $("review").hidden = true;
  }
}
