// The REST client's decisions (pure, table-driven): when GitHub's answer says a rate limit was hit, how long to
// wait, and when to give up (docs "Rate limits for the REST API": primary limit `x-ratelimit-remaining: 0` until
// `x-ratelimit-reset`; secondary limit `retry-after`, or at least a minute without it).
import { describe, expect, it } from "vitest";
import { tokenDestinationsOf } from "../../../../../../src/server/adapters/codehost/github/adapter.js";
import { isTokenFresh } from "../../../../../../src/server/adapters/codehost/github/installation-tokens.js";
import { searchQueryOf } from "../../../../../../src/server/adapters/codehost/github/issues.js";
import {
  classifyRateLimit,
  decideRateLimitWait,
} from "../../../../../../src/server/adapters/codehost/github/rate-limit.js";
import { nextPageOf, readAnswer } from "../../../../../../src/server/adapters/codehost/github/rest.js";
import { InstallationSchema } from "../../../../../../src/server/adapters/codehost/github/schemas.js";

const NOW = new Date("2026-11-26T12:00:00Z");
const NOW_S = NOW.getTime() / 1000;
const answer = (status: number, headers: Record<string, string>, message?: string) => ({
  status,
  header: (name: string) => headers[name] ?? null,
  message,
});

describe("classifyRateLimit", () => {
  it.each([
    ["a 200 is no limit, even with remaining 0", answer(200, { "x-ratelimit-remaining": "0" }), "none", 0],
    ["a 404 is no limit", answer(404, {}), "none", 0],
    [
      "a 403 without limit headers or message is a plain refusal",
      answer(403, {}, "Resource not accessible"),
      "none",
      0,
    ],
    [
      "403 with remaining 0: primary, wait until x-ratelimit-reset",
      answer(403, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(NOW_S + 30) }),
      "primary",
      30_000,
    ],
    [
      "429 with remaining 0: primary",
      answer(429, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(NOW_S + 5) }),
      "primary",
      5_000,
    ],
    [
      "a reset already past: no wait",
      answer(403, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(NOW_S - 5) }),
      "primary",
      0,
    ],
    [
      "403 with retry-after: secondary, wait retry-after seconds",
      answer(403, { "retry-after": "7" }),
      "secondary",
      7_000,
    ],
    ["429 with retry-after: secondary", answer(429, { "retry-after": "2" }), "secondary", 2_000],
    [
      "retry-after wins over reset when both are sent",
      answer(403, {
        "retry-after": "3",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": String(NOW_S + 900),
      }),
      "primary",
      3_000,
    ],
    [
      "a 'secondary rate limit' message without retry-after: at least a minute",
      answer(403, {}, "You have exceeded a secondary rate limit."),
      "secondary",
      60_000,
    ],
  ])("%s", (_rule, facts, kind, waitMs) => {
    const limit = classifyRateLimit(facts, NOW);
    expect(limit.kind).toBe(kind);
    if (limit.kind !== "none") expect(limit.waitMs).toBe(waitMs);
  });
});

describe("decideRateLimitWait", () => {
  const limit = (waitMs: number) => ({
    kind: "primary" as const,
    waitMs,
    until: new Date(NOW.getTime() + waitMs),
  });
  it.each([
    ["a wait within the bound is taken", 1_000, 60_000, true],
    ["a wait equal to the bound is taken", 60_000, 60_000, true],
    ["a wait past the bound fails", 60_001, 60_000, false],
  ])("%s", (_rule, waitMs, maxWaitMs, waits) => {
    expect(decideRateLimitWait(limit(waitMs), maxWaitMs).wait).toBe(waits);
  });

  it("giving up says when to try again", () => {
    const decision = decideRateLimitWait(limit(3_600_000), 60_000);
    expect(decision).toEqual({
      wait: false,
      message: expect.stringContaining("try again after 2026-11-26T13:00:00.000Z"),
    });
  });
});

describe("the REST client's other rules", () => {
  it.each([
    [
      "the next page of a Link header",
      '<https://api.x/installation/repositories?page=2>; rel="next", <https://api.x/installation/repositories?page=3>; rel="last"',
      "https://api.x/installation/repositories?page=2",
    ],
    [
      "next after last",
      '<https://api.x/r?page=3>; rel="last", <https://api.x/r?page=2>; rel="next"',
      "https://api.x/r?page=2",
    ],
    ["no next on the last page", '<https://api.x/r?page=1>; rel="first"', undefined],
    ["no Link header", null, undefined],
  ])("nextPageOf: %s", (_rule, link, next) => {
    expect(nextPageOf(link)).toBe(next);
  });

  it.each([
    ["a token expiring in an hour is fresh", 3_600_000, true],
    ["a token expiring in six minutes is fresh", 360_000, true],
    ["a token expiring in five minutes is refreshed (5-minute margin)", 300_000, false],
    ["an expired token is refreshed", -1_000, false],
  ])("isTokenFresh: %s", (_rule, inMs, fresh) => {
    expect(isTokenFresh({ token: "t", expiresAt: new Date(NOW.getTime() + inMs) }, NOW)).toBe(fresh);
  });

  it.each([
    ["terms then qualifiers", "login bug", ["acme/web"], "login bug is:issue is:open repo:acme/web"],
    ["no terms", null, ["acme/web", "acme/api"], "is:issue is:open repo:acme/web repo:acme/api"],
  ])("searchQueryOf: %s", (_rule, q, repos, query) => {
    expect(searchQueryOf(q, repos)).toBe(query);
  });

  it.each([
    [
      "github.com",
      { webUrl: "https://github.com", apiUrl: "https://api.github.com" },
      ["https://github.com/", "https://api.github.com/"],
    ],
    [
      "an Enterprise server: one host",
      { webUrl: "https://ghe.acme.test", apiUrl: "https://ghe.acme.test/api/v3" },
      ["https://ghe.acme.test/"],
    ],
  ])(
    "tokenDestinationsOf (DESIGN 'Approved destinations of a secret'): %s",
    (_rule, settings, destinations) => {
      expect(tokenDestinationsOf(settings)).toEqual(destinations);
    },
  );

  it.each([
    ["a body of the documented shape is read", 200, { id: 5, account: { login: "acme" } }, null],
    [
      "another status is a CodehostError naming it and GitHub's message",
      403,
      { message: "Forbidden" },
      /refused to read it \(403: Forbidden\)/,
    ],
    [
      "a body of another shape is a CodehostError naming where",
      200,
      { id: "5", account: null },
      /not what its API documents \(at id\)/,
    ],
  ])("readAnswer: %s", (_rule, status, body, error) => {
    const read = () =>
      readAnswer(InstallationSchema, { status, headers: new Headers(), body }, [200], "read it");
    if (error === null) expect(read()).toEqual(body);
    else expect(read).toThrow(error);
  });
});
