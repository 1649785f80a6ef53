// The page's words (every page: the table, the home page, a room's page). The server writes
// them into the page in the reader's language: the elements marked data-s (their text) and
// data-s-aria (their aria-label), and all of the page's strings as JSON in #page-strings, which
// t() reads. When the server learns the reader's language later (a table token's, in the
// welcome frame) setStrings() re-words the page. Every text goes in as text, never as HTML.

let strings = embedded();

function embedded() {
  const node = document.getElementById("page-strings");
  try {
    const found = JSON.parse(node ? node.textContent : "{}");
    return found && typeof found === "object" ? found : {};
  } catch {
    return {};
  }
}

/** The text of ``key`` with ``{name}`` placeholders filled from ``params``. */
export function t(key, params = {}) {
  const text = typeof strings[key] === "string" ? strings[key] : key;
  return text.replace(/\{(\w+)\}/g, (all, name) => (name in params ? String(params[name]) : all));
}

/** Takes the server's strings (``next``, in ``lang``) and re-words the page with them. */
export function setStrings(next, lang) {
  if (next && typeof next === "object") strings = { ...strings, ...next };
  if (lang) document.documentElement.lang = lang;
  for (const node of document.querySelectorAll("[data-s]")) node.textContent = t(node.dataset.s);
  for (const node of document.querySelectorAll("[data-s-aria]")) {
    node.setAttribute("aria-label", t(node.dataset.sAria));
  }
}
