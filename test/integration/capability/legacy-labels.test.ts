// "Legacy labels stored earlier are normalised on read": a row written by an older version with a legacy kind
// label reads back in the fixed vocabulary and is found by the exact-target comparison. In-process handler,
// real SQLite file.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HEADERS } from "../../../src/transport/wire.js";
import { type InProcessService, paths, startInProcess, TOKENS } from "./harness.js";

let service: InProcessService;
beforeAll(async () => {
  service = await startInProcess("legacy");
  const { db } = service;
  const at = new Date().toISOString();
  // What an older worker stored: a legacy label as the kind.
  await db.run(
    `INSERT INTO capability_requests (id, workspace_id, repository_id, repository, kind, target, target_form, reason, status, created_at, updated_at)
     VALUES ('cr_legacy', 'ws_acme', 'repo_api', 'acme/api', 'api-key', 'api.stripe.com', 'host', 'old request', 'open', ?, ?)`,
    [at, at],
  );
});
afterAll(async () => {
  await service?.close();
});

describe("legacy capability labels", () => {
  it("a stored legacy label reads back as a kind, and the same access asked for again matches it by target", async () => {
    const list = await service.app.handle(
      new Request(`http://baton.test${paths.list("ws_acme", "repo_api")}`, {
        headers: { [HEADERS.authorization]: `Bearer ${TOKENS.member}` },
      }),
    );
    const body = (await list.json()) as { requests: { requestId: string; kind: string }[] };
    expect(body.requests).toEqual([expect.objectContaining({ requestId: "cr_legacy", kind: "api_key" })]);

    const ops = await service.sandboxHeaders("eng_legacy_labels");
    const again = await service.app.handle(
      new Request(`http://baton.test${paths.requests}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...ops },
        body: JSON.stringify({
          repository: "acme/api",
          capability: "apikey",
          target: "https://API.stripe.com/v1",
          reason: "payments",
        }),
      }),
    );
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({
      matched: true,
      matchedBy: "target",
      request: { requestId: "cr_legacy", kind: "api_key" },
    });
  });
});
