// Inside Discord (an Activity): loaded only when Discord's frame_id and instance_id are in
// the address. The vendored Embedded App SDK (vendor/, MIT) asks Discord to authorize the
// player; our server trades the code for a table token (POST /api/activity/session), after
// asking Discord whether the player is in this Activity instance and may see its channel.
// Every failure is an Error whose message the page shows: the server's reason (in the
// player's language), else the page's own words.

import { DiscordSDK } from "./vendor/discord-embedded-app-sdk.js";
import { t } from "./strings.js";

/** The application's client id: inside Discord the page is served from
 * https://<client id>.discordsays.com, so the address names it. */
export function clientIdFrom(hostname) {
  const match = /^(\d{5,25})\.discordsays\.com$/.exec(hostname);
  return match ? match[1] : null;
}

/** Why the server refused the sign-in: its ``{"error": …}``, else the status in the page's
 * words (a proxy's page, or no body). */
async function refusal(answer) {
  try {
    const body = await answer.json();
    if (body && typeof body.error === "string" && body.error) return body.error;
  } catch {
    // not JSON
  }
  return t("signin_refused", { status: answer.status });
}

/** The table token of the Discord user running this Activity, in its channel. */
export async function activityToken() {
  const id = clientIdFrom(location.hostname);
  if (!id) throw new Error(t("not_in_discord"));
  const sdk = new DiscordSDK(id);
  let code;
  try {
    await sdk.ready();
    ({ code } = await sdk.commands.authorize({
      client_id: id,
      response_type: "code",
      state: "",
      prompt: "none",
      scope: ["identify"],
    }));
  } catch {
    throw new Error(t("signin_failed"));
  }
  const answer = await fetch("/api/activity/session", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    credentials: "same-origin",
    body: JSON.stringify({
      code,
      instance_id: sdk.instanceId,
      channel_id: sdk.channelId,
      guild_id: sdk.guildId,
      lang: navigator.language || "en",
    }),
  });
  if (!answer.ok) throw new Error(await refusal(answer));
  const session = await answer.json();
  await sdk.commands.authenticate({ access_token: session.access_token });
  return session.token;
}
