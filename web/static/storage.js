// The browser's storage, when the page may use it: inside Discord the page is a third-party
// frame, where reading localStorage or sessionStorage can throw (storage denied). Then the
// page keeps its settings and token in memory for this visit only.

const memory = { local: new Map(), session: new Map() };

function area(kind) {
  try {
    const store = kind === "local" ? window.localStorage : window.sessionStorage;
    store.getItem("durak.probe");
    return store;
  } catch {
    return null;
  }
}

/** The value kept under ``key`` ("local": across visits, "session": this tab), or null. */
export function load(kind, key) {
  const store = area(kind);
  try {
    if (store) return store.getItem(key);
  } catch {
    // fall through to memory
  }
  return memory[kind].get(key) ?? null;
}

/** Keeps ``value`` under ``key``. */
export function save(kind, key, value) {
  memory[kind].set(key, value);
  const store = area(kind);
  try {
    store?.setItem(key, value);
  } catch {
    // full or denied: memory keeps it
  }
}
