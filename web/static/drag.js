// Dragging a card with a mouse, a finger or a pen (Pointer Events): the drop decides what the
// card does. On an uncovered attack card: beat that card. Anywhere else on the table: attack,
// add, transfer or show a trump to transfer (a defender's card with nothing else to do there
// beats what it can).
// Elsewhere: nothing. A card that cannot do what its drop asks goes back to the hand, and the
// hint says why (the hand's refusal: with hints off the card shakes).

import { t } from "./strings.js";

const THRESHOLD = 8; // pixels a pointer moves before a press becomes a drag

export class Dragger {
  constructor(hand) {
    this.hand = hand;
    this.drag = null;
    this.droppedAt = 0;
  }

  /** Whether a drag ended just now (the click that follows a drop is not a tap). */
  justDropped() {
    return Date.now() - this.droppedAt < 400;
  }

  attach(button, card) {
    button.addEventListener("pointerdown", (event) => this.down(event, button, card));
    button.addEventListener("pointermove", (event) => this.move(event));
    button.addEventListener("pointerup", (event) => this.up(event));
    button.addEventListener("pointercancel", () => this.cancel());
    button.addEventListener("lostpointercapture", () => this.cancel());
  }

  down(event, button, card) {
    if (event.button !== 0 || this.drag) return;
    if (!this.hand.info(card)) return;
    this.drag = { button, card, id: event.pointerId, x0: event.clientX, y0: event.clientY, ghost: null, over: null };
    try {
      button.setPointerCapture(event.pointerId);
    } catch {
      // the pointer is already gone
    }
  }

  move(event) {
    const d = this.drag;
    if (!d || event.pointerId !== d.id) return;
    if (!d.ghost) {
      if (Math.hypot(event.clientX - d.x0, event.clientY - d.y0) < THRESHOLD) return;
      this.begin(d);
    }
    event.preventDefault();
    d.ghost.style.transform = `translate(${event.clientX - d.dx}px, ${event.clientY - d.dy}px) rotate(4deg)`;
    const target = this.targetAt(event.clientX, event.clientY);
    if (target !== d.over) {
      d.over?.classList.remove("drop-over");
      target?.classList.add("drop-over");
      d.over = target;
    }
  }

  begin(d) {
    const rect = d.button.getBoundingClientRect();
    d.dx = d.x0 - rect.left;
    d.dy = d.y0 - rect.top;
    const ghost = d.button.cloneNode(true);
    ghost.removeAttribute("aria-label");
    ghost.setAttribute("aria-hidden", "true");
    ghost.className = "card drag-ghost";
    ghost.style.width = `${d.button.offsetWidth}px`;
    ghost.style.height = `${d.button.offsetHeight}px`;
    document.body.append(ghost);
    d.ghost = ghost;
    d.button.classList.add("dragging");
    document.body.classList.add("is-dragging");
    // Show where the card may go.
    for (const choice of this.hand.choicesFor(d.card)) {
      if (choice.kind === "defend") {
        document.querySelector(`[data-attack="${CSS.escape(choice.cards[0])}"]`)?.classList.add("drop-ok");
      } else {
        document.getElementById("battle").classList.add("drop-ok");
      }
    }
  }

  /** The drop target under a point: an attack card to beat, or the table. */
  targetAt(x, y) {
    const under = document.elementFromPoint(x, y);
    return under ? under.closest("[data-drop]") : null;
  }

  up(event) {
    const d = this.drag;
    if (!d || event.pointerId !== d.id) return;
    if (!d.ghost) {
      this.drag = null; // a tap: the click handler plays it
      return;
    }
    const target = this.targetAt(event.clientX, event.clientY);
    this.end();
    this.droppedAt = Date.now();
    if (!target) return;
    const { card, button } = d;
    const info = this.hand.info(card);
    if (!info || this.hand.choicesFor(card).length === 0) {
      this.hand.refuse(card, button, info?.reason); // it cannot be played now: the reason
      return;
    }
    let choices;
    if (target.dataset.drop === "attack") {
      const attack = target.dataset.attack;
      choices = this.hand.choicesFor(card, (a) => a.kind === "defend" && a.cards[0] === attack);
      if (choices.length === 0) {
        const transfers = this.hand.choicesFor(card, (a) => a.kind === "transfer" || a.kind === "show");
        const why = transfers.length ? t("transfer_beside", { card, attack }) : t("cannot_beat", { card, attack });
        this.hand.refuse(card, button, why);
        return;
      }
    } else {
      choices = this.hand.choicesFor(card, (a) => ["attack", "transfer", "show"].includes(a.kind));
      // A defender who drops near the attacks rather than on one: the card beats what it can.
      if (choices.length === 0) choices = this.hand.choicesFor(card, (a) => a.kind === "defend");
    }
    this.hand.decide(card, choices);
  }

  cancel() {
    if (!this.drag) return;
    if (this.drag.ghost) this.droppedAt = Date.now();
    this.end();
  }

  end() {
    const d = this.drag;
    this.drag = null;
    if (!d) return;
    d.ghost?.remove();
    d.over?.classList.remove("drop-over");
    d.button.classList.remove("dragging");
    document.body.classList.remove("is-dragging");
    for (const node of document.querySelectorAll(".drop-ok")) node.classList.remove("drop-ok");
  }
}
