// A room's page: the invite link, the name form, the live lobby (pushed over /ws/room), the
// game (the web table in a frame), then the standings. Protocol: docs/WEB.md, "Rooms".

import {
  forgetRoomToken, keepRoomToken, lang, post, roomToken, s, setup, showError, useStrings,
} from "./rooms_common.js";

const $ = (id) => document.getElementById(id);
// Close codes after which reconnecting cannot help (bad token, bad origin, room closed, idle,
// too many pages).
const FATAL = new Set([4001, 4003, 4004, 4008, 4009, 4010, 4029]);

const slug = location.hash.replace(/^#/, "");
let token = roomToken(slug);
let socket = null;
let seq = 0;
let attempt = 0;
let room = null;
let tableKey = null;
let pendingGame = null;
let fatal = false;
let levels = [];

function send(frame) {
  if (!socket || socket.readyState !== WebSocket.OPEN) return;
  seq += 1;
  socket.send(JSON.stringify({ ...frame, seq }));
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
  if (seat.host) tags.push(s("host", "host"));
  if (seat.you) tags.push(s("you", "you"));
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
    remove.textContent = s("remove", "Remove");
    remove.addEventListener("click", () => send({ t: "remove", seat: seat.seat }));
    li.append(remove);
  }
  return li;
}

function renderLobby() {
  show("lobby");
  $("rules-text").textContent = room.rules_text || "";
  $("invite").hidden = false;
  $("invite-link").value = inviteUrl();
  const list = $("seats");
  list.replaceChildren();
  for (const seat of room.seats) list.append(seatItem(seat, room.host));
  for (let i = room.seats.length; i < (room.max_seats || 0); i += 1) {
    const li = document.createElement("li");
    li.className = "seat empty";
    li.textContent = s("empty_seat", "free seat");
    list.append(li);
  }
  $("host-tools").hidden = !room.host;
  const full = room.seats.length >= (room.max_seats || 0);
  $("add-ai").disabled = full;
  $("level").disabled = full;
  $("start").disabled = !room.can_start;
  let hint = "";
  if (!room.host) hint = s("waiting_host", "Waiting for the host to start.");
  else if (!room.can_start) hint = s("need_players", "At least two seats are needed to start.");
  $("lobby-hint").textContent = hint;
  if (room.seat === null) {
    // removed from the lobby by the host: sit down again with a name
    forgetRoomToken(slug);
    token = null;
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
  $("vote").textContent = room.stop_vote ? `${s("stop", "Vote to stop")}: ${room.stop_vote[0]}/${room.stop_vote[1]}` : "";
}

function renderOver(text) {
  show("over");
  $("over-title").textContent = text;
  const table = $("standings");
  table.replaceChildren();
  if (room && room.standings) {
    const head = document.createElement("tr");
    for (const label of ["", s("losses", "Losses")]) {
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
  else renderOver(room.standings ? s("series_over", "The series is over.") : s("closed", "This room is closed."));
}

function onFrame(frame) {
  switch (frame.t) {
    case "welcome":
      frame.strings.__lang = frame.lang;
      useStrings(frame.strings);
      levels = frame.levels || [];
      $("level").replaceChildren();
      for (const level of levels) {
        const el = document.createElement("option");
        el.value = level;
        el.textContent = s(`level_${level}`, level);
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
      showError($("error"), frame.reason);
      if (frame.code === 4001) {
        forgetRoomToken(slug);
        token = null;
        showJoin();
      } else if (frame.code === 4004 || frame.code === 4010) {
        renderOver(frame.reason);
      }
      if (FATAL.has(frame.code)) fatal = true;
      break;
    default:
      break;
  }
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${scheme}//${location.host}/ws/room`);
  socket.addEventListener("open", () => {
    attempt = 0;
    socket.send(JSON.stringify({ t: "hello", token, lang: lang() }));
  });
  socket.addEventListener("message", (event) => {
    try {
      onFrame(JSON.parse(event.data));
    } catch (error) {
      console.error(error);
    }
  });
  socket.addEventListener("close", (event) => {
    socket = null;
    if (fatal || FATAL.has(event.code) || !token) return;
    attempt += 1;
    notice(s("reconnecting", "Connection lost: reconnecting…"));
    setTimeout(connect, Math.min(10000, 500 * 2 ** attempt));
  });
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
      fatal = false;
      if (!socket) connect();
      else socket.send(JSON.stringify({ t: "hello", token, lang: lang() }));
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
    $("copy").textContent = s("copied", "Copied");
    setTimeout(() => { $("copy").textContent = s("copy", "Copy"); }, 2000);
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
    forgetRoomToken(slug);
    token = null;
    fatal = true;
    if (socket) socket.close();
    room = null;
    renderOver(s("left", "You left this room."));
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
    await setup();
    renderOver(s("closed", "This room is closed."));
    return;
  }
  if (token) {
    connect();
  } else {
    await setup();
    showJoin();
  }
}

main().catch((error) => showError($("error"), String(error.message || error)));
