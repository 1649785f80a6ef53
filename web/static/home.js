// The home page: create a room with its rules, seats, turn timeout and table options (pack,
// showing a trump, teams), then go to it. A refused combination shows the server's sentence.
// Protocol: docs/WEB.md, "Rooms".

import { keepRoomToken, lang, post, showError } from "./rooms_common.js";
import { setStrings, t } from "./strings.js";

const $ = (id) => document.getElementById(id);

function option(select, value, text) {
  const el = document.createElement("option");
  el.value = value;
  el.textContent = text;
  select.append(el);
}

function optionText(name, value) {
  if (value === true) return t("on");
  if (value === false) return t("off");
  if (value === "neighbours") return t("neighbours");
  if (value === "all") return t("all");
  if (name === "deck") return t("deck_cards", { n: value });
  if (name === "teams") return t(`teams_${value}`);
  return String(value);
}

// The options chosen from a list (empty: the rules' own value).
const CHOSEN = ["transfer", "throw_in", "first_round_limit", "deck", "show_trump", "teams"];
// A team game's table size: the teams' seats.
const TEAM_SEATS = { "2x2": 4, "3x3": 6 };

/** The options a room may have (and the page's words, in the browser's language). */
async function setup() {
  const response = await fetch(`/api/rooms/setup?lang=${encodeURIComponent(lang())}`);
  const found = await response.json();
  setStrings(found.strings, found.lang);
  return found;
}

async function main() {
  const found = await setup();
  for (const profile of found.profiles) option($("rules"), profile, profile);
  for (let n = found.seats.min; n <= found.seats.max; n += 1) option($("seats"), n, String(n));
  $("seats").value = String(found.seats.default);
  for (const name of CHOSEN) {
    option($(name), "", t("profile_default"));
    for (const value of found.options[name] || []) {
      option($(name), JSON.stringify(value), optionText(name, value));
    }
  }
  // Teams fix the table's size: choosing them sets the seats to match.
  $("teams").addEventListener("change", () => {
    const seats = TEAM_SEATS[$("teams").value ? JSON.parse($("teams").value) : "none"];
    if (seats) $("seats").value = String(seats);
  });
  const timeout = $("turn_timeout");
  timeout.min = found.turn_timeout.min;
  timeout.max = found.turn_timeout.max;
  timeout.value = found.turn_timeout.default;
  $("create").addEventListener("submit", async (event) => {
    event.preventDefault();
    showError($("error"), "");
    const options = {
      rules: $("rules").value,
      seats: Number($("seats").value),
      turn_timeout: Number(timeout.value),
    };
    for (const name of CHOSEN) {
      if ($(name).value) options[name] = JSON.parse($(name).value);
    }
    $("create-button").disabled = true;
    try {
      const room = await post("/api/rooms", { name: $("name").value, lang: lang(), options });
      keepRoomToken(room.room, room.token);
      location.assign(`/room#${room.room}`);
    } catch (error) {
      showError($("error"), error.message);
      $("create-button").disabled = false;
    }
  });
}

main().catch((error) => showError($("error"), String(error.message || error)));
