// The `baton admin` calls: one admin API request each, answered as the service's checked JSON. Printing lives
// in src/cli/commands/admin/.

import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { z } from "zod";
import { ConfigError, ServiceError } from "../errors.js";
import {
  ADMIN_PATHS,
  type AnswerTurnBody,
  AnswerTurnResponseSchema,
  CreateSandboxResponseSchema,
  CreateTokenResponseSchema,
  CreateTurnResponseSchema,
  HEADERS,
  NO_SUCH_ROUTE,
  SandboxExecResponseSchema,
} from "../transport/wire.js";

/** Where the service is and the environment holding BATON_ADMIN_TOKEN. */
export interface AdminTarget {
  url: string;
  env: NodeJS.ProcessEnv;
  /** The flag that named `url`, for the messages that say what to fix (default `--url`). */
  urlFlag?: string;
}

/** What to do when `url` has no admin API: the service opens its admin listener only with an admin token. */
const enableAdmin = (flag: string) =>
  `start baton serve with BATON_ADMIN_TOKEN set (openssl rand -hex 32) and point ${flag} at its admin listener (adminUrl in \`baton serve --json\`, or its \`admin on\` line)`;

interface AdminRequest {
  method: "GET" | "POST" | "DELETE";
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** Stops waiting (Ctrl-C); the service may still finish what it was asked. */
  signal?: AbortSignal | undefined;
}

async function callAdmin(target: AdminTarget, path: string, body: unknown): Promise<unknown> {
  return await requestAdmin(target, { method: "POST", path, body });
}

async function requestAdmin(target: AdminTarget, request: AdminRequest): Promise<unknown> {
  const token = target.env.BATON_ADMIN_TOKEN;
  if (!token)
    throw new ConfigError("BATON_ADMIN_TOKEN is not set; export the token baton serve was started with");
  const flag = target.urlFlag ?? "--url";
  const url = new URL(request.path, target.url);
  for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, value);
  let response: { status: number; text: string };
  try {
    response = await send(url, request, token);
  } catch (error) {
    if (request.signal?.aborted) throw error;
    if ((error as { code?: unknown }).code === "ECONNREFUSED")
      throw new ServiceError(
        "network",
        `nothing listens at ${target.url}, so there is no admin API there; ${enableAdmin(flag)}`,
        { cause: error },
      );
    throw new ServiceError(
      "network",
      `cannot reach ${target.url}; check ${flag} and that baton serve is running`,
      { cause: error },
    );
  }
  let answer: { error?: string; reason?: string } = {};
  try {
    answer = JSON.parse(response.text) as typeof answer;
  } catch {
    // Not JSON: the checks below name the status.
  }
  if (response.status < 200 || response.status > 299) {
    // Not a refusal of this request: the address serves no admin API (another listener, or none enabled).
    if (response.status === 404 && answer.reason === NO_SUCH_ROUTE)
      throw new ServiceError("not_found", `${target.url} has no admin API enabled; ${enableAdmin(flag)}`, {
        status: 404,
      });
    if (response.status === 401)
      throw new ServiceError(
        "unauthorised",
        `the service refused the admin token (401 ${answer.error ?? ""}); set BATON_ADMIN_TOKEN to the token baton serve at ${target.url} was started with`,
        { status: 401 },
      );
    const code = response.status === 404 ? "not_found" : "service_error";
    throw new ServiceError(
      code,
      `the service refused (${response.status} ${answer.error ?? ""}): ${answer.reason ?? "no reason given"}`,
      { status: response.status, details: { error: answer.error, reason: answer.reason } },
    );
  }
  return answer;
}

/**
 * One request over node:http(s), which waits for an answer as long as the service takes: an exec answers only
 * when its command has ended, and fetch gives up on an answer's headers after five minutes.
 */
function send(url: URL, request: AdminRequest, token: string): Promise<{ status: number; text: string }> {
  const payload = request.body === undefined ? undefined : JSON.stringify(request.body);
  const call = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = call(
      url,
      {
        method: request.method,
        headers: {
          [HEADERS.adminToken]: token,
          ...(payload === undefined
            ? {}
            : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }),
        },
        ...(request.signal ? { signal: request.signal } : {}),
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
        incoming.on("error", reject);
        incoming.on("end", () =>
          resolve({ status: incoming.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
        );
      },
    );
    outgoing.on("error", reject);
    outgoing.end(payload);
  });
}

