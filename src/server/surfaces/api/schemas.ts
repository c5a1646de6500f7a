// The public API's bodies, queries and responses as zod schemas (reference section 2 and 4). Routes validate with
// them and the OpenAPI document is generated from them; each field's rule is the same check the engine applies
// (domain/tasks/validate.ts), so a refusal names the code of the reference's error table.
import { z } from "zod";
import { WIRE_ERRORS } from "../../../transport/wire.js";
import { DomainError } from "../../domain/errors.js";
import { PAUSE_REASONS, TASK_SOURCES, TASK_STATUSES, TURN_STATES } from "../../domain/tasks/statuses.js";
import { checkIdempotencyKey, checkPrompt, checkRepoShape, checkTitle } from "../../domain/tasks/validate.js";
import { ApiError } from "./errors.js";
import { API_ERRORS, API_HEADERS, type ApiErrorCode, LIMITS } from "./wire.js";

/** A string field checked by one of the engine's rules; the rule's reason becomes the issue's message. */
const checked = (check: (value: string) => unknown, description: string) =>
  z
    .string()
    .superRefine((value, ctx) => {
      try {
        check(value);
      } catch (error) {
        if (!(error instanceof ApiError || error instanceof DomainError)) throw error;
        ctx.addIssue({ code: "custom", message: error.reason, params: { apiCode: error.code } });
      }
    })
    .describe(description);

/** The text-field rule (domain/tasks/text-rules.ts), as the OpenAPI document states it. */
const TEXT_RULE = "no control characters other than tab, line feed and carriage return, no lone surrogates";

export const PromptSchema = checked(
  (v) => checkPrompt(v, "prompt"),
  `1 to 100,000 characters after trimming; ${TEXT_RULE}`,
);
export const TextSchema = checked(
  (v) => checkPrompt(v, "text"),
  `1 to 100,000 characters after trimming; ${TEXT_RULE}`,
);
const TitleField = checked(
  (v) => checkTitle(v, "x"),
  `up to 200 characters, not empty; ${TEXT_RULE}, no bidirectional override or isolate controls (U+202A to U+202E, U+2066 to U+2069); default: the prompt's first line cut to 80`,
);
const RepoField = checked(checkRepoShape, "owner/name of a repository connected to the workspace");

export const StartTaskBodySchema = z
  .object({
    prompt: PromptSchema,
    title: TitleField.nullable().optional(),
    repo: RepoField.nullable().optional(),
  })
  .meta({ id: "StartTaskBody" });

export const SendMessageBodySchema = z.object({ text: TextSchema }).meta({ id: "SendMessageBody" });

export const IdempotencyHeadersSchema = z.object({
  [API_HEADERS.idempotencyKey]: checked(
    checkIdempotencyKey,
    "1 to 128 printable ASCII characters (0x21 to 0x7E), no spaces; becomes the messageId",
  ).optional(),
});

const Timestamp = z.string().describe("ISO 8601 UTC with milliseconds");

export const TaskSchema = z
  .object({
    id: z.string(),
    status: z.enum(TASK_STATUSES),
    source: z
      .enum(TASK_SOURCES)
      .or(z.string())
      .describe("api, tracker, codehost_issue; an unknown value means started elsewhere"),
    title: z.string().nullable(),
    repo: z.string().nullable(),
    pullRequest: z.object({ url: z.string(), merged: z.boolean() }).nullable(),
    queued: z.boolean(),
    pausedOn: z.enum(PAUSE_REASONS).nullable().describe("why a paused task waits (ours); null otherwise"),
    createdAt: Timestamp,
    lastActivityAt: Timestamp,
    url: z.string().describe("the task on the dashboard"),
  })
  .meta({ id: "Task" });

export const MessageSchema = z
  .object({
    id: z.string().describe("entry id, the `after` cursor; msg_ user, agt_ agent, plt_ platform"),
    messageId: z.string().nullable(),
    role: z.enum(["user", "agent", "platform"]),
    kind: z.enum(["message", "response", "clarify", "error"]),
    body: z.string(),
    createdAt: Timestamp,
  })
  .meta({ id: "Message" });

export const MeSchema = z
  .object({
    user: z.object({
      id: z.string(),
      codehostLogin: z.string().describe("empty when the user has no code-host account"),
      name: z.string(),
    }),
    workspaces: z.array(
      z.object({ id: z.string(), name: z.string(), role: z.enum(["owner", "admin", "member"]) }),
    ),
  })
  .meta({ id: "Me" });

export const TaskListSchema = z
  .object({ tasks: z.array(TaskSchema), nextCursor: z.string().nullable() })
  .meta({ id: "TaskList" });
export const MessageListSchema = z
  .object({ messages: z.array(MessageSchema), next: z.string().nullable() })
  .meta({ id: "MessageList" });

/** Ours: one thing the agent did (the ACP adapter's records: its session updates, permission answers, Baton's tools). */
export const ActivityRecordSchema = z
  .object({
    at: Timestamp,
    kind: z
      .string()
      .describe(
        "the ACP session update's kind (tool_call, tool_call_update, plan, agent_message_chunk, …), permission, baton_tool, or dropped (the marker ahead of a turn's records when its oldest were dropped)",
      ),
    data: z
      .record(z.string(), z.unknown())
      .describe("the update as the agent sent it, less its kind; every text in it sanitised and bounded"),
  })
  .meta({ id: "ActivityRecord" });
