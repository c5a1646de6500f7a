// `PUT .../secrets/:name` refuses a value no environment variable can hold, like the seed does: a NUL (execve cuts
// there), a lone UTF-16 surrogate (`\ud800` in JSON decodes to one; stored as UTF-8 it would silently become
// U+FFFD), and raw bytes that are not UTF-8. 400 naming the field, never the value; nothing is written.
// In-process handler, real SQLite file.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { secretScope } from "../../../src/server/domain/secrets/index.js";
import { HEADERS } from "../../../src/transport/wire.js";
import { CANARIES, type InProcessService, paths, startInProcess, TOKENS } from "./harness.js";

let service: InProcessService;
beforeAll(async () => {
  service = await startInProcess("secret-values");
});
afterAll(async () => {
  await service?.close();
});

async function put(name: string, body: string | Uint8Array) {
  const response = await service.app.http.request(paths.secret("ws_acme", "repo_api", name), {
    method: "PUT",
    headers: { "content-type": "application/json", [HEADERS.authorization]: `Bearer ${TOKENS.owner}` },
    body,
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as { error?: string; reason?: string } };
}
// The store keeps the value sealed (secrets at rest); the service's own key opens it for the comparison.
const stored = async (name: string) => {
  const row = (await service.db.get(
    "SELECT value_sealed FROM secrets WHERE repository_id = 'repo_api' AND name = ?",
    [name],
  )) as { value_sealed: string } | undefined;
  return row && { value: service.app.deps.secretBox.open(secretScope("repo_api", name), row.value_sealed) };
};
const canary = CANARIES[1]!;

describe("secret values", () => {
  it.each([
    [
      "a NUL",
      `"${canary}\\u0000tail"`,
      "secret: value: contains a NUL byte, which no environment variable can hold",
    ],
    [
      "a lone high surrogate",
      `"${canary}\\ud800tail"`,
      "secret: value: contains a lone UTF-16 surrogate; send well-formed Unicode",
    ],
    [
      "a lone low surrogate",
      `"${canary}\\udc00"`,
      "secret: value: contains a lone UTF-16 surrogate; send well-formed Unicode",
    ],
  ])("a value containing %s is 400 naming the field, and nothing is stored", async (_what, value, reason) => {
    const answer = await put("NEW_SECRET", `{"value": ${value}, "allowedHosts": ["db.acme.test"]}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: "invalid_request", reason });
    expect(answer.text).not.toContain(canary);
    expect(await stored("NEW_SECRET")).toBeUndefined();
  });

  it("raw bytes that are not UTF-8 are refused, never stored as U+FFFD", async () => {
    const head = new TextEncoder().encode(`{"value": "${canary}`);
    const tail = new TextEncoder().encode(`", "allowedHosts": ["db.acme.test"]}`);
    const answer = await put("NEW_SECRET", new Uint8Array([...head, 0xed, 0xa0, 0x80, ...tail]));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      error: "invalid_request",
      reason: "secret is not valid UTF-8; send JSON encoded as UTF-8",
    });
    expect(await stored("NEW_SECRET")).toBeUndefined();
  });

  it("the longest value the schema allows, every character JSON-escaped, is under the body limit", async () => {
    const value = "\\u0001".repeat(65_536);
    const answer = await put("LONG_SECRET", `{"value": "${value}", "allowedHosts": ["db.acme.test"]}`);
    expect(answer.status).toBe(201);
    expect((await stored("LONG_SECRET"))?.value).toBe("\u0001".repeat(65_536));
  });

  it("a well-formed value outside the BMP (an escaped surrogate pair) is stored as sent", async () => {
    const answer = await put(
      "EMOJI_SECRET",
      `{"value": "${canary}\\ud83d\\ude00", "allowedHosts": ["db.acme.test"]}`,
    );
    expect(answer.status).toBe(201);
    expect((await stored("EMOJI_SECRET"))?.value).toBe(`${canary}\u{1F600}`);
    expect(answer.text).not.toContain(canary);
  });
});
