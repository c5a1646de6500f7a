// Concurrent duplicates of one capability request (same Idempotency-Key, same body) while a slow matcher holds
// every one of them past the first lookup: all must get the first answer, status and body, and the work is
// done once. Real `baton serve` child, real matcher endpoint on 127.0.0.1, 20 concurrent HTTP requests.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RecordCapabilityResponse } from "../../../src/transport/wire.js";
import { killLeftoverServes } from "../../helpers/serve.js";
import { paths, startWorld, type World } from "./harness.js";

const MATCHER_DELAY_MS = 400;
let matcherCalls = 0;
let endpoint: Server;
let world: World;

beforeAll(async () => {
  // A model endpoint that always answers "no match", slowly: long enough for all 20 requests to be waiting
  // on it at once, well inside the 3-second budget.
  endpoint = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      matcherCalls++;
      setTimeout(() => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ requestId: null, confidence: 0 }));
      }, MATCHER_DELAY_MS);
    });
  });
  await new Promise<void>((r) => endpoint.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/match`;
  world = await startWorld({ args: ["--matcher-url", url], env: { BATON_MATCHER_TOKEN: "matcher-token" } });
  // One existing request, so the matcher is consulted for a new target.
  const first = await world.request([
    "--capability",
    "registry",
    "--target",
    "npm.acme.test",
    "--reason",
    "npm install needs the private registry",
  ]);
  expect(first.exitCode, first.stderr).toBe(0);
});
afterAll(async () => {
  await world?.close();
  await killLeftoverServes();
  endpoint?.closeAllConnections();
  await new Promise((r) => endpoint?.close(r));
});

async function post(key: string, target: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${world.serve.opsUrl}${paths.requests}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${world.sandbox.env.BATON_TURN_TOKEN}`,
      "baton-sandbox-lease": world.sandbox.env.BATON_SANDBOX_LEASE!,
      "idempotency-key": key,
      "content-type": "application/json",
    },
    body: JSON.stringify({
      repository: "acme/api",
      capability: "data_access",
      target,
      reason: "integration tests read the orders table",
    }),
  });
  return { status: response.status, body: await response.json() };
}

describe("concurrent duplicates with one Idempotency-Key", () => {
  it("twenty at once behind a slow matcher all get the first answer (201 and the same body); one request, one e-mail", async () => {
    const callsBefore = matcherCalls;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => post("dup-key-1", "orders db (prod)")),
    );
    // They really were concurrent: more than one reached the matcher before the first committed.
    expect(matcherCalls - callsBefore).toBeGreaterThan(1);
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    const first = answers[0]!.body as RecordCapabilityResponse;
    for (const answer of answers) expect(answer.body).toEqual(first);
    expect(first).toMatchObject({ matched: false, request: { target: "orders db (prod)", status: "open" } });

    const rows = await world.rows("SELECT id FROM capability_requests WHERE target = 'orders db (prod)'");
    expect(rows).toEqual([{ id: first.request.requestId }]);
    const notes = await world.rows(
      `SELECT COUNT(*) AS n FROM notifications WHERE request_id = '${first.request.requestId}'`,
    );
    expect(notes).toEqual([{ n: 1 }]);

    // A later retry with the key gets the same answer again; other content with it is refused.
    expect(await post("dup-key-1", "orders db (prod)")).toEqual({ status: 201, body: first });
    const other = await post("dup-key-1", "orders db (staging)");
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ error: "idempotency_conflict" });
  });
});
