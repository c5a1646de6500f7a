// The public API `/v1` (reference sections 4, 5, 7 and 8): who am I, revoking one's token, tasks (start, list,
// get, stop), conversations (read, follow up), a task's activity (ours) and tickets (search, delegate). Every route authenticates the
// personal access token, applies the token's rate limit for the endpoint, and checks membership of the path's
// workspace on every request; the work is done by the task engine's operations (src/server/domain/tasks).
import { createRoute, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { AUDIT_EVENTS, logAuditEvent } from "../../../audit/events.js";
import { revokePersonalToken } from "../../domain/auth/personal-tokens-store.js";
import { endSignIn } from "../../domain/auth/sign-ins.js";
import { whoAmI } from "../../domain/auth/who-am-i.js";
import { listActivity } from "../../domain/tasks/read-activity.js";
import { listMessages, listTasks, readTask } from "../../domain/tasks/read-tasks.js";
import { sendMessage } from "../../domain/tasks/send-message.js";
import { startTask } from "../../domain/tasks/start-task.js";
import { stopTaskTurn } from "../../domain/tasks/stop.js";
import { delegateTicket } from "../../domain/tickets/delegate.js";
import type { TicketPorts } from "../../domain/tickets/ports.js";
import { searchTickets } from "../../domain/tickets/search.js";
import { jsonBody, KiB } from "../http/json-body.js";
import { createSurface } from "../http/surface.js";
import { pathParam } from "../openapi/schemas.js";
import type { ApiDeps } from "./deps.js";
import { ApiError, answerDomainErrors } from "./errors.js";
import { type ApiEnv, authenticateCaller, limitRate, requireWorkspaceMember } from "./middleware.js";
import {
  AcceptedSchema,
  ActivityListQuerySchema,
  ActivityListSchema,
  ApiErrorSchema,
  DelegateBodyDocSchema,
  IdempotencyHeadersSchema,
  MeSchema,
  MessageIdSchema,
  MessageListQuerySchema,
  MessageListSchema,
  OkSchema,
  SendMessageBodySchema,
  StartTaskBodySchema,
  StartTaskResponseSchema,
  TaskListQuerySchema,
  TaskListSchema,
  TaskSchema,
  TicketQuerySchema,
  TicketSearchSchema,
} from "./schemas.js";
import { API_HEADERS, type ApiErrorCode } from "./wire.js";

/** A prompt of 100,000 characters, each up to 4 bytes of UTF-8 or 6 when JSON-escaped, with room for the rest. */
const TEXT_BODY_LIMIT = 640 * KiB;
const SMALL_BODY_LIMIT = 16 * KiB;

const json = <S extends z.ZodType>(schema: S, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
/** Every 429 declares its Retry-After, so the document holds each answer of the suites to it; likewise below. */
const RETRY_AFTER = {
  [API_HEADERS.retryAfter]: {
    description: "seconds to wait before trying again",
    required: true,
    schema: { type: "integer" as const, minimum: 1 },
  },
};
/** Every 401 declares its Bearer challenge (RFC 6750 section 3). */
const WWW_AUTHENTICATE = {
  [API_HEADERS.wwwAuthenticate]: {
    description:
      '`Bearer realm="baton"`, with `, error="invalid_token"` when a token was sent but not accepted',
    required: true,
    schema: { type: "string" as const },
  },
};
const REQUIRED_HEADERS: Record<string, object> = { "401": WWW_AUTHENTICATE, "429": RETRY_AFTER };
const errors = (texts: Partial<Record<number, string>>) =>
  Object.fromEntries(
    Object.entries(texts).map(([status, text]) => [
      status,
      REQUIRED_HEADERS[status]
        ? { ...json(ApiErrorSchema, text ?? ""), headers: REQUIRED_HEADERS[status] }
        : json(ApiErrorSchema, text ?? ""),
    ]),
  );
const COMMON = {
  401: "invalid_token: missing, malformed, unknown, expired or revoked",
  404: "not_found: no such task, or not a member of the workspace (never 403)",
  429: "bad_request: over the rate limit (600 GET / 120 POST or DELETE per token and endpoint a minute); see Retry-After",
};
const SECURITY = [{ personalToken: [] }];
const workspaceParams = z.object({ workspaceId: pathParam() });
const taskParams = z.object({ workspaceId: pathParam(), taskId: pathParam() });

/** Zod failures of a route's input, mapped to the reference's codes (the field's own rule's reason). */
const FIELD_CODES: Record<string, ApiErrorCode> = {
  prompt: "invalid_prompt",
  text: "invalid_prompt",
  title: "invalid_title",
  repo: "invalid_repo",
  [API_HEADERS.idempotencyKey]: "invalid_idempotency_key",
};
const FIELD_RULES: Record<string, string> = {
  prompt: "prompt is required: a string of 1 to 100,000 characters",
  text: "text is required: a string of 1 to 100,000 characters",
  title: "title must be a string of 1 to 200 characters, or null",
  repo: "repo must be owner/name of a connected repository, or null",
};
function refuseInput(
  result: { success: boolean; error?: z.ZodError; target?: string },
  c: Context,
): undefined {
  if (result.success || !result.error) return undefined;
  const issue = result.error.issues[0]!;
  const field = String(issue.path[0] ?? "");
  const code = FIELD_CODES[field];
  // Our own rules carry a reason that says what to fix; a wrong type gets one here.
  if (code)
    throw new ApiError(
      code,
      issue.code === "custom" ? issue.message : (FIELD_RULES[field] ?? `${field}: ${issue.message}`),
    );
  const what = c.get("bodyName") ?? "the body";
  if (result.target === "json" && issue.path.length === 0 && what === "task")
    throw new ApiError("invalid_prompt", "send a JSON object with prompt");
  if (result.target === "json" && issue.path.length === 0 && what === "message")
    throw new ApiError("invalid_prompt", "send a JSON object with text");
  throw new ApiError("invalid_request", `${what}: ${field || "(body)"}: ${issue.message}`);
}

export function createApiApp(deps: ApiDeps) {
  const app = createSurface<ApiEnv["Variables"]>();
  app.onError(answerDomainErrors);
  const gate = (
    method: "GET" | "POST" | "DELETE",
    endpoint: string,
    workspace: boolean,
  ): MiddlewareHandler<ApiEnv>[] => [
    authenticateCaller(deps),
    limitRate(deps, method, endpoint),
    ...(workspace ? [requireWorkspaceMember(deps)] : []),
  ];
  const ctx = () => deps.tasks.context;
  const ticketPorts = (): TicketPorts => ({
    tracker: deps.tasks.tracker,
    codehost: deps.tasks.codehost,
    logger: deps.logger,
  });

  app.openapi(
    createRoute({
      security: SECURITY,
      method: "get",
      path: "/me",
      summary: "the token's user and workspaces (ordered by name)",
      middleware: gate("GET", "me", false),
      responses: {
        200: json(MeSchema, "the user and workspaces with role"),
        ...errors({ 401: COMMON[401], 429: COMMON[429] }),
      },
    }),
    async (c) => c.json(await whoAmI(deps.db, c.get("caller").user), 200),
  );

  app.openapi(
    createRoute({
      security: SECURITY,
      method: "delete",
      path: "/me/token",
      summary: "revoke the token that sent this request",
      middleware: gate("DELETE", "me/token", false),
      responses: {
        204: { description: "revoked; the token now gets 401" },
        ...errors({ 401: COMMON[401], 429: COMMON[429] }),
      },
    }),
    async (c) => {
      const caller = c.get("caller");
      // A sign-in's token ends the whole sign-in (reference: "revoked together with the rest of that sign-in").
      if (caller.kind === "sign-in") await endSignIn(deps.db, caller.tokenId, deps.now().getTime());
      else await revokePersonalToken(deps.db, caller.tokenId, deps.now().getTime());
      logAuditEvent(deps.logger, AUDIT_EVENTS.tokenRevoked, {
        requestId: c.get("requestId"),
        actor: caller.user.email,
        tokenId: caller.tokenId,
      });
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      security: SECURITY,
      method: "get",
      path: "/workspaces/{workspaceId}/tasks",
      summary: "tasks of every source, most recently active first",
      middleware: gate("GET", "tasks", true),
      request: { params: workspaceParams, query: TaskListQuerySchema },
      responses: {
        200: json(TaskListSchema, "a page of tasks; nextCursor is null on the last page"),
        ...errors({ 400: "invalid_status, invalid_limit, invalid_cursor", ...COMMON }),
      },
    }),
    async (c) => c.json(await listTasks(ctx(), c.get("membership").workspaceId, c.req.valid("query")), 200),
    refuseInput,
  );

  app.openapi(
    createRoute({
      security: SECURITY,
      method: "post",
      path: "/workspaces/{workspaceId}/tasks",
      summary: "start a task (202; status pending, source api)",
      middleware: [...gate("POST", "tasks", true), ...jsonBody("task", TEXT_BODY_LIMIT)],
      request: {
        params: workspaceParams,
        headers: IdempotencyHeadersSchema,
        body: { required: true, ...json(StartTaskBodySchema, "prompt, optional title and repo") },
      },
      responses: {
        202: json(StartTaskResponseSchema, "the task and its first message's id"),
        ...errors({
          400: "invalid_prompt, invalid_title, invalid_repo, invalid_idempotency_key, invalid_request",
          402: "billing_inactive (billingUrl, plan)",
          409: "idempotency_conflict, codehost_not_connected (settingsUrl)",
          413: "payload_too_large",
          415: "unsupported_media_type",
          503: "unavailable: saved but not handed over; retry with the same key (taskId, messageId)",
          ...COMMON,
          429: "too_many_running (limit: 5, running), queue_full (plan, running, queued), bad_request (rate limit; Retry-After)",
        }),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const answer = await startTask(ctx(), {
        workspaceId: c.get("membership").workspaceId,
        user: c.get("caller").user,
        body,
        idempotencyKey: c.req.valid("header")[API_HEADERS.idempotencyKey] ?? null,
      });
      logAuditEvent(deps.logger, AUDIT_EVENTS.taskStarted, {
        requestId: c.get("requestId"),
        actor: c.get("caller").user.email,
        workspace: c.get("membership").workspaceId,
        taskId: answer.task.id,
      });
      return c.json(answer, 202);
    },
    refuseInput,
  );

  app.openapi(
    createRoute({
      security: SECURITY,
      method: "get",
      path: "/workspaces/{workspaceId}/tasks/{taskId}",
      summary: "one task, whatever its source",
      middleware: gate("GET", "task", true),
      request: { params: taskParams },
      responses: { 200: json(TaskSchema, "the task (bare object)"), ...errors(COMMON) },
    }),
    async (c) =>
      c.json(await readTask(ctx(), c.get("membership").workspaceId, c.req.valid("param").taskId), 200),
  );

  app.openapi(
    createRoute({
      security: SECURITY,
      method: "post",
      path: "/workspaces/{workspaceId}/tasks/{taskId}/stop",
      summary: "stop the running (or queued) turn; any member, any task",
      middleware: gate("POST", "stop", true),
      request: { params: taskParams },
      responses: { 202: json(AcceptedSchema, "stopped"), ...errors({ 409: "not_running", ...COMMON }) },
    }),
    async (c) => {
      const { workspaceId } = c.get("membership");
      const { taskId } = c.req.valid("param");
      const stopped = await stopTaskTurn(ctx(), workspaceId, taskId, c.get("caller").user);
      logAuditEvent(deps.logger, AUDIT_EVENTS.taskStopped, {
        requestId: c.get("requestId"),
        actor: c.get("caller").user.email,
        workspace: workspaceId,
        taskId,
      });
      return c.json(stopped, 202);
    },
  );

  app.openapi(
    createRoute({
      security: SECURITY,
      method: "get",
      path: "/workspaces/{workspaceId}/tasks/{taskId}/messages",
      summary: "the conversation of a task started from the API, client or MCP, oldest first",
      middleware: gate("GET", "messages", true),
      request: { params: taskParams, query: MessageListQuerySchema },
      responses: {
        200: json(MessageListSchema, "a page of entries; pass next as after for the next page"),
        ...errors({ 400: "invalid_cursor, invalid_limit", 409: "not_an_api_task", ...COMMON }),
      },
    }),
    async (c) => {
      const { taskId } = c.req.valid("param");
      return c.json(
        await listMessages(ctx(), c.get("membership").workspaceId, taskId, c.req.valid("query")),
        200,
      );
    },
    refuseInput,
  );

  app.openapi(
    createRoute({
      security: SECURITY,
      method: "get",
      path: "/workspaces/{workspaceId}/tasks/{taskId}/activity",
      summary: "what the agent did, per turn, in the turns' order (ours: an addition to the reference)",
      description:
        "An addition to the reference (x-baton-addition). The activity an agent adapter recorded in each turn (the ACP adapter: its session updates such as tool calls, plan entries and messages, and the permission requests it answered), sanitised and bounded to 4 MiB a turn, the oldest dropped behind a `dropped` marker. Never part of the conversation. Any member of the workspace, for a task of any source.",
      "x-baton-addition": true,
      middleware: gate("GET", "activity", true),
      request: { params: taskParams, query: ActivityListQuerySchema },
      responses: {
        200: json(ActivityListSchema, "a page of turns; pass next as after for the next page"),
        ...errors({ 400: "invalid_cursor, invalid_limit", ...COMMON }),
      },
    }),
    async (c) => {
      const { taskId } = c.req.valid("param");
      return c.json(
        await listActivity(ctx(), c.get("membership").workspaceId, taskId, c.req.valid("query")),
        200,
      );
    },
    refuseInput,
  );

  app.openapi(
    createRoute({
      security: SECURITY,
      method: "post",
      path: "/workspaces/{workspaceId}/tasks/{taskId}/messages",
      summary: "follow up (202); never refused for the running-task limit",
      middleware: [...gate("POST", "messages", true), ...jsonBody("message", TEXT_BODY_LIMIT)],
      request: {
        params: taskParams,
        headers: IdempotencyHeadersSchema,
        body: { required: true, ...json(SendMessageBodySchema, "the text") },
      },
      responses: {
        202: json(MessageIdSchema, "the message's id (the Idempotency-Key when given)"),
        ...errors({
          400: "invalid_prompt, invalid_idempotency_key, invalid_request",
          409: "not_an_api_task, idempotency_conflict",
          413: "payload_too_large",
          415: "unsupported_media_type",
          503: "unavailable: saved but not handed over; retry with messageId as the Idempotency-Key",
          ...COMMON,
        }),
      },
    }),
    async (c) => {
      const answer = await sendMessage(ctx(), {
        workspaceId: c.get("membership").workspaceId,
        taskId: c.req.valid("param").taskId,
        user: c.get("caller").user,
        body: c.req.valid("json"),
        idempotencyKey: c.req.valid("header")[API_HEADERS.idempotencyKey] ?? null,
      });
      return c.json(answer, 202);
    },
    refuseInput,
  );

  app.openapi(
    createRoute({
      security: SECURITY,
      method: "get",
      path: "/workspaces/{workspaceId}/tickets",
      summary: "open issues the caller could delegate (the dashboard picker's list)",
      middleware: gate("GET", "tickets", true),
      request: { params: workspaceParams, query: TicketQuerySchema },
      responses: {
        200: json(TicketSearchSchema, "tickets, tracker and code-host status"),
        ...errors({ 400: "invalid_request: q over 200 characters", ...COMMON }),
      },
    }),
    async (c) =>
      c.json(
        await searchTickets(
          ctx(),
          ticketPorts(),
          c.get("membership"),
          c.get("caller").user,
          c.req.valid("query"),
        ),
        200,
      ),
    refuseInput,
  );

  app.openapi(
    createRoute({
      security: SECURITY,
      method: "post",
      path: "/workspaces/{workspaceId}/tickets/delegate",
      summary: "hand an issue to the service as the caller (202)",
      middleware: [...gate("POST", "delegate", true), ...jsonBody("delegation", SMALL_BODY_LIMIT)],
      request: {
        params: workspaceParams,
        body: { required: true, ...json(DelegateBodyDocSchema, "a tracker issue or a code-host issue") },
      },
      responses: {
        202: json(OkSchema, "delegated; the task appears in the list"),
        ...errors({
          400: "invalid_request, invalid_repo (not enabled)",
          402: "billing_inactive",
          409: "tracker_identity_unlinked, tracker_not_connected (settingsUrl), codehost_account_missing, ticket_closed, ticket_is_pull_request, ticket_assigned_elsewhere, ticket_in_progress, codehost_not_connected (settingsUrl)",
          413: "payload_too_large",
          415: "unsupported_media_type",
          ...COMMON,
          429: "queue_full (before the issue is touched), bad_request (rate limit; Retry-After)",
        }),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const { taskId } = await delegateTicket(
        ctx(),
        ticketPorts(),
        c.get("membership"),
        c.get("caller").user,
        body,
      );
      logAuditEvent(deps.logger, AUDIT_EVENTS.taskStarted, {
        requestId: c.get("requestId"),
        actor: c.get("caller").user.email,
        workspace: c.get("membership").workspaceId,
        taskId,
        source: body.source,
        via: "delegate",
      });
      return c.json({ ok: true as const }, 202);
    },
    refuseInput,
  );
  return app;
}
