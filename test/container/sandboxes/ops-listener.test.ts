// From inside a real box of a real `baton serve` (both drivers), `$BATON_OPS_URL` reaches the sandbox listener
// and nothing else: the operations transport works, and the admin API, the public API, the OpenAPI document and
// the egress proxy's internal route all answer 404 as if they did not exist (DESIGN "Handlers and listeners").
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROXY_INTERNAL_PATHS } from "../../../src/proxy/lease/wire.js";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import {
  ADMIN_PATHS,
  CreateSandboxResponseSchema,
  PROXY_REFUSALS_PATH,
  ROUTE_PATTERNS,
  SandboxExecResponseSchema,
} from "../../../src/transport/wire.js";
import { DRIVERS } from "../../helpers/sandbox-drivers.js";
import {
  ACTIVATION_SEED,
  FIXTURES,
  killLeftoverServes,
  type ServeHandle,
  startServe,
} from "../../helpers/serve.js";

// Each probe sends the credentials its surface takes (the box's own lease and turn token), so only the listener
// can turn it away. `curl -w` prints the status alone.
const PROBE = `
probe() { curl -s -o /dev/null -w "$1 $2 %{http_code}\\n" -X "$1" -H "authorization: Bearer $BATON_TURN_TOKEN" \\
  -H "baton-sandbox-lease: $BATON_SANDBOX_LEASE" -H "baton-admin-token: x" -H "content-type: application/json" \\
  --data-binary "$3" "$BATON_OPS_URL$2"; }
probe GET ${PROXY_REFUSALS_PATH} ""
probe POST ${ADMIN_PATHS.sandboxes} '{}'
probe GET ${API_PATHS.me} ""
probe GET ${ROUTE_PATTERNS.openapi} ""
probe POST ${PROXY_INTERNAL_PATHS.lease} '{"lease":"x"}'
probe GET ${ROUTE_PATTERNS.health} ""
`;

describe.each(DRIVERS)("inside a box of the %s driver", (driver) => {
  let serve: ServeHandle;
  let answers: string[];

  beforeAll(async () => {
    serve = await startServe({
      seed: ACTIVATION_SEED,
      args: ["--sandbox-driver", driver, "--checkout-root", `${FIXTURES}/repos`],
    });
    const owner = { workspaceId: "ws_acme", engagementId: `ops-listener-${driver}` };
    const made = await serve.admin(ADMIN_PATHS.sandboxes, {
      ...owner,
      repository: "acme/api",
      checkout: `${FIXTURES}/repos/acme-api`,
    });
    expect(made.status).toBe(201);
    const box = CreateSandboxResponseSchema.parse(await made.json());
    const ran = await serve.admin(ADMIN_PATHS.sandboxExec.replace(":id", box.sandboxId), {
      ...owner,
      command: ["bash", "-c", PROBE],
      env: box.env,
      timeoutSeconds: 60,
    });
    expect(ran.status).toBe(200);
    const result = SandboxExecResponseSchema.parse(await ran.json());
    expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
    answers = result.stdout.trim().split("\n");
  }, 180_000);

  afterAll(async () => {
    await serve?.stop();
    await killLeftoverServes();
  });

  it("$BATON_OPS_URL serves the operations transport", () => {
    expect(answers).toContain(`GET ${PROXY_REFUSALS_PATH} 200`);
  });

  it.each([
    ["POST", ADMIN_PATHS.sandboxes],
    ["GET", API_PATHS.me],
    ["GET", ROUTE_PATTERNS.openapi],
    ["POST", PROXY_INTERNAL_PATHS.lease],
    ["GET", ROUTE_PATTERNS.health],
  ])("$BATON_OPS_URL answers 404 for %s %s", (method, path) => {
    expect(answers).toContain(`${method} ${path} 404`);
  });
});
