// The public-API client the client commands use: one method per endpoint of reference section 4, over the CLI's
// one HTTP client (src/net), every answer parsed with zod. Mutating calls take the invocation's idempotency key,
// so the HTTP layer's retries (dropped connection, 5xx, 429 with Retry-After; three tries in all) never start a
// second task or send a message twice.
import type { z } from "zod";
import { ServiceError } from "../errors.js";
import type { Log } from "../log-level.js";
import { createHttpClient, type HttpClientOptions, type JsonRequest } from "../net/http-client.js";
import { API_HEADERS, API_PATHS } from "../server/surfaces/api/wire.js";
import { describeUnreachable, mapApiFailure } from "./api-errors.js";
import {
  type Me,
  MeSchema,
  MessageAcceptedSchema,
  type MessageList,
  MessageListSchema,
  type StartedTask,
  StartedTaskSchema,
  type StartTaskBody,
  StopAcceptedSchema,
  type Task,
  type TaskList,
  TaskListSchema,
  TaskSchema,
} from "./schemas.js";

export interface ApiClientOptions {
  apiUrl: string;
  /** Sent as the bearer token; never logged or printed. */
  token: string;
  /** Called once when the service refuses the token (401): a new token to retry with (a renewed browser sign-in). */
  renewToken?: (refused: string) => Promise<string>;
  log?: Log;
  /** Tests shorten the back-off; the tries stay three. */
  policy?: HttpClientOptions["policy"];
  onRetry?: HttpClientOptions["onRetry"];
}

export interface ListTasksQuery {
  status?: string;
  limit?: number;
  cursor?: string;
}

export interface ListMessagesQuery {
  after?: string;
  limit?: number;
}

export interface ApiClient {
  me(): Promise<Me>;
  listTasks(workspaceId: string, query?: ListTasksQuery): Promise<TaskList>;
  getTask(workspaceId: string, taskId: string): Promise<Task>;
  stopTask(workspaceId: string, taskId: string): Promise<void>;
  listMessages(workspaceId: string, taskId: string, query?: ListMessagesQuery): Promise<MessageList>;
  startTask(workspaceId: string, body: StartTaskBody, idempotencyKey: string): Promise<StartedTask>;
  sendMessage(
    workspaceId: string,
    taskId: string,
    text: string,
    idempotencyKey: string,
  ): Promise<{ messageId: string }>;
  /** DELETE /v1/me/token: revokes this token, or ends the whole browser sign-in it belongs to. */
  revokeToken(): Promise<void>;
  close(): void;
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  let token = options.token;
  const http = createHttpClient({
    baseUrl: options.apiUrl,
    classify: mapApiFailure,
    unreachable: (doing, code, cause) => describeUnreachable(options.apiUrl, doing, code, cause),
    ...(options.log ? { log: options.log } : {}),
    ...(options.policy ? { policy: options.policy } : {}),
    ...(options.onRetry ? { onRetry: options.onRetry } : {}),
  });

  const send = (req: JsonRequest) =>
    http.request({ ...req, headers: { [API_HEADERS.authorization]: `Bearer ${token}`, ...req.headers } });
  // A refused token is renewed once and the request sent again: a 401 means the service did nothing, and the
  // mutating calls carry their idempotency key anyway.
  const sendRenewing = async (req: JsonRequest) => {
    try {
      return await send(req);
    } catch (error) {
      if (!(options.renewToken && error instanceof ServiceError && error.code === "unauthorised"))
        throw error;
      token = await options.renewToken(token);
      return send(req);
    }
  };
  const call = async <S extends z.ZodType>(schema: S, req: JsonRequest): Promise<z.infer<S>> => {
    const { body } = await sendRenewing(req);
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      throw new ServiceError(
        "service_error",
        `the service answered ${req.doing} with a body this client cannot read; is ${options.apiUrl} a Baton service of a newer version?`,
        { cause: parsed.error },
      );
    }
    return parsed.data;
  };
  const keyed = (key: string) => ({ [API_HEADERS.idempotencyKey]: key });
  const taskNotFound = (taskId: string, workspaceId: string) =>
    `no task ${taskId} in workspace ${workspaceId}`;

  return {
    me: () => call(MeSchema, { method: "GET", path: API_PATHS.me, doing: "reading your account" }),
    listTasks: (workspaceId, query = {}) =>
      call(TaskListSchema, {
        method: "GET",
        path: `${API_PATHS.tasks(workspaceId)}${toQuery({ ...query })}`,
        doing: `listing the tasks of workspace ${workspaceId}`,
        notFound: `no workspace ${workspaceId} of yours`,
      }),
    getTask: (workspaceId, taskId) =>
      call(TaskSchema, {
        method: "GET",
        path: API_PATHS.task(workspaceId, taskId),
        doing: `reading task ${taskId}`,
        notFound: taskNotFound(taskId, workspaceId),
      }),
    stopTask: async (workspaceId, taskId) => {
      await call(StopAcceptedSchema, {
        method: "POST",
        path: API_PATHS.stop(workspaceId, taskId),
        doing: `stopping task ${taskId}`,
        notFound: taskNotFound(taskId, workspaceId),
      });
    },
    listMessages: (workspaceId, taskId, query = {}) =>
      call(MessageListSchema, {
        method: "GET",
        path: `${API_PATHS.messages(workspaceId, taskId)}${toQuery({ ...query })}`,
        doing: `reading the conversation of task ${taskId}`,
        notFound: taskNotFound(taskId, workspaceId),
      }),
    startTask: (workspaceId, body, idempotencyKey) =>
      call(StartedTaskSchema, {
        method: "POST",
        path: API_PATHS.tasks(workspaceId),
        headers: keyed(idempotencyKey),
        body,
        doing: `starting a task in workspace ${workspaceId}`,
        notFound: `no workspace ${workspaceId} of yours`,
      }),
    sendMessage: (workspaceId, taskId, text, idempotencyKey) =>
      call(MessageAcceptedSchema, {
        method: "POST",
        path: API_PATHS.messages(workspaceId, taskId),
        headers: keyed(idempotencyKey),
        body: { text },
        doing: `sending a message to task ${taskId}`,
        notFound: taskNotFound(taskId, workspaceId),
      }),
    revokeToken: async () => {
      await sendRenewing({ method: "DELETE", path: API_PATHS.meToken, doing: "signing out" });
    },
    close: () => http.close(),
  };
}

/** `?a=1&b=2` of the defined values, or nothing. */
export function toQuery(values: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}
