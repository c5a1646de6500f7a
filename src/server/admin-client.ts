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

export async function createAdminSandbox(options: {
  url: string;
  workspace: string;
  engagement: string;
  leaseTtl?: number;
  turnTtl?: number;
  json: boolean;
  io: CliIo;
}): Promise<ExitCode> {
  const answer = CreateSandboxResponseSchema.parse(
    await callAdmin(options.io, options.url, ADMIN_PATHS.sandboxes, {
      workspaceId: options.workspace,
      engagementId: options.engagement,
      ...(options.leaseTtl ? { leaseTtlSeconds: options.leaseTtl } : {}),
      ...(options.turnTtl ? { turnTtlSeconds: options.turnTtl } : {}),
    }),
  );
  if (options.json) writeJson(options.io.stdout, answer);
  else {
    const env = answer.env;
    writeLine(
      options.io.stdout,
      `export BATON_OPS_URL=${quote(env.BATON_OPS_URL)} BATON_TURN_TOKEN=${quote(env.BATON_TURN_TOKEN)} BATON_SANDBOX_LEASE=${quote(env.BATON_SANDBOX_LEASE)}`,
    );
  }
  return EXIT.ok;
}

export async function createAdminTurn(options: {
  url: string;
  engagement: string;
  ttl?: number;
  json: boolean;
  io: CliIo;
}): Promise<ExitCode> {
  const answer = CreateTurnResponseSchema.parse(
    await callAdmin(options.io, options.url, ADMIN_PATHS.turns, {
      engagementId: options.engagement,
      ...(options.ttl ? { ttlSeconds: options.ttl } : {}),
    }),
  );
  if (options.json) writeJson(options.io.stdout, answer);
  else writeLine(options.io.stdout, `export BATON_TURN_TOKEN=${quote(answer.turnToken)}`);
  return EXIT.ok;
}
