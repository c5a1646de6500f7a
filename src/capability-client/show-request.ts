// `baton op get <cr_...>`: a capability request with its e-mail delivery state; failed deliveries are queued
// again for the recipients that did not get them (the ones that succeeded are not sent twice).
import type { Log } from "../log-level.js";
import { requireOpsSettings } from "../transport/settings.js";
import type { RedeliverResponse } from "../transport/wire.js";
import { createCapabilityClient } from "./ops-client.js";

export async function showCapabilityRequest(input: {
  id: string;
  env: NodeJS.ProcessEnv;
  log?: Log;
}): Promise<RedeliverResponse> {
  const client = createCapabilityClient(requireOpsSettings(input.env), input.log ? { log: input.log } : {});
  try {
    const view = await client.view(input.id);
    const failed = view.notifications.some((n) => n.deliveries.some((d) => d.state === "failed"));
    return failed ? await client.redeliver(input.id) : { ...view, redelivered: [] };
  } finally {
    client.close();
  }
}
