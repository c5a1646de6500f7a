// The member routes under /workspaces (personal access token `btn_…`): list a repository's capability requests,
// dismiss one, write a repository secret (owners and admins). A caller outside the workspace gets 404, never 403.
import { createRoute, z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { AUDIT_EVENTS, logAuditEvent } from "../../../audit/events.js";
import { WIRE_ERRORS } from "../../../transport/wire.js";
import { ROLLOUT_DISABLED_REASON } from "../../domain/auth/authenticate.js";
import { dismissRequest, listRequests, putSecret } from "../../domain/capability/manage.js";
import { authenticateMember, type Member, requireOwnerOrAdmin } from "../../domain/capability/member-auth.js";
import type { CapabilityRuntime } from "../../domain/capability/runtime.js";
import { mapDomainErrors } from "../http/domain-errors.js";
import { HttpError } from "../http/http-error.js";
import { jsonBody, KiB } from "../http/json-body.js";
import { createSurface, type ServerEnv } from "../http/surface.js";
import { errorResponses, jsonContent, pathParam, Schemas as S, SECURITY } from "../openapi/schemas.js";
import type { MembersDeps } from "./deps.js";
import { MEMBER_DOMAIN_ANSWERS } from "./domain-errors.js";

const ERRORS = {
  400: "invalid_request (the reason names the field and never echoes the value), secret_hosts_mismatch",
  401: "invalid_token",
  403: "rollout_disabled, or forbidden for a member who is not an owner or admin",
  404: "not_found (also for a caller outside the workspace: never 403)",
  409: "request_closed (dismissed or verified)",
  413: "payload_too_large: the body is over the route's limit",
  415: "unsupported_media_type: the body is not application/json",
};
const pick = <K extends keyof typeof ERRORS>(...statuses: K[]) =>
  errorResponses(Object.fromEntries(statuses.map((s) => [s, ERRORS[s]])) as Record<K, string>);
const repoParams = { workspaceId: pathParam(), repoId: pathParam() };

/** A secret value JSON-escaped to 6 bytes a character (`\uXXXX`) still fits, with room for the hosts. */
const SECRET_BODY_LIMIT = 512 * KiB;

type MembersEnv = ServerEnv<{ member: Member }>;

export function createMembersApp(deps: MembersDeps, rt: CapabilityRuntime) {
  const app = createSurface<{ member: Member }>();
  app.onError(mapDomainErrors(MEMBER_DOMAIN_ANSWERS));
  /** `gate`: the route needs the repository-environments rollout. `owner`: owners and admins only. */
  const memberAuth = (options: { gate: boolean; owner: boolean }) =>
    createMiddleware<MembersEnv>(async (c, next) => {
      const member = await authenticateMember(
        deps.db,
        c.req.raw.headers,
        c.req.param("workspaceId") ?? "",
        deps.now().getTime(),
      );
      if (options.gate && !member.rolloutEnabled)
        throw new HttpError(403, WIRE_ERRORS.rolloutDisabled, ROLLOUT_DISABLED_REASON);
      if (options.owner) requireOwnerOrAdmin(member);
      c.set("member", member);
      await next();
    });

  app.openapi(
    createRoute({
      method: "get",
      path: "/{workspaceId}/repos/{repoId}/capability-requests",
      summary: "capability requests of a repository (workspace members)",
      security: SECURITY.member,
      middleware: [memberAuth({ gate: true, owner: false })] as const,
      request: { params: z.object(repoParams) },
      responses: { 200: jsonContent(S.CapabilityList, "the requests"), ...pick(401, 403, 404) },
    }),
    async (c) => {
      const { workspaceId, repoId } = c.req.valid("param");
      return c.json({ requests: await listRequests(rt, workspaceId, repoId) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/{workspaceId}/repos/{repoId}/capability-requests/{requestId}/dismiss",
      summary: "dismiss (Not now); owners and admins; stays in force on rediscovery",
      security: SECURITY.member,
      middleware: [memberAuth({ gate: true, owner: true })] as const,
      request: { params: z.object({ ...repoParams, requestId: pathParam() }) },
      responses: { 200: jsonContent(S.DismissResponse, "dismissed"), ...pick(401, 403, 404, 409) },
    }),
    async (c) => {
      const { workspaceId, repoId, requestId } = c.req.valid("param");
      const request = await dismissRequest(rt, workspaceId, repoId, requestId);
      logAuditEvent(deps.logger, AUDIT_EVENTS.capabilityDismissed, {
        requestId: c.get("requestId"),
        actor: c.get("member").email,
        workspace: workspaceId,
        repository: repoId,
        capabilityRequestId: requestId,
      });
      return c.json({ request }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/{workspaceId}/repos/{repoId}/secrets/{name}",
      summary:
        "write a repository secret (owners and admins); with capabilityRequestId its allowed hosts must authorise the request's target; rotating a bound secret satisfies a repair again",
      security: SECURITY.member,
      middleware: [
        memberAuth({ gate: false, owner: true }),
        ...jsonBody("secret", SECRET_BODY_LIMIT),
      ] as const,
      request: {
        params: z.object({ ...repoParams, name: pathParam() }),
        body: {
          required: true,
          ...jsonContent(S.PutSecretBody, "value, allowed hosts, optional request id"),
        },
      },
      responses: {
        201: jsonContent(S.PutSecretResponse, "created (never echoes the value)"),
        200: jsonContent(S.PutSecretResponse, "replaced (never echoes the value)"),
        ...pick(400, 401, 403, 404, 409, 413, 415),
      },
    }),
    async (c) => {
      const { workspaceId, repoId, name } = c.req.valid("param");
      const result = await putSecret(rt, workspaceId, repoId, name, c.req.valid("json"));
      // The name only: the value never reaches a log line.
      logAuditEvent(deps.logger, AUDIT_EVENTS.secretWritten, {
        requestId: c.get("requestId"),
        actor: c.get("member").email,
        workspace: workspaceId,
        repository: repoId,
        secretName: name,
        rotated: !result.created,
      });
      rt.kickMail();
      return result.created ? c.json(result, 201) : c.json(result, 200);
    },
  );
  return app;
}
