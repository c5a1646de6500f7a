// The Linear adapter's GraphQL goes through @linear/sdk's client (issue 35 16b), seen from a loopback server that
// records each request raw (no Linear is reachable from here; the protocol fake answers by operation and does not
// keep the raw body): the request is the SDK's ({query, variables}, no operationName, the bearer token), Linear's
// rate limit as the SDK classifies it (extensions.type `ratelimited`, RatelimitedLinearError) is waited out, and
// an http: API URL other than loopback's is refused before any request, as the SDK refuses it.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createGraphqlClient } from "../../../src/server/adapters/tracker/linear/index.js";
import { FIND_ISSUE } from "../../../src/server/adapters/tracker/linear/queries.js";

interface Seen {
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
}
const seen: Seen[] = [];
/** What the next requests are answered, in order; then a found issue. */
let script: { status: number; headers?: Record<string, string>; body: unknown }[] = [];
const ISSUE = {
  id: "iss_1",
  identifier: "LIN-1",
  title: "Login page",
  description: null,
  url: "https://linear.app/acme/issue/LIN-1",
  state: { type: "started" },
  assignee: null,
};

let server: Server;
let url = "";
beforeAll(async () => {
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    seen.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
    const next = script.shift() ?? { status: 200, body: { data: { issue: ISSUE } } };
    res.writeHead(next.status, { "content-type": "application/json", ...next.headers });
    res.end(JSON.stringify(next.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});
beforeEach(() => {
  seen.length = 0;
  script = [];
});

const waits: number[] = [];
const graphql = (apiUrl = url) =>
  createGraphqlClient({
    apiUrl,
    policy: { minBackoffMs: 1 },
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
const find = (apiUrl?: string) =>
  graphql(apiUrl)("lin_oauth_token", { ...FIND_ISSUE, variables: { id: "LIN-1" } });

describe("the adapter's GraphQL is @linear/sdk's client", () => {
  it("POST <apiUrl>/graphql with the SDK's body: the document and variables, no operationName", async () => {
    expect((await find()).issue?.identifier).toBe("LIN-1");
    expect(seen).toHaveLength(1);
    expect(Object.keys(seen[0]!.body).sort()).toEqual(["query", "variables"]);
    expect(seen[0]!.body).toEqual({ query: FIND_ISSUE.query, variables: { id: "LIN-1" } });
    expect(seen[0]!.headers.authorization).toBe("Bearer lin_oauth_token");
  });

  it("a rate limit Linear types as `ratelimited` (the SDK's RatelimitedLinearError) is waited out", async () => {
    waits.length = 0;
    script = [
      {
        status: 400,
        headers: { "x-ratelimit-requests-reset": String(Date.now() + 5_000) },
        body: { errors: [{ message: "Rate limit exceeded", extensions: { type: "ratelimited" } }] },
      },
    ];
    expect((await find()).issue?.identifier).toBe("LIN-1");
    expect(seen).toHaveLength(2);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(3_000);
  });

  it("an http: API URL other than loopback's fails at once saying so, with no request made", async () => {
    const error = await find("http://tracker.example.test").then(
      () => new Error("resolved"),
      (e: unknown) => e as Error,
    );
    expect(error.message).toMatch(/^the tracker's BatonFindIssue failed: .*HTTPS/);
    expect(seen).toHaveLength(0);
  });
});
