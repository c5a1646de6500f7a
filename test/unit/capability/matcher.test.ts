import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  authoriseSecretForTarget,
  builtinMatcher,
  type CapabilityMatcher,
  createHttpMatcher,
  decideMerge,
  type MatchQuery,
} from "../../../src/capability/index.js";

const query: MatchQuery = {
  candidate: {
    kind: "data_access",
    target: "Orders DB (prod)",
    targetForm: "name",
    reason: "need read access",
  },
  existing: [
    { requestId: "cr_1", kind: "data_access", target: "orders db prod", targetForm: "name", reason: "x" },
    { requestId: "cr_2", kind: "api_key", target: "api.example.com", targetForm: "host", reason: "y" },
  ],
};
const answering = (requestId: string | null, confidence: number): CapabilityMatcher => ({
  name: "fixed",
  match: async () => ({ requestId, confidence }),
});

describe("merge decision: only confidence >= 0.90 on an existing request merges", () => {
  it.each([
    [0.9, "merged", "cr_1"],
    [0.95, "merged", "cr_1"],
    [0.89, "low_confidence", null],
    [0, "low_confidence", null],
  ])("confidence %s -> %s", async (confidence, outcome, id) => {
    expect(await decideMerge(answering("cr_1", confidence), query)).toMatchObject({ outcome, requestId: id });
  });
  it("an id that is not one of the candidates never merges", async () => {
    expect(await decideMerge(answering("cr_999", 1), query)).toMatchObject({
      outcome: "error",
      requestId: null,
    });
  });
  it("an error never merges", async () => {
    const failing: CapabilityMatcher = { name: "x", match: async () => Promise.reject(new Error("boom")) };
    expect(await decideMerge(failing, query)).toMatchObject({ outcome: "error", requestId: null });
  });
  it("a matcher that ignores its signal is cut off at the budget", async () => {
    const slow: CapabilityMatcher = {
      name: "slow",
      match: () =>
        new Promise((resolve) => setTimeout(() => resolve({ requestId: "cr_1", confidence: 1 }), 1000)),
    };
    const started = Date.now();
    expect(await decideMerge(slow, query, 100)).toMatchObject({ outcome: "timeout", requestId: null });
    expect(Date.now() - started).toBeLessThan(900);
  });
  it("the built-in matcher merges same-kind names equal after folding case and punctuation", async () => {
    expect(await decideMerge(builtinMatcher, query)).toMatchObject({ outcome: "merged", requestId: "cr_1" });
    const otherKind = { ...query, candidate: { ...query.candidate, kind: "other" as const } };
    expect(await decideMerge(builtinMatcher, otherKind)).toMatchObject({ outcome: "no_match" });
  });
});

describe("HTTP matcher adapter (a real HTTP server on 127.0.0.1)", () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r) ?? r(undefined));
    server = undefined;
  });
  async function serve(handler: (body: unknown, auth: string | undefined) => [number, unknown, number?]) {
    server = createServer((req, res) => {
      let raw = "";
      req.on("data", (c) => {
        raw += c;
      });
      req.on("end", () => {
        const [status, body, delay] = handler(JSON.parse(raw), req.headers.authorization);
        setTimeout(() => {
          res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
        }, delay ?? 0);
      });
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/match`;
  }

  it("sends the query with the bearer token and merges a confident answer", async () => {
    let seen: unknown;
    const url = await serve((body, auth) => {
      seen = { body, auth };
      return [200, { requestId: "cr_1", confidence: 0.93 }];
    });
    const decision = await decideMerge(createHttpMatcher({ url, token: "matcher-token" }), query);
    expect(decision).toMatchObject({ outcome: "merged", requestId: "cr_1" });
    expect(seen).toMatchObject({
      auth: "Bearer matcher-token",
      body: { candidate: { kind: "data_access" } },
    });
  });
  it("missing credentials: unavailable, no call made", async () => {
    let calls = 0;
    const url = await serve(() => {
      calls += 1;
      return [200, { requestId: "cr_1", confidence: 1 }];
    });
    expect(await decideMerge(createHttpMatcher({ url, token: undefined }), query)).toMatchObject({
      outcome: "unavailable",
    });
    expect(calls).toBe(0);
  });
  it("a 500 or a malformed body never merges", async () => {
    const url = await serve(() => [500, { error: "x" }]);
    expect(await decideMerge(createHttpMatcher({ url, token: "t" }), query)).toMatchObject({
      outcome: "error",
    });
  });
  it("a slow endpoint is aborted at the budget", async () => {
    const url = await serve(() => [200, { requestId: "cr_1", confidence: 1 }, 2000]);
    expect(await decideMerge(createHttpMatcher({ url, token: "t" }), query, 200)).toMatchObject({
      outcome: "timeout",
    });
  });
});

describe("a secret's allowed hosts must authorise the requested resource", () => {
  it.each([
    [["registry.example.com"], "registry.example.com", true],
    [["*.example.com"], "registry.example.com", true],
    [["*.example.com"], "example.com", false],
    [["other.example.com"], "registry.example.com", false],
    [[], "registry.example.com", false],
  ])("%j vs host %s -> %s", (hosts, host, ok) => {
    expect(authoriseSecretForTarget(hosts, { form: "host", value: host }).authorised).toBe(ok);
  });
  it("a non-URL name is authorised by a secret with its own hosts and grants no host", () => {
    expect(
      authoriseSecretForTarget(["db.example.com"], { form: "name", value: "orders db" }).authorised,
    ).toBe(true);
  });
});
