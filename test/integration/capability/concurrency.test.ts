// Concurrent agents asking for the same access at once: the exact-target check is repeated inside the write
// transaction, so they share one request and owners get one e-mail. In-process handler, real SQLite file.
import { afterEach, describe, expect, it } from "vitest";
import type { RecordCapabilityResponse } from "../../../src/transport/wire.js";
import { paths, startInProcess } from "./harness.js";

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe("concurrent duplicates", () => {
  it("twenty simultaneous requests, half for one target (in two spellings), make one request for it and one e-mail", async () => {
    const service = await startInProcess("race");
    cleanup = service.close;
    const { app, db } = service;
    const ops = await service.sandboxHeaders("eng_race");
    const post = async (target: string) => {
      const response = await app.handle(
        new Request(`http://baton.test${paths.requests}`, {
          method: "POST",
          headers: { "content-type": "application/json", ...ops },
          body: JSON.stringify({ repository: "acme/api", capability: "registry", target, reason: "npm 401" }),
        }),
      );
      return { status: response.status, body: (await response.json()) as RecordCapabilityResponse };
    };
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(
          i % 2 === 0
            ? i % 4 === 0
              ? "https://Registry.Example.com:443/x"
              : "registry.example.com"
            : `mirror-${i}.example.com`,
        ),
      ),
    );
    const shared = answers.filter((_, i) => i % 2 === 0);
    expect(new Set(shared.map((a) => a.body.request.requestId)).size).toBe(1);
    expect(shared.filter((a) => a.status === 201)).toHaveLength(1);
    const rows = await db.all("SELECT target FROM capability_requests WHERE target = 'registry.example.com'");
    expect(rows).toHaveLength(1);
    expect(await db.get("SELECT COUNT(*) AS n FROM capability_requests")).toEqual({ n: 11 });
    const notes = await db.get("SELECT COUNT(*) AS n FROM notifications WHERE request_id = ?", [
      shared[0]!.body.request.requestId,
    ]);
    expect(notes).toEqual({ n: 1 });
  });
});
