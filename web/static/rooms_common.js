// Shared by the home and room pages: the room's token in the browser, the API's JSON calls,
// and the error line. Every text goes in with textContent, never as HTML.

import { load, save } from "./storage.js";

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

export function showError(el, text) {
  el.textContent = text || "";
  el.hidden = !text;
}
