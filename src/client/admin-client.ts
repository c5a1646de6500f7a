// The `baton admin` calls: one admin API request each, answered as the service's checked JSON. Printing lives
// in src/cli/commands/admin/.

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
} from "../transport/wire.js";

/** Where the service is and the environment holding BATON_ADMIN_TOKEN. */
export interface AdminTarget {
  url: string;
  env: NodeJS.ProcessEnv;
}

/** What to do when `url` has no admin API: the service opens its admin listener only with an admin token. */
const ENABLE_ADMIN =
  "start baton serve with BATON_ADMIN_TOKEN set (openssl rand -hex 32) and point --url at its admin listener (adminUrl in `baton serve --json`, or its `admin on` line)";

async function callAdmin(target: AdminTarget, path: string, body: unknown): Promise<unknown> {
  const token = target.env.BATON_ADMIN_TOKEN;
  if (!token)
    throw new ConfigError("BATON_ADMIN_TOKEN is not set; export the token baton serve was started with");
  let response: Response;
  try {
    response = await fetch(new URL(path, target.url), {
      method: "POST",
      headers: { "content-type": "application/json", [HEADERS.adminToken]: token },
      body: JSON.stringify(body),
    });
  } catch (error) {
    if (connectionRefused(error))
      throw new ServiceError(
        "network",
        `nothing listens at ${target.url}, so there is no admin API there; ${ENABLE_ADMIN}`,
        { cause: error },
      );
    throw new ServiceError(
      "network",
      `cannot reach ${target.url}; check --url and that baton serve is running`,
      { cause: error },
    );
  }
  const answer = (await response.json().catch(() => ({}))) as { error?: string; reason?: string };
  if (!response.ok) {
    // Not a refusal of this request: the address serves no admin API (another listener, or none enabled).
    if (response.status === 404 && answer.reason === NO_SUCH_ROUTE)
      throw new ServiceError("not_found", `${target.url} has no admin API enabled; ${ENABLE_ADMIN}`, {
        status: 404,
      });
    const code =
      response.status === 401 ? "unauthorised" : response.status === 404 ? "not_found" : "service_error";
    throw new ServiceError(
      code,
      `the service refused (${response.status} ${answer.error ?? ""}): ${answer.reason ?? "no reason given"}`,
      { status: response.status },
    );
  }
  return answer;
}

function connectionRefused(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return cause?.code === "ECONNREFUSED";
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
