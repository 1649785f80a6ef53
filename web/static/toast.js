// Short messages over the table: toasts (a refused move, a hint, a notice) fade by
// themselves; the banner (connecting, reconnecting, a closed table) stays until replaced.

const TOAST_MS = 4500;
const MAX_TOASTS = 3;

/** Shows ``text`` for a few seconds; ``kind`` styles it (error, stale, hint, notice). */
export function toast(text, kind = "notice") {
  if (!text) return null;
  const box = document.getElementById("toasts");
  const item = document.createElement("div");
  item.className = `toast toast-${kind}`;
  item.setAttribute("role", kind === "notice" ? "status" : "alert");
  item.textContent = text;
  item.addEventListener("click", () => item.remove());
  box.appendChild(item);
  while (box.children.length > MAX_TOASTS) box.firstElementChild.remove();
  setTimeout(() => item.remove(), TOAST_MS);
  return item;
}

/** Shows a lasting line at the top (``null`` hides it). */
export function banner(text, kind = "wait") {
  const node = document.getElementById("banner");
  if (!text) {
    node.hidden = true;
    node.textContent = "";
    return;
  }
  node.className = `banner banner-${kind}`;
  node.textContent = text;
  node.hidden = false;
}
