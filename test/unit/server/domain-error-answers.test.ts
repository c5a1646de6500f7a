// Each surface answers the domain's refusals from its own table (DESIGN "Domain errors are surface-neutral"):
// the status and code its clients already know, the domain's reason; a code from a domain function the surface
// never calls is a 500 that names nothing. The routes here are stand-ins that throw each code: no real route of a
// surface can reach every code, and the tables must answer for all of them. The listener is the real one
// (request context, error handler), called in-process as the server's other tests do.
import { Writable } from "node:stream";
import type { ErrorHandler } from "hono";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { DOMAIN_ERROR_CODES, type DomainErrorCode, domainError } from "../../../src/server/domain/errors.js";
import { handleError } from "../../../src/server/handle-errors.js";
import { ADMIN_DOMAIN_ANSWERS } from "../../../src/server/surfaces/admin/domain-errors.js";
import { answerDomainErrors } from "../../../src/server/surfaces/api/errors.js";
import {
  type DomainAnswers,
  mapDomainErrors,
  NOT_ON_THIS_SURFACE,
} from "../../../src/server/surfaces/http/domain-errors.js";
import { requestContext } from "../../../src/server/surfaces/http/request-context.js";
import { createSurface } from "../../../src/server/surfaces/http/surface.js";
import { MEMBER_DOMAIN_ANSWERS } from "../../../src/server/surfaces/members/domain-errors.js";
import { OPS_DOMAIN_ANSWERS } from "../../../src/server/surfaces/ops/domain-errors.js";
import { CAPABILITY_WIRE_ERRORS, WIRE_ERRORS } from "../../../src/transport/wire.js";

const CANARY = "canary-reason-7f3a";

function listener(onError: ErrorHandler | undefined) {
  const lines: string[] = [];
  const logger = pino(
    { level: "debug" },
    new Writable({ write: (chunk, _enc, done) => done(void lines.push(String(chunk))) }),
  );
  const surface = createSurface();
  if (onError) surface.onError(onError);
  surface.get("/refuse/:code", (c) => {
    throw domainError(c.req.param("code") as DomainErrorCode, `${CANARY}: fix the thing`);
  });
  surface.get("/fail", () => {
    throw new Error(`${CANARY} broke`);
  });
  const app = createSurface();
  app.use(requestContext(logger));
  app.route("/s", surface);
  app.onError(handleError(logger));
  return { app, lines };
}

async function refuse(onError: ErrorHandler | undefined, code: DomainErrorCode) {
  const response = await listener(onError).app.request(`/s/refuse/${code}`);
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

// The wire each sandbox-side surface answered before the domain had its own errors (transport/wire.ts).
const SANDBOX_SIDE: [DomainErrorCode, number, string][] = [
  ["invalid_token", 401, WIRE_ERRORS.invalidToken],
  ["rollout_disabled", 403, WIRE_ERRORS.rolloutDisabled],
  ["forbidden", 403, WIRE_ERRORS.forbidden],
  ["not_found", 404, WIRE_ERRORS.notFound],
  ["no_matching_request", 404, CAPABILITY_WIRE_ERRORS.noMatchingRequest],
  ["invalid_request", 400, WIRE_ERRORS.invalidRequest],
  ["invalid_repo", 400, WIRE_ERRORS.invalidRepo],
  ["invalid_idempotency_key", 400, WIRE_ERRORS.invalidIdempotencyKey],
  ["secret_hosts_mismatch", 400, CAPABILITY_WIRE_ERRORS.secretHostsMismatch],
  ["idempotency_conflict", 409, WIRE_ERRORS.idempotencyConflict],
  ["request_closed", 409, CAPABILITY_WIRE_ERRORS.requestClosed],
];
const SURFACES: [string, DomainAnswers, [DomainErrorCode, number, string][]][] = [
  ["ops", OPS_DOMAIN_ANSWERS, SANDBOX_SIDE],
  ["members", MEMBER_DOMAIN_ANSWERS, SANDBOX_SIDE],
  [
    "admin",
    ADMIN_DOMAIN_ANSWERS,
    SANDBOX_SIDE.filter(
      ([, , wire]) => !Object.values(CAPABILITY_WIRE_ERRORS).includes(wire as never),
    ).filter(([code]) => code !== "rollout_disabled" && code !== "forbidden"),
  ],
];

describe.each(SURFACES)("the %s surface answers domain errors from its table", (_name, answers, expected) => {
  it.each(expected)("%s is %i %s with the domain's reason", async (code, status, wire) => {
    const { status: got, body } = await refuse(mapDomainErrors(answers), code);
    expect([got, body.error, body.reason]).toEqual([status, wire, `${CANARY}: fix the thing`]);
    expect(typeof body.requestId).toBe("string");
  });

  it("a code from a domain function the surface never calls is 500 internal that names nothing", async () => {
    const absent = DOMAIN_ERROR_CODES.filter((code) => answers[code] === NOT_ON_THIS_SURFACE);
    expect(absent).toContain("too_many_running");
    for (const code of absent) {
      const { status, body } = await refuse(mapDomainErrors(answers), code);
      expect([status, body.error], code).toEqual([500, WIRE_ERRORS.internal]);
      expect(JSON.stringify(body)).not.toContain(CANARY);
    }
  });

  it("every code it answers with is one transport/wire.ts defines (the sandbox's and operator's clients know it)", () => {
    const known = new Set<string>([...Object.values(WIRE_ERRORS), ...Object.values(CAPABILITY_WIRE_ERRORS)]);
    expect(Object.values(answers).filter((answer) => !known.has(answer.error))).toEqual([]);
  });
});

describe("the public API and the listener", () => {
  it.each([
    ["not_found", 404, "not_found"],
    ["invalid_token", 401, "invalid_token"],
    ["ticket_closed", 409, "ticket_closed"],
  ] as const)("the API answers %s as %i %s with the domain's reason", async (code, status, wire) => {
    const { status: got, body } = await refuse(answerDomainErrors, code);
    expect([got, body.error, body.reason]).toEqual([status, wire, `${CANARY}: fix the thing`]);
  });

  it('"every 429 carries Retry-After": too_many_running from the domain gets it on the API', async () => {
    const { status, headers } = await refuse(answerDomainErrors, "too_many_running");
    expect([status, headers.get("retry-after")]).toEqual([429, "60"]);
  });

  it.each(["request_closed", "forbidden", "rollout_disabled"] as const)(
    "a sandbox-side code on the API (%s) is a 500 internal that names nothing",
    async (code) => {
      const { status, body } = await refuse(answerDomainErrors, code);
      expect([status, body.error]).toEqual([500, "internal"]);
      expect(JSON.stringify(body)).not.toContain(CANARY);
    },
  );

  it("a sub-app without a table answers domain errors as the public API (the MCP endpoint's bearer check)", async () => {
    const { status, body } = await refuse(undefined, "invalid_token");
    expect([status, body.error]).toEqual([401, "invalid_token"]);
  });

  it("an error that is not the domain's passes the hook untouched: a logged 500 whose body says nothing", async () => {
    const { app, lines } = listener(mapDomainErrors(OPS_DOMAIN_ANSWERS));
    const response = await app.request("/s/fail");
    const body = (await response.json()) as Record<string, unknown>;
    expect([response.status, body.error]).toEqual([500, "internal"]);
    expect(JSON.stringify(body)).not.toContain(CANARY);
    expect(lines.join("")).toContain("request failed");
  });
});
