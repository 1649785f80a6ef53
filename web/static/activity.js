// Inside Discord (an Activity): loaded only when Discord's frame_id and instance_id are in
// the address. The vendored Embedded App SDK (vendor/, MIT) asks Discord to authorize the
// player; our server trades the code for a table token (POST /api/activity/session).

import { DiscordSDK } from "./vendor/discord-embedded-app-sdk.js";

/** The application's client id: inside Discord the page is served from
 * https://<client id>.discordsays.com, so the address names it. */
export function clientIdFrom(hostname) {
  const match = /^(\d{5,25})\.discordsays\.com$/.exec(hostname);
  return match ? match[1] : null;
}

async function clientId() {
  const id = clientIdFrom(location.hostname);
  if (!id) throw new Error("This page is not running inside a Discord Activity.");
  return id;
}

/** The table token of the Discord user running this Activity, in its channel. */
export async function activityToken() {
  const id = await clientId();
  const sdk = new DiscordSDK(id);
  await sdk.ready();
  const { code } = await sdk.commands.authorize({
    client_id: id,
    response_type: "code",
    state: "",
    prompt: "none",
    scope: ["identify"],
  });
  const answer = await fetch("/api/activity/session", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    credentials: "same-origin",
    body: JSON.stringify({ code, channel_id: sdk.channelId, guild_id: sdk.guildId }),
  });
  if (!answer.ok) throw new Error(`Discord sign-in refused (${answer.status})`);
  const session = await answer.json();
  await sdk.commands.authenticate({ access_token: session.access_token });
  return session.token;
}