export type AdminSandbox = z.infer<typeof CreateSandboxResponseSchema>;
export type AdminTurn = z.infer<typeof CreateTurnResponseSchema>;

export async function createAdminSandbox(
  target: AdminTarget,
  input: { workspace: string; engagement: string; leaseTtl?: number; turnTtl?: number },
): Promise<AdminSandbox> {
  const body = {
    workspaceId: input.workspace,
    engagementId: input.engagement,
    ...(input.leaseTtl ? { leaseTtlSeconds: input.leaseTtl } : {}),
    ...(input.turnTtl ? { turnTtlSeconds: input.turnTtl } : {}),
  };
  return CreateSandboxResponseSchema.parse(await callAdmin(target, ADMIN_PATHS.sandboxes, body));
}

export async function createAdminTurn(
  target: AdminTarget,
  input: { engagement: string; ttl?: number },
): Promise<AdminTurn> {
  const body = { engagementId: input.engagement, ...(input.ttl ? { ttlSeconds: input.ttl } : {}) };
  return CreateTurnResponseSchema.parse(await callAdmin(target, ADMIN_PATHS.turns, body));
}

export type AdminToken = z.infer<typeof CreateTokenResponseSchema>;

/** A personal access token for a member; the answer holds the token, shown this once. */
export async function createAdminToken(
  target: AdminTarget,
  input: { email: string; name: string; lifetimeDays: 30 | 90 | 365 },
): Promise<AdminToken> {
  return CreateTokenResponseSchema.parse(await callAdmin(target, ADMIN_PATHS.tokens, input));
}

export type AdminTurnAnswer = z.infer<typeof AnswerTurnResponseSchema>;

/** Manual agent mode: ends a task's waiting turn with a reply, a question or a failure (`baton admin task answer`). */
export async function answerAdminTurn(
  target: AdminTarget,
  input: { taskId: string } & AnswerTurnBody,
): Promise<AdminTurnAnswer> {
  const path = ADMIN_PATHS.taskAnswer.replace(":id", encodeURIComponent(input.taskId));
  const body: AnswerTurnBody = { kind: input.kind, text: input.text };
  return AnswerTurnResponseSchema.parse(await callAdmin(target, path, body));
}

/** The box of a sandbox for a repository, with that repository's checkout (a folder under the service's `--checkout-root`) copied in. */
export async function provisionAdminSandbox(
  target: AdminTarget,
  input: { workspace: string; engagement: string; repository: string; checkout: string },
  signal?: AbortSignal,
): Promise<AdminSandbox> {
  const body = {
    workspaceId: input.workspace,
    engagementId: input.engagement,
    repository: input.repository,
    checkout: input.checkout,
  };
  return CreateSandboxResponseSchema.parse(
    await requestAdmin(target, { method: "POST", path: ADMIN_PATHS.sandboxes, body, signal }),
  );
}

export type AdminExecResult = z.infer<typeof SandboxExecResponseSchema>;

/** Runs a command in a sandbox's box; answered when it has ended (or its time limit stopped it). */
export async function execInAdminSandbox(
  target: AdminTarget,
  input: {
    sandboxId: string;
    workspace: string;
    engagement: string;
    command: string[];
    cwd: string;
    timeoutSeconds: number;
    stdin?: string;
  },
  signal?: AbortSignal,
): Promise<AdminExecResult> {
  const body = {
    workspaceId: input.workspace,
    engagementId: input.engagement,
    command: input.command,
    cwd: input.cwd,
    timeoutSeconds: input.timeoutSeconds,
    ...(input.stdin !== undefined ? { stdin: input.stdin } : {}),
  };
  const path = ADMIN_PATHS.sandboxExec.replace(":id", encodeURIComponent(input.sandboxId));
  return SandboxExecResponseSchema.parse(await requestAdmin(target, { method: "POST", path, body, signal }));
}

/** Deletes a sandbox and its box (its owner checked). */
export async function removeAdminSandbox(
  target: AdminTarget,
  input: { sandboxId: string; workspace: string; engagement: string },
): Promise<void> {
  const path = ADMIN_PATHS.sandbox.replace(":id", encodeURIComponent(input.sandboxId));
  await requestAdmin(target, {
    method: "DELETE",
    path,
    query: { workspaceId: input.workspace, engagementId: input.engagement },
  });
}
