// POST /webhooks/codehost and POST /webhooks/tracker (public listener): the platforms' signed deliveries. The body
// is bounded before it is read, the signature checked over its exact bytes, and a verified delivery committed to
// the queue before the answer (202; 200 `duplicate` for a delivery id already queued). The work runs afterwards
// from the queue (worker.ts). Without the platform's webhook secret the route answers 404, as if absent.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { AUDIT_EVENTS, logAuditEvent } from "../../../audit/events.js";
import { HttpError, invalidRequest, notFound } from "../http/http-error.js";
import { readBounded } from "../http/json-body.js";
import { nestsDeeperThan } from "../http/json-depth.js";
import { createSurface, type ServerEnv } from "../http/surface.js";
import { errorResponses, jsonContent } from "../openapi/schemas.js";
import { enqueueDelivery } from "./deliveries.js";
import type { WebhooksDeps } from "./deps.js";
import { type Verdict, verifyCodehostSignature, verifyTrackerSignature } from "./verify.js";
import {
  CODEHOST_HEADERS,
  REJECTIONS,
  type Rejection,
  TRACKER_HEADERS,
  WEBHOOK_ERRORS,
  WEBHOOK_LIMITS,
  WEBHOOK_PATHS,
  type WebhookSource,
} from "./wire.js";

const Accepted = z.object({ ok: z.literal(true), duplicate: z.literal(true).optional() });

const SCHEMES = {
  codehost: { headers: CODEHOST_HEADERS, verify: verifyCodehostSignature, platform: "code host" },
  tracker: { headers: TRACKER_HEADERS, verify: verifyTrackerSignature, platform: "tracker" },
} as const;

const REASONS: Record<Rejection, string> = {
  missing_signature: "the delivery carries no signature; set the webhook's secret on the platform",
  bad_signature: "the signature does not match the body; the webhook's secret differs from the service's",
  stale_timestamp: "webhookTimestamp is more than 60 s from the service's clock; check both clocks",
  missing_headers: "the delivery lacks its event or delivery id header",
  not_json: "the delivery's body is not a JSON object",
  too_deep: `the delivery's JSON nests objects and arrays more than ${WEBHOOK_LIMITS.jsonDepth} deep`,
};

/** The bytes of `source`'s delivery, verified, as JSON; or the refusal (logged as `webhook.rejected`). */
async function readVerified(
  c: Context<ServerEnv>,
  deps: WebhooksDeps,
  source: WebhookSource,
  secret: string,
) {
  const scheme = SCHEMES[source];
  const raw = await readBounded(c.req.raw, "the webhook delivery", WEBHOOK_LIMITS.bodyBytes);
  const deliveryId = c.req.header(scheme.headers.delivery)?.slice(0, WEBHOOK_LIMITS.headerChars);
  const reject = (why: Rejection, status = 401) => {
    logAuditEvent(deps.logger, AUDIT_EVENTS.webhookRejected, {
      requestId: c.get("requestId"),
      source,
      delivery: deliveryId ?? null,
      why,
    });
    return status === 401
      ? new HttpError(401, WEBHOOK_ERRORS.invalidSignature, REASONS[why])
      : invalidRequest(REASONS[why]);
  };
  const signed: Verdict & { fresh?: Verdict } = await scheme.verify(
    secret,
    raw,
    c.req.header(scheme.headers.signature),
  );
  if (!signed.ok) throw reject(signed.why);
  const event = c.req.header(scheme.headers.event);
  if (!deliveryId || !event || event.length > WEBHOOK_LIMITS.headerChars)
    throw reject(REJECTIONS.missingHeaders, 400);
  // Bounded before parsing: a deeper body parses, then overflows the stack of whatever walks it.
  if (nestsDeeperThan(raw, WEBHOOK_LIMITS.jsonDepth)) throw reject(REJECTIONS.tooDeep, 400);
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(raw).toString("utf8"));
  } catch {
    throw reject(REJECTIONS.notJson, 400);
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload))
    throw reject(REJECTIONS.notJson, 400);
  // Linear's: the SDK's verdict on the signed webhookTimestamp, applied after the body's own checks as before.
  if (signed.fresh && !signed.fresh.ok) throw reject(signed.fresh.why);
  return { deliveryId, event, payload: JSON.stringify(payload) };
}

export function createWebhooksApp(deps: WebhooksDeps) {
  const app = createSurface();
  for (const source of ["codehost", "tracker"] as const) {
    const { headers, platform } = SCHEMES[source];
    app.openapi(
      createRoute({
        method: "post",
        path: WEBHOOK_PATHS[source],
        summary: `webhook receiver for the ${platform}; verifies the ${headers.signature} signature (HMAC-SHA256 of the raw body) with the configured signing secret`,
        responses: {
          200: jsonContent(Accepted, "a delivery id already received: nothing is done twice"),
          202: jsonContent(Accepted, "verified and queued; the work runs after the answer"),
          ...errorResponses({
            400: `invalid_request: the event or delivery header is missing, the body is not JSON, or it nests over ${WEBHOOK_LIMITS.jsonDepth} deep`,
            401: "invalid_signature: the signature is missing or wrong, or (tracker) the timestamp is stale",
            404: "not_found: no webhook secret is configured for this platform",
            413: "payload_too_large: the body is over 1 MiB",
          }),
        },
      }),
      async (c) => {
        const secret = deps.integrations[source].webhookSecret;
        if (!secret) throw notFound(`no ${platform} webhook is configured on this service`);
        const delivery = await readVerified(c, deps, source, secret);
        const { duplicate } = await deps.tasks.context.commit(() =>
          enqueueDelivery(deps.db, { source, ...delivery }, deps.now().getTime()),
        );
        if (duplicate) return c.json({ ok: true as const, duplicate: true as const }, 200);
        deps.webhooks?.wake();
        return c.json({ ok: true as const }, 202);
      },
    );
  }
  return app;
}
