// Shared by the home and room pages: the server's strings, the room's token in the browser,
// and the API's JSON calls. Every text goes in with textContent, never as HTML.

import { load, save } from "./storage.js";

let strings = {};

/** The string ``key`` from the server (its English fallback is in the HTML). */
export function s(key, fallback = "") {
  return strings[key] || fallback;
}

/** Keeps the server's strings and writes them into every ``data-s`` element. */
export function useStrings(found) {
  strings = found || {};
  for (const el of document.querySelectorAll("[data-s]")) {
    const text = strings[el.dataset.s];
    if (text) el.textContent = text;
  }
  document.documentElement.lang = strings.__lang || document.documentElement.lang;
}

export function lang() {
  return navigator.language || "en";
}

/** The guest token kept for the room ``slug`` (across reloads and visits), or null. */
export function roomToken(slug) {
  return load("local", `durak.room.${slug}`);
}

export function keepRoomToken(slug, token) {
  save("local", `durak.room.${slug}`, token);
}

export function forgetRoomToken(slug) {
  try {
    window.localStorage.removeItem(`durak.room.${slug}`);
  } catch {
    // storage denied: nothing was kept
  }
  save("local", `durak.room.${slug}`, "");
}

/** POSTs ``body`` as JSON; the answer's JSON, or throws an Error with the server's reason. */
export async function post(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  let answer = {};
  try {
    answer = await response.json();
  } catch {
    answer = {};
  }
  if (!response.ok) throw new Error(answer.error || `${response.status}`);
  return answer;
}

export async function setup() {
  const response = await fetch(`/api/rooms/setup?lang=${encodeURIComponent(lang())}`);
  const found = await response.json();
  found.strings.__lang = found.lang;
  useStrings(found.strings);
  return found;
}

export function showError(el, text) {
  el.textContent = text || "";
  el.hidden = !text;
}
