// Inside Discord (an Activity): loaded only when Discord's frame_id and instance_id are in
// the address. The vendored Embedded App SDK (vendor/, MIT) asks Discord to authorize the
// player; our server trades the code for a table token (POST /api/activity/session).

import { DiscordSDK } from "./vendor/discord-embedded-app-sdk.js";

async function clientId() {
  const answer = await fetch("/api/activity/config", { credentials: "same-origin" });
  if (!answer.ok) throw new Error(`Activity not configured (${answer.status})`);
  const config = await answer.json();
  return String(config.client_id);
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
