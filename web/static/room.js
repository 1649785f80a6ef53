// A room's page: the invite link, the name form, the live lobby (pushed over /ws/room), the
// game (the web table in a frame), then the standings. Protocol: docs/WEB.md, "Rooms".

import { forgetRoomToken, keepRoomToken, lang, post, roomToken, showError } from "./rooms_common.js";
import { PageSocket } from "./socket.js";
import { setStrings, t } from "./strings.js";

const $ = (id) => document.getElementById(id);

const slug = location.hash.replace(/^#/, "");
let token = roomToken(slug);
let seq = 0;
let room = null;
let tableKey = null;
let pendingGame = null;
let levels = [];

const socket = new PageSocket("/ws/room", {
  hello: () => (token ? { t: "hello", token, lang: lang() } : null),
  onFrame,
  onState: (what, detail) => {
    if (what === "reconnecting") notice(t("reconnecting"));
    else if (what === "closed") closedForGood(detail);
  },
});

/** The socket is closed for good: say why (the server's reason, else the page's words), and
 * show what is left to do (a refused token: sit down again; a closed room: a new room). */
function closedForGood({ code, reason }) {
  if (code === 4001) {
    forgetToken();
    showJoin(); // the guest's token is refused: sit down again
    showError($("error"), reason);
  } else if (code === 4004 || code === 4010) {
    renderOver(reason || t("closed"));
  } else {
    const tooBig = code === 1009 || code === 4009; // only a hello with a bad token is that big
    showError($("error"), reason || (tooBig ? t("bad_invite") : t("closed")));
  }
}

function send(frame) {
  seq += 1;
  socket.send({ ...frame, seq });
}

/** The guest has no seat here any more (or never had): sit down again with a name. */
function forgetToken() {
  forgetRoomToken(slug);
  token = null;
  socket.stop();
}

function notice(text) {
  const el = document.createElement("p");
  el.className = "notice";
  el.textContent = text;
  $("notices").append(el);
  setTimeout(() => el.remove(), 6000);
}

function show(section) {
  for (const id of ["join", "lobby", "over"]) $(id).hidden = id !== section;
  const playing = section === "game";
  $("game").hidden = !playing;
  $("sheet").hidden = playing;
}

function inviteUrl() {
  return `${location.origin}/room#${slug}`;
}

function seatItem(seat, canRemove) {
  const li = document.createElement("li");
  li.className = "seat";
  if (seat.you) li.classList.add("you");
  const name = document.createElement("span");
  name.className = "seat-name";
  name.textContent = seat.name; // a guest's name is text, never markup
  li.append(name);
  const tags = [];
  if (seat.host) tags.push(t("host"));
  if (seat.you) tags.push(t("you"));
  if (tags.length) {
    const tag = document.createElement("span");
    tag.className = "seat-tag";
    tag.textContent = tags.join(" · ");
    li.append(tag);
  }
  if (canRemove && !seat.you) {
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "quiet remove";
    remove.textContent = t("remove");
    remove.addEventListener("click", () => send({ t: "remove", seat: seat.seat }));
    li.append(remove);
  }
  return li;
}

function emptySeat() {
  const li = document.createElement("li");
  li.className = "seat empty";
  li.textContent = t("empty_seat");
  return li;
}

/** A team lobby: each team's players and free places, and Switch team for a seated player. */
function renderTeams(list) {
  list.classList.add("teams");
  for (const team of room.teams) {
    const item = document.createElement("li");
    item.className = `team team-${team.team}`;
    const members = room.seats.filter((seat) => seat.team === team.team);
    const head = document.createElement("h3");
    head.className = "team-name";
    head.textContent = `${team.label} (${members.length}/${room.team_size})`;
    const seats = document.createElement("ol");
    seats.className = "team-seats";
    seats.setAttribute("aria-label", team.label);
    for (const seat of members) seats.append(seatItem(seat, room.host));
    for (let i = members.length; i < room.team_size; i += 1) seats.append(emptySeat());
    item.append(head, seats);
    const mine = members.some((seat) => seat.you);
    if (room.seat !== null && !mine) {
      const move = document.createElement("button");
      move.type = "button";
      move.className = "switch-team";
      move.textContent = t("switch_team");
      move.disabled = members.length >= room.team_size;
      move.addEventListener("click", () => send({ t: "switch_team", team: team.team }));
      item.append(move);
    }
    list.append(item);
  }
}

function renderLobby() {
  show("lobby");
  $("rules-text").textContent = room.rules_text || "";
  $("invite").hidden = false;
  $("invite-link").value = inviteUrl();
  const list = $("seats");
  list.replaceChildren();
  if (room.teams) renderTeams(list);
  else {
    list.classList.remove("teams");
    for (const seat of room.seats) list.append(seatItem(seat, room.host));
    for (let i = room.seats.length; i < (room.max_seats || 0); i += 1) list.append(emptySeat());
  }
  $("host-tools").hidden = !room.host;
  const full = room.seats.length >= (room.max_seats || 0);
  $("add-ai").disabled = full;
  $("level").disabled = full;
  $("start").disabled = !room.can_start;
  let hint = "";
  if (!room.host) hint = t("waiting_host");
  else if (!room.can_start) hint = room.teams ? t("need_teams") : t("need_players");
  $("lobby-hint").textContent = hint;
  if (room.seat === null) {
    // removed from the lobby by the host: sit down again with a name
    forgetToken();
    showJoin();
  }
}

function renderGame() {
  show("game");
  const key = `${room.series_id}:${room.seat === null ? "w" : room.seat}`;
  if (key !== tableKey && room.table_token) {
    tableKey = key;
    $("table").src = `/table#t=${encodeURIComponent(room.table_token)}`;
  }
  const seated = room.seat !== null;
  $("leave-game").hidden = !seated || room.phase !== "playing";
  $("stop").hidden = !seated || room.phase !== "playing";
  $("keep").hidden = !seated || !room.stop_vote;
  $("vote").textContent = room.stop_vote ? `${t("stop")}: ${room.stop_vote[0]}/${room.stop_vote[1]}` : "";
}

function renderOver(text) {
  show("over");
  $("over-title").textContent = text;
  const table = $("standings");
  table.replaceChildren();
  if (room && room.standings) {
    const head = document.createElement("tr");
    for (const label of ["", t("losses")]) {
      const th = document.createElement("th");
      th.textContent = label;
      head.append(th);
    }
    table.append(head);
    for (const entry of room.standings) {
      const tr = document.createElement("tr");
      for (const value of [entry.name, String(entry.losses)]) {
        const td = document.createElement("td");
        td.textContent = value;
        tr.append(td);
      }
      table.append(tr);
    }
  }
}

function render() {
  if (room.phase === "lobby") renderLobby();
  else if (room.phase === "playing" || room.phase === "finished") renderGame();
  else renderOver(room.standings ? t("series_over") : t("closed"));
}

function onFrame(frame) {
  switch (frame.t) {
    case "welcome":
      setStrings(frame.strings, frame.lang);
      levels = frame.levels || [];
      $("level").replaceChildren();
      for (const level of levels) {
        const el = document.createElement("option");
        el.value = level;
        el.textContent = t(`level_${level}`);
        $("level").append(el);
      }
      $("level").value = levels.includes("casual") ? "casual" : levels[0];
      break;
    case "room":
      room = frame.room;
      showError($("error"), "");
      render();
      break;
    case "result":
      if (frame.confirm === "forfeit") {
        pendingGame = frame.game;
        $("confirm").hidden = false;
      } else if (!frame.ok) {
        notice(frame.reason || "");
      }
      break;
    case "notice":
      if (!room || room.phase === "lobby") notice(frame.text);
      break;
    case "error":
      showError($("error"), frame.reason); // the close that follows says what comes next
      break;
    default:
      break;
  }
}

function showJoin() {
  show("join");
  $("name").focus();
}

async function main() {
  $("join").addEventListener("submit", async (event) => {
    event.preventDefault();
    showError($("error"), "");
    $("join-button").disabled = true;
    try {
      const answer = await post("/api/rooms/join", { room: slug, name: $("name").value, lang: lang() });
      token = answer.token;
      keepRoomToken(slug, token);
      socket.restart(); // a new hello, with the new token
    } catch (error) {
      showError($("error"), error.message);
    } finally {
      $("join-button").disabled = false;
    }
  });
  $("copy").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(inviteUrl());
    } catch {
      $("invite-link").select();
      document.execCommand("copy");
    }
    $("copy").textContent = t("copied");
    setTimeout(() => { $("copy").textContent = t("copy"); }, 2000);
  });
  if (navigator.share && matchMedia("(pointer: coarse)").matches) {
    $("share").hidden = false;
    $("share").addEventListener("click", () => {
      navigator.share({ title: document.title, url: inviteUrl() }).catch(() => {});
    });
  }
  $("add-ai").addEventListener("click", () => send({ t: "add_ai", level: $("level").value }));
  $("start").addEventListener("click", () => send({ t: "start" }));
  $("leave-lobby").addEventListener("click", () => {
    send({ t: "leave" });
    forgetToken();
    room = null;
    renderOver(t("left"));
  });
  $("leave-game").addEventListener("click", () => send({ t: "leave" }));
  $("confirm-yes").addEventListener("click", () => {
    $("confirm").hidden = true;
    send({ t: "forfeit", game: pendingGame });
  });
  $("confirm-no").addEventListener("click", () => { $("confirm").hidden = true; });
  $("stop").addEventListener("click", () => send({ t: "stop" }));
  $("keep").addEventListener("click", () => send({ t: "keep_playing" }));
  if (!/^[A-Za-z0-9_-]{22}$/.test(slug)) {
    renderOver(t("bad_invite")); // a cut or mangled invite link
    return;
  }
  if (token) socket.start();
  else showJoin();
}

main().catch((error) => showError($("error"), String(error.message || error)));
