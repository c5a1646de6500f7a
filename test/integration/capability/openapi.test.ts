// The capability routes' real responses validate against openapi/baton-ops.json. In-process: the real handler
// over a real SQLite file, called without a socket (the hono model); no SMTP here, so e-mail stays queued.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HEADERS, CAPABILITY_ROUTE_PATTERNS as P } from "../../../src/transport/wire.js";
import { createSchemaValidator } from "../../helpers/ajv.js";
import { PROJECT_ROOT } from "../../helpers/cli.js";
import { CANARIES, type InProcessService, paths, startInProcess, TOKENS } from "./harness.js";

const document = JSON.parse(readFileSync(join(PROJECT_ROOT, "openapi", "baton-ops.json"), "utf8"));
const ajv = createSchemaValidator({ allErrors: true });
ajv.addSchema(document, "baton-ops");

let service: InProcessService;
let ops: Record<string, string>;
const seen = new Set<string>();
const bodies: string[] = [];

async function call(
  method: string,
  pattern: string,
  path: string,
  init: { headers?: Record<string, string>; body?: unknown } = {},
) {
  const response = await service.app.handle(
    new Request(`http://baton.test${path}`, {
      method,
      headers: { "content-type": "application/json", ...init.headers },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    }),
  );
  const text = await response.text();
  bodies.push(text);
  const openApiPath = pattern.replace(/:([A-Za-z]+)/g, "{$1}");
  const declared = document.paths[openApiPath]?.[method.toLowerCase()]?.responses[String(response.status)];
  expect(declared, `${method} ${openApiPath} ${response.status} is not in the document`).toBeDefined();
  const validate = ajv.getSchema(`baton-ops${declared.content["application/json"].schema.$ref}`)!;
  const body = JSON.parse(text);
  expect(validate(body) ? [] : validate.errors, `${method} ${openApiPath} ${response.status}`).toEqual([]);
  seen.add(`${method} ${openApiPath} ${response.status}`);
  return { status: response.status, body };
}
const member = (token: string) => ({ headers: { [HEADERS.authorization]: `Bearer ${token}` } });

beforeAll(async () => {
  service = await startInProcess("openapi");
  ops = await service.sandboxHeaders("eng_openapi");
});
afterAll(async () => {
  await service?.close();
});

describe("capability routes against the OpenAPI document", () => {
  it("every status the routes give is declared and its body validates", async () => {
    const record = {
      repository: "acme/api",
      capability: "npm",
      target: "registry.example.com",
      reason: "npm 401",
    };
    const created = await call("POST", P.requests, paths.requests, { headers: ops, body: record });
    expect(created.status).toBe(201);
    const id = created.body.request.requestId as string;
    expect((await call("POST", P.requests, paths.requests, { headers: ops, body: record })).status).toBe(200);
    expect(
      (
        await call("POST", P.requests, paths.requests, {
          headers: ops,
          body: { ...record, target: "NPM_TOKEN" },
        })
      ).status,
    ).toBe(400);
    expect((await call("POST", P.requests, paths.requests, { headers: {}, body: record })).status).toBe(401);
    expect(
      (
        await call("POST", P.requests, paths.requests, {
          headers: ops,
          body: { ...record, target: "x.example.com", reason: undefined, evidence: { outcome: "network" } },
        })
      ).status,
    ).toBe(404);
    expect((await call("GET", P.request, paths.request(id), { headers: ops })).status).toBe(200);
    expect((await call("GET", P.request, paths.request("cr_missing"), { headers: ops })).status).toBe(404);
    expect(
      (await call("POST", P.evidence, paths.evidence(id), { headers: ops, body: { outcome: "provider" } }))
        .status,
    ).toBe(200);
    expect(
      (
        await call("POST", P.evidence, paths.evidence(id), {
          headers: ops,
          body: { outcome: "network", status: 401 },
        })
      ).status,
    ).toBe(400);
    expect((await call("POST", P.redeliver, paths.redeliver(id), { headers: ops })).status).toBe(200);

    expect((await call("GET", P.list, paths.list("ws_acme", "repo_api"), member(TOKENS.member))).status).toBe(
      200,
    );
    expect(
      (await call("GET", P.list, paths.list("ws_acme", "repo_api"), member(TOKENS.outsider))).status,
    ).toBe(404);
    expect(
      (await call("GET", P.list, paths.list("ws_acme", "repo_api"), member("btn_unknown_000000000000000")))
        .status,
    ).toBe(401);
    expect(
      (await call("GET", P.list, paths.list("ws_legacy", "repo_legacy"), member(TOKENS.legacyOwner))).status,
    ).toBe(403);
    const secret = { value: CANARIES[1], allowedHosts: ["registry.example.com"], capabilityRequestId: id };
    expect(
      (
        await call("PUT", P.secret, paths.secret("ws_acme", "repo_api", "NPM_TOKEN"), {
          ...member(TOKENS.owner),
          body: { ...secret, allowedHosts: ["elsewhere.example.com"] },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call("PUT", P.secret, paths.secret("ws_acme", "repo_api", "NPM_TOKEN"), {
          ...member(TOKENS.member),
          body: secret,
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await call("PUT", P.secret, paths.secret("ws_acme", "repo_api", "NPM_TOKEN"), {
          ...member(TOKENS.owner),
          body: secret,
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await call("PUT", P.secret, paths.secret("ws_acme", "repo_api", "NPM_TOKEN"), {
          ...member(TOKENS.admin),
          body: secret,
        })
      ).status,
    ).toBe(200);
    expect(
      (await call("POST", P.dismiss, paths.dismiss("ws_acme", "repo_api", id), member(TOKENS.member))).status,
    ).toBe(403);
    expect(
      (await call("POST", P.dismiss, paths.dismiss("ws_acme", "repo_api", id), member(TOKENS.owner))).status,
    ).toBe(200);
    expect(
      (
        await call("PUT", P.secret, paths.secret("ws_acme", "repo_api", "NPM_TOKEN"), {
          ...member(TOKENS.owner),
          body: secret,
        })
      ).status,
    ).toBe(409);
    expect(seen.size).toBeGreaterThanOrEqual(18);
  });

  it("no response body carries a secret value", () => {
    for (const canary of CANARIES) expect(bodies.join("\n")).not.toContain(canary);
  });
});