export const ActivityTurnSchema = z
  .object({
    turnId: z.string().describe("the turn's id, the `after` cursor"),
    number: z.number().int().min(1).describe("the turn's place among the task's turns, from 1"),
    state: z.enum(TURN_STATES),
    startedAt: Timestamp.nullable(),
    endedAt: Timestamp.nullable(),
    recordedAt: Timestamp,
    dropped: z
      .number()
      .int()
      .min(0)
      .describe("records dropped from the turn's start to keep it within 4 MiB"),
    records: z.array(ActivityRecordSchema),
  })
  .meta({ id: "ActivityTurn" });
export const ActivityListSchema = z
  .object({ turns: z.array(ActivityTurnSchema), next: z.string().nullable() })
  .meta({ id: "ActivityList" });
export const StartTaskResponseSchema = z
  .object({ task: TaskSchema, messageId: z.string() })
  .meta({ id: "StartTaskResponse" });
export const MessageIdSchema = z.object({ messageId: z.string() }).meta({ id: "MessageAccepted" });
export const AcceptedSchema = z.object({ accepted: z.literal(true) }).meta({ id: "Accepted" });
export const OkSchema = z.object({ ok: z.literal(true) }).meta({ id: "DelegateAccepted" });

export const TicketSchema = z
  .object({
    id: z.string(),
    source: z.enum(["tracker", "codehost"]),
    identifier: z.string(),
    title: z.string(),
    state: z.string(),
    context: z.string(),
    url: z.string(),
    workspaceId: z.string(),
    workspaceLabel: z.string(),
    yours: z.boolean(),
  })
  .meta({ id: "Ticket" });

export const TicketSearchSchema = z
  .object({
    tickets: z.array(TicketSchema),
    tracker: z.object({ connected: z.boolean(), identityLinked: z.boolean(), identityBound: z.boolean() }),
    codehost: z.object({ connected: z.boolean(), repo: z.string() }),
  })
  .meta({ id: "TicketSearch" });

export const DelegateBodyDocSchema = z
  .discriminatedUnion("source", [
    z.object({ source: z.literal("tracker"), id: z.string().min(1).max(200) }),
    z.object({
      source: z.literal("codehost"),
      repo: z.string().min(1).max(200),
      number: z.number().int().positive(),
    }),
  ])
  .meta({ id: "DelegateBody" });

/** Every code a `/v1` refusal carries: the API's table, and the body gate's media-type refusal (415). */
const API_ERROR_CODES = [
  ...(Object.keys(API_ERRORS) as ApiErrorCode[]),
  WIRE_ERRORS.unsupportedMediaType,
] as const;

export const ApiErrorSchema = z
  .object({
    error: z.enum(API_ERROR_CODES),
    reason: z.string(),
    requestId: z.string(),
    limit: z.number().int().optional(),
    plan: z.string().optional(),
    running: z.number().int().optional(),
    queued: z.number().int().optional(),
    refusal: z.string().optional(),
    billingUrl: z.string().optional(),
    settingsUrl: z.string().optional(),
    taskId: z.string().optional(),
    messageId: z.string().optional(),
  })
  .meta({ id: "ApiError" });

/**
 * A page size in a query string: read as text (the route answers a bad one with the reference's 400), described
 * as the integer it is, so that generated clients type it as a number (issue 35 B.16).
 */
const pageLimit = (range: { min: number; max: number; default: number }, description: string) =>
  z
    .string()
    .optional()
    .describe(description)
    .meta({ type: "integer", minimum: range.min, maximum: range.max, default: range.default });

export const TaskListQuerySchema = z.object({
  status: z.string().optional().describe("one task status; an unknown name gives 400 invalid_status"),
  limit: pageLimit(
    LIMITS.taskPage,
    `${LIMITS.taskPage.min} to ${LIMITS.taskPage.max}, default ${LIMITS.taskPage.default}`,
  ),
  cursor: z.string().optional().describe("the previous page's nextCursor"),
});
export const MessageListQuerySchema = z.object({
  after: z.string().optional().describe("id of the last entry read"),
  limit: pageLimit(
    LIMITS.messagePage,
    `${LIMITS.messagePage.min} to ${LIMITS.messagePage.max}, default ${LIMITS.messagePage.default}`,
  ),
});
export const ActivityListQuerySchema = z.object({
  after: z.string().optional().describe("turnId of the last turn read"),
  limit: pageLimit(
    LIMITS.activityPage,
    `turns per page, ${LIMITS.activityPage.min} to ${LIMITS.activityPage.max}, default ${LIMITS.activityPage.default}; a page ends early once its records pass 16 MiB`,
  ),
});
export const TicketQuerySchema = z.object({
  q: z.string().optional().describe("up to 200 characters"),
  repo: z.string().optional().describe("owner/name of an enabled repository to search first"),
});
