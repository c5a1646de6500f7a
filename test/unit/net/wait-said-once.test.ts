// A 429 says how long to wait exactly once (issue 37 A.13): the service's reason already says it ("retry after
// 3 s", "wait for one to finish"), so the client adds no "wait a minute" of its own, and a Retry-After past the
// retry ceiling ends the retries without a second figure. A real loopback server answers, so the Retry-After
// header and the retries are the client's real ones.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeUnreachable, mapApiFailure } from "../../../src/client/api-errors.js";
import { createHttpClient } from "../../../src/net/http-client.js";
import { mapHttpFailure } from "../../../src/transport/errors.js";

let server: Server;
let base: string;
let answer: { retryAfter?: string; body: unknown } = { body: {} };

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(429, {
      "content-type": "application/json",
      ...(answer.retryAfter ? { "retry-after": answer.retryAfter } : {}),
    });
    res.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The message a client gets for the loopback's 429 (no real waiting: `sleep` returns at once). */
async function messageFor(classify: typeof mapApiFailure): Promise<string> {
  const client = createHttpClient({
    baseUrl: base,
    classify,
    unreachable: (doing, code, cause) => describeUnreachable(base, doing, code, cause),
    policy: { minBackoffMs: 1 },
    sleep: async () => {},
  });
  try {
    await client.request({ method: "POST", path: "/x", body: {}, doing: "starting the task" });
    throw new Error("expected a refusal");
  } catch (error) {
    return (error as Error).message;
  } finally {
    client.close();
  }
}

const waits = (message: string) => message.match(/wait|try again|retry/gi) ?? [];

describe("a 429 says its wait once", () => {
  it.each([
    [
      "the rate limit's reason (Retry-After 3, within the ceiling)",
      {
        retryAfter: "3",
        body: {
          error: "bad_request",
          reason: "over the rate limit of 120 POST requests a minute for this endpoint; retry after 3 s",
        },
      },
      /for this endpoint; retry after 3 s$/,
    ],
    [
      "the task limit's reason (Retry-After 60, past the ceiling)",
      {
        retryAfter: "60",
        body: {
          error: "too_many_running",
          reason:
            "you already have 5 tasks starting, running or queued here; wait for one to finish or stop one",
        },
      },
      /wait for one to finish or stop one$/,
    ],
    [
      "no reason, Retry-After 60: the header's figure",
      { retryAfter: "60", body: {} },
      /; try again in 60 s$/,
    ],
    ["no reason, no Retry-After: a minute", { body: {} }, /; try again in a minute$/],
  ])("%s", async (_name, given, ending) => {
    answer = given;
    for (const classify of [mapApiFailure, mapHttpFailure]) {
      const message = await messageFor(classify);
      expect(message).toMatch(ending);
      expect(waits(message), message).toHaveLength(1);
    }
  });
});
