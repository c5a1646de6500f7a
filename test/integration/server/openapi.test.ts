// The handler's real responses validate against openapi/baton-ops.json, and that file is what the code describes.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../../../src/server/openapi-document.js";
import { ADMIN_PATHS, HEADERS, type Operation, PATHS, ROUTE_PATTERNS } from "../../../src/transport/wire.js";
import { createSchemaValidator } from "../../helpers/ajv.js";
import { PROJECT_ROOT } from "../../helpers/cli.js";
import { createHarness, type Harness, opsHeaders } from "./harness.js";

const committed = JSON.parse(readFileSync(join(PROJECT_ROOT, "openapi", "baton-ops.json"), "utf8"));

interface OpenApi {
  paths: Record<
    string,
    Record<
      string,
      { responses: Record<string, { content: { "application/json": { schema: { $ref: string } } } }> }
    >
  >;
}

function validator(document: OpenApi) {
  const ajv = createSchemaValidator({ allErrors: true });
  ajv.addSchema(document, "baton-ops");
  // biome-ignore lint/suspicious/noExplicitAny: each call site knows the shape the document just validated
  return async (pattern: string, method: string, response: Response): Promise<any> => {
    const openApiPath = pattern.replace(/:([A-Za-z]+)/g, "{$1}");
    const declared = document.paths[openApiPath]?.[method]?.responses[String(response.status)];
    expect(declared, `${method} ${openApiPath} ${response.status} is not in the document`).toBeDefined();
    const ref = declared!.content["application/json"].schema.$ref;
    const validate = ajv.getSchema(`baton-ops${ref}`)!;
    const body: unknown = await response.json();
    const ok = validate(body);
    expect(validate.errors ?? [], `${method} ${openApiPath} ${response.status}`).toEqual([]);
    expect(await ok).toBe(true);
    return body;
  };
}

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("OpenAPI 3.1 document", () => {
  it("openapi/baton-ops.json is up to date (regenerate: npm run build && node scripts/generate-openapi.mjs)", () => {
    expect(committed).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
    expect(committed.openapi).toBe("3.1.0");
  });

  it("every response the handler gives validates against the document", async () => {
    harness = await createHarness({ activationDelayMs: 50 });
    const check = validator(committed);
    const admin = (path: string, body: unknown, token = "test-admin-token-0123456789") =>
      harness!.request("POST", path, { headers: { [HEADERS.adminToken]: token }, body });

    await check(ROUTE_PATTERNS.health, "get", await harness.request("GET", ROUTE_PATTERNS.health));
    // The service describes itself at /openapi.json (reference section 9) with the same document.
    expect(await (await harness.request("GET", ROUTE_PATTERNS.openapi)).json()).toEqual(committed);
    await check(
      ADMIN_PATHS.seed,
      "post",
      await admin(ADMIN_PATHS.seed, { workspaces: [{ id: "ws_new", name: "New" }] }),
    );
    await check(ADMIN_PATHS.seed, "post", await admin(ADMIN_PATHS.seed, { workspaces: "nope" }));
    await check(ADMIN_PATHS.seed, "post", await admin(ADMIN_PATHS.seed, { workspaces: [] }, "wrong"));
    const creds = await check(
      ADMIN_PATHS.sandboxes,
      "post",
      await admin(ADMIN_PATHS.sandboxes, { workspaceId: "ws_acme", engagementId: "eng-1" }),
    );
    await check(
      ADMIN_PATHS.sandboxes,
      "post",
      await admin(ADMIN_PATHS.sandboxes, { workspaceId: "ws_none", engagementId: "e" }),
    );
    await check(
      ADMIN_PATHS.sandboxes,
      "post",
      await admin(ADMIN_PATHS.sandboxes, { workspaceId: "ws_legacy", engagementId: "eng-1" }),
    );
    await check(
      ADMIN_PATHS.turns,
      "post",
      await admin(ADMIN_PATHS.turns, { engagementId: "eng-1", ttlSeconds: 60 }),
    );
    await check(ADMIN_PATHS.turns, "post", await admin(ADMIN_PATHS.turns, { engagementId: "eng-none" }));

    const pending = (await check(
      ROUTE_PATTERNS.operations,
      "post",
      await harness.start(creds, "acme/api", "k1"),
    )) as Operation;
    await check(ROUTE_PATTERNS.operations, "post", await harness.start(creds, "acme/web", "k1"));
    await check(ROUTE_PATTERNS.operations, "post", await harness.start(creds, "acme/none", "k2"));
    await check(
      ROUTE_PATTERNS.operations,
      "post",
      await harness.request("POST", PATHS.operations, {
        headers: opsHeaders(creds),
        body: { kind: "env.activate", repository: "acme/api" },
      }),
    );
    await check(
      ROUTE_PATTERNS.operationOverlay,
      "get",
      await harness.request("GET", PATHS.operationOverlay(pending.id), { headers: opsHeaders(creds) }),
    );
    await check(ROUTE_PATTERNS.operation, "get", await harness.get(creds, pending.id));
    await harness.settle(creds, pending.id);
    await check(ROUTE_PATTERNS.operation, "get", await harness.get(creds, pending.id));
    await check(ROUTE_PATTERNS.operation, "get", await harness.get(creds, "op_missing"));
    await check(ROUTE_PATTERNS.operation, "get", await harness.get(creds, pending.id, -5));
    await check(
      ROUTE_PATTERNS.operationOverlay,
      "get",
      await harness.request("GET", PATHS.operationOverlay(pending.id), { headers: opsHeaders(creds) }),
    );
    await check(ROUTE_PATTERNS.operation, "get", await harness.request("GET", PATHS.operation(pending.id)));

    // Managed startup in its closed states validates too: acme/web has no environment version.
    const web = (await (await harness.start(creds, "acme/web", "k3")).json()) as Operation;
    await harness.settle(creds, web.id);
    const webDone = (await check(
      ROUTE_PATTERNS.operation,
      "get",
      await harness.get(creds, web.id),
    )) as Operation;
    expect(webDone.result?.managedStartup).toMatchObject({ state: "unavailable" });

    const legacy = await check(
      ADMIN_PATHS.sandboxes,
      "post",
      await admin(ADMIN_PATHS.sandboxes, { workspaceId: "ws_legacy", engagementId: "eng-legacy" }),
    );
    await check(ROUTE_PATTERNS.operations, "post", await harness.start(legacy, "legacy/app", "k4"));
    await check(
      ADMIN_PATHS.disconnectRepository,
      "post",
      await admin(ADMIN_PATHS.disconnectRepository, { workspaceId: "ws_acme", repository: "acme/web" }),
    );
    await check(
      ADMIN_PATHS.disconnectRepository,
      "post",
      await admin(ADMIN_PATHS.disconnectRepository, { workspaceId: "ws_acme", repository: "acme/none" }),
    );
  });
});
