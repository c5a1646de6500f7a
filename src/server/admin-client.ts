// The `baton admin` commands: one admin API call each, printed as shell exports or JSON.
import type { ExitCode } from "../cli/exit-codes.js";
import { EXIT } from "../cli/exit-codes.js";
import { type CliIo, writeJson, writeLine } from "../cli/io.js";
import { ConfigError, ServiceError } from "../errors.js";
import {
  ADMIN_PATHS,
  CreateSandboxResponseSchema,
  CreateTurnResponseSchema,
  HEADERS,
} from "../transport/wire.js";

async function callAdmin(io: CliIo, baseUrl: string, path: string, body: unknown): Promise<unknown> {
  const token = io.env.BATON_ADMIN_TOKEN;
  if (!token)
    throw new ConfigError("BATON_ADMIN_TOKEN is not set; export the token baton serve was started with");
  let response: Response;
  try {
    response = await fetch(new URL(path, baseUrl), {
      method: "POST",
      headers: { "content-type": "application/json", [HEADERS.adminToken]: token },
      body: JSON.stringify(body),
    });
  } catch (error) {
    throw new ServiceError(
      "network",
      `cannot reach ${baseUrl}; check --url and that baton serve is running`,
      { cause: error },
    );
  }
  const answer = (await response.json().catch(() => ({}))) as { error?: string; reason?: string };
  if (!response.ok) {
    const code =
      response.status === 401 ? "unauthorised" : response.status === 404 ? "not_found" : "service_error";
    throw new ServiceError(
      code,
      `the service refused (${response.status} ${answer.error ?? ""}): ${answer.reason ?? "no reason given"}`,
      {
        status: response.status,
      },
    );
  }
  return answer;
}

const quote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;

/** What every `baton admin` command takes: the service URL, --json, and the CLI's streams and environment. */
interface AdminCallOptions {
  url: string;
  json: boolean;
  io: CliIo;
}

/** One admin call: POST `body` to `path`, check the answer against `schema`, print it as JSON or as exports. */
async function runAdminCall<T>(
  options: AdminCallOptions,
  path: string,
  body: unknown,
  schema: { parse(input: unknown): T },
  exportLine: (answer: T) => string,
): Promise<ExitCode> {
  const answer = schema.parse(await callAdmin(options.io, options.url, path, body));
  if (options.json) writeJson(options.io.stdout, answer);
  else writeLine(options.io.stdout, exportLine(answer));
  return EXIT.ok;
}

export async function createAdminSandbox(
  options: AdminCallOptions & { workspace: string; engagement: string; leaseTtl?: number; turnTtl?: number },
): Promise<ExitCode> {
  const body = {
    workspaceId: options.workspace,
    engagementId: options.engagement,
    ...(options.leaseTtl ? { leaseTtlSeconds: options.leaseTtl } : {}),
    ...(options.turnTtl ? { turnTtlSeconds: options.turnTtl } : {}),
  };
  return runAdminCall(
    options,
    ADMIN_PATHS.sandboxes,
    body,
    CreateSandboxResponseSchema,
    ({ env }) =>
      `export BATON_OPS_URL=${quote(env.BATON_OPS_URL)} BATON_TURN_TOKEN=${quote(env.BATON_TURN_TOKEN)} BATON_SANDBOX_LEASE=${quote(env.BATON_SANDBOX_LEASE)}`,
  );
}

export async function createAdminTurn(
  options: AdminCallOptions & { engagement: string; ttl?: number },
): Promise<ExitCode> {
  const body = { engagementId: options.engagement, ...(options.ttl ? { ttlSeconds: options.ttl } : {}) };
  return runAdminCall(
    options,
    ADMIN_PATHS.turns,
    body,
    CreateTurnResponseSchema,
    (answer) => `export BATON_TURN_TOKEN=${quote(answer.turnToken)}`,
  );
}
