// Capability-request routes: the sandbox's ops routes (turn token + lease, rollout gate) and the workspace
// routes for members (personal access token; owners/admins to dismiss or supply access).
import {
  CAPABILITY_ROUTE_PATTERNS,
  EvidenceBodySchema,
  HEADERS,
  IdempotencyKeySchema,
  PutSecretBodySchema,
  RecordCapabilityBodySchema,
  WIRE_ERRORS,
} from "../../transport/wire.js";
import { authenticate, type Caller, ROLLOUT_DISABLED_REASON, requireRollout } from "../auth/authenticate.js";
import { createSmtpSender, type DeliveryWorker, startDeliveryWorker } from "../capability/mailer.js";
import { dismissRequest, listRequests, putSecret, redeliver, viewRequest } from "../capability/manage.js";
import { authenticateMember, type Member, requireOwnerOrAdmin } from "../capability/member-auth.js";
import { recordCapabilityRequest, reportEvidence } from "../capability/record.js";
import type { CapabilityRuntime } from "../capability/runtime.js";
import { budgetFor, dashboardBaseFor, matcherFor } from "../capability/settings.js";
import type { ServerDeps } from "../deps.js";
import { HttpError } from "../http/http-error.js";
import { json, readJsonBody } from "../http/json.js";
import type { Route, RouteContext } from "../http/router.js";

function startMail(deps: ServerDeps): Promise<DeliveryWorker | null> {
  const settings = deps.capability;
  if (!settings?.smtpUrl) return Promise.resolve(null);
  return createSmtpSender(settings.smtpUrl, settings.smtpFrom ?? "Baton <baton@localhost>").then((sender) =>
    startDeliveryWorker({ db: deps.db, sender, logger: deps.logger, now: deps.now }),
  );
}

export function capabilityRoutes(deps: ServerDeps): Route[] {
  const mail = startMail(deps);
  mail.catch((error: unknown) =>
    deps.logger.error({ err: String(error) }, "e-mail delivery could not start"),
  );
  deps.onStop?.(async () => {
    await (await mail.catch(() => null))?.stop();
  });
  const rt: CapabilityRuntime = {
    db: deps.db,
    now: deps.now,
    logger: deps.logger,
    matcher: matcherFor(deps.capability),
    matcherBudgetMs: budgetFor(deps.capability),
    dashboardBase: () => dashboardBaseFor(deps.capability),
    kickMail: () => {
      void mail.then((worker) => worker?.kick()).catch(() => {});
    },
  };
  const sandbox = (context: RouteContext): Caller => {
    const who = authenticate(deps.db, context.request.headers, deps.now().getTime());
    requireRollout(who);
    return who;
  };
  const member = (context: RouteContext, gate: boolean): Member => {
    const who = authenticateMember(
      deps.db,
      context.request.headers,
      context.params.workspaceId!,
      deps.now().getTime(),
    );
    if (gate && !who.rolloutEnabled)
      throw new HttpError(403, WIRE_ERRORS.rolloutDisabled, ROLLOUT_DISABLED_REASON);
    return who;
  };
  const P = CAPABILITY_ROUTE_PATTERNS;

  return [
    {
      method: "POST",
      pattern: P.requests,
      handle: async (context) => {
        const who = sandbox(context);
        const rawKey = context.request.headers.get(HEADERS.idempotencyKey);
        const key = rawKey === null ? null : IdempotencyKeySchema.safeParse(rawKey);
        if (key && !key.success) {
          throw new HttpError(
            400,
            WIRE_ERRORS.invalidIdempotencyKey,
            "the Idempotency-Key header must be 1 to 128 printable ASCII characters, no spaces",
          );
        }
        const body = await readJsonBody(context.request, RecordCapabilityBodySchema, "capability request");
        const { status, response } = await recordCapabilityRequest(rt, who, body, key?.data ?? null);
        return json(status, response);
      },
    },
    {
      method: "GET",
      pattern: P.request,
      handle: (context) => json(200, viewRequest(rt, sandbox(context).workspaceId, context.params.id!)),
    },
    {
      method: "POST",
      pattern: P.evidence,
      handle: async (context) => {
        const who = sandbox(context);
        const body = await readJsonBody(context.request, EvidenceBodySchema, "evidence");
        return json(200, reportEvidence(rt, who, context.params.id!, body));
      },
    },
    {
      method: "POST",
      pattern: P.redeliver,
      handle: (context) => json(200, redeliver(rt, sandbox(context).workspaceId, context.params.id!)),
    },
    {
      method: "GET",
      pattern: P.list,
      handle: (context) => {
        member(context, true);
        return json(200, { requests: listRequests(rt, context.params.workspaceId!, context.params.repoId!) });
      },
    },
    {
      method: "POST",
      pattern: P.dismiss,
      handle: (context) => {
        requireOwnerOrAdmin(member(context, true));
        const { workspaceId, repoId, requestId } = context.params;
        return json(200, { request: dismissRequest(rt, workspaceId!, repoId!, requestId!) });
      },
    },
    {
      method: "PUT",
      pattern: P.secret,
      handle: async (context) => {
        requireOwnerOrAdmin(member(context, false));
        const body = await readJsonBody(context.request, PutSecretBodySchema, "secret");
        const { workspaceId, repoId, name } = context.params;
        const result = putSecret(rt, workspaceId!, repoId!, name!, body);
        rt.kickMail();
        return json(result.created ? 201 : 200, result);
      },
    },
  ];
}
