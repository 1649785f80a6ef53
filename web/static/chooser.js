// The small chooser shown when a card could do several things (attack alone or with its
// pair, beat one of several attacks, transfer): one button per legal choice, Esc or Cancel
// closes it and gives the focus back to the card.

import { t } from "./strings.js";

const overlay = () => document.getElementById("chooser");
let returnFocus = null;
let onKey = null;

/** Closes the chooser (if open) and puts the focus back where it was. */
export function closeChooser() {
  const box = overlay();
  if (box.hidden) return;
  box.hidden = true;
  document.removeEventListener("keydown", onKey, true);
  if (returnFocus && document.contains(returnFocus)) returnFocus.focus();
  returnFocus = null;
}

/** Asks which of ``choices`` (legal actions with a ``label``) to play about ``card``. */
export function openChooser(card, choices, pick) {
  const box = overlay();
  returnFocus = document.activeElement;
  document.getElementById("chooser-title").textContent = t("choose_action", { card });
  const list = document.getElementById("chooser-options");
  list.replaceChildren();
  for (const choice of choices) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = `action choice choice-${choice.kind}`;
    button.textContent = choice.label || choice.text;
    button.addEventListener("click", () => {
      closeChooser();
      pick(choice.text);
    });
    list.append(button);
  }
  const cancel = document.getElementById("chooser-cancel");
  cancel.textContent = t("cancel");
  cancel.onclick = closeChooser;
  box.onclick = (event) => {
    if (event.target === box) closeChooser();
  };
  onKey = (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      closeChooser();
    }
  };
  document.addEventListener("keydown", onKey, true);
  box.hidden = false;
  list.firstElementChild?.focus();
}

export function chooserOpen() {
  return !overlay().hidden;
}
