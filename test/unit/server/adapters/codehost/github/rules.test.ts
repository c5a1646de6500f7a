// The adapter's own rules around Octokit (pure, table-driven): what the domain is told when Octokit's throttling
// gives up on a rate limit (docs "Rate limits for the REST API": primary limit `x-ratelimit-remaining: 0` until
// `x-ratelimit-reset`; secondary limit named in the message, `retry-after` or a minute), how other failures read,
// when a cached installation token is renewed, paging, the search query and the token's destinations.
import { describe, expect, it } from "vitest";
import { tokenDestinationsOf } from "../../../../../../src/server/adapters/codehost/github/adapter.js";
import { isCachedTokenFresh } from "../../../../../../src/server/adapters/codehost/github/client.js";
import {
  codehostErrorOf,
  hasNextPage,
  rateLimitError,
  readData,
} from "../../../../../../src/server/adapters/codehost/github/errors.js";
import { searchQueryOf } from "../../../../../../src/server/adapters/codehost/github/issues.js";
import { InstallationSchema } from "../../../../../../src/server/adapters/codehost/github/schemas.js";
import { CodehostError } from "../../../../../../src/server/adapters/codehost/port.js";

const NOW = new Date("2026-11-26T12:00:00Z");
const NOW_MS = NOW.getTime();
const answer = (status: number, headers: Record<string, string>, message?: string) => ({
  status,
  headers,
  data: message === undefined ? {} : { message },
});
const SECONDARY = "You have exceeded a secondary rate limit.";

describe("rateLimitError: the refusal the domain sees once Octokit's throttling stops waiting", () => {
  it.each([
    ["a 200 is no limit, even with remaining 0", answer(200, { "x-ratelimit-remaining": "0" }), null],
    ["a 404 is no limit", answer(404, {}), null],
    [
      "a 403 without limit headers or message is a plain refusal",
      answer(403, {}, "Resource not accessible"),
      null,
    ],
    [
      "403 with remaining 0: the hourly limit, until x-ratelimit-reset",
      answer(403, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(NOW_MS / 1000 + 3600) }),
      "its hourly rate limit; try again after 2026-11-26T13:00:00.000Z",
    ],
    [
      "429 with remaining 0 and retry-after: retry-after says when",
      answer(429, { "x-ratelimit-remaining": "0", "retry-after": "90", "x-ratelimit-reset": "1" }),
      "its hourly rate limit; try again after 2026-11-26T12:01:30.000Z",
    ],
    [
      "a secondary limit with retry-after",
      answer(403, { "retry-after": "120" }, SECONDARY),
      "a secondary rate limit; try again after 2026-11-26T12:02:00.000Z",
    ],
    [
      "a secondary limit without retry-after: a minute",
      answer(403, {}, SECONDARY),
      "a secondary rate limit; try again after 2026-11-26T12:01:00.000Z",
    ],
  ])("%s", (_rule, facts, says) => {
    const error = rateLimitError(facts, NOW_MS);
    if (says === null) expect(error).toBeUndefined();
    else expect(error?.message).toBe(`the code host's API refused the call under ${says}`);
  });
});

describe("codehostErrorOf: Octokit's failures in the service's words", () => {
  const requestError = (status: number, response?: ReturnType<typeof answer>, cause?: Error) =>
    Object.assign(new Error("octokit"), {
      status,
      request: { method: "GET", url: "https://api.x/api/v3/repos/acme/web" },
      response,
      cause,
    });
  it.each([
    [
      "a refusal names the status and GitHub's message",
      requestError(403, answer(403, {}, "Forbidden")),
      "the code host refused to read it (403: Forbidden)",
    ],
    [
      "a 5xx past the retries says to try again later",
      requestError(503, answer(503, {}, "Server Error")),
      "the code host's API did not answer GET /api/v3/repos/acme/web (answered 503); try again later",
    ],
    [
      "no answer at all (a timeout) names the cause",
      requestError(500, undefined, Object.assign(new Error("aborted"), { name: "TimeoutError" })),
      "the code host's API did not answer GET /api/v3/repos/acme/web (TimeoutError: aborted); try again later",
    ],
    ["a CodehostError stays as it is", new CodehostError("already said"), "already said"],
  ])("%s", (_rule, error, message) => {
    const mapped = codehostErrorOf(error, "read it");
    expect(mapped).toBeInstanceOf(CodehostError);
    expect(mapped.message).toBe(message);
  });
});

describe("the adapter's other rules", () => {
  it.each([
    ["a next page", '<https://api.x/r?page=2>; rel="next", <https://api.x/r?page=3>; rel="last"', true],
    ["next after last", '<https://api.x/r?page=3>; rel="last", <https://api.x/r?page=2>; rel="next"', true],
    ["no next on the last page", '<https://api.x/r?page=1>; rel="first"', false],
    ["no Link header", undefined, false],
  ])("hasNextPage: %s", (_rule, link, next) => {
    expect(hasNextPage(link)).toBe(next);
  });

  const entry = (inMs: number) =>
    `ghs_x|2026-11-26T11:00:00Z|${new Date(NOW_MS + inMs).toISOString()}|all|contents!`;
  it.each([
    ["a token expiring in an hour is fresh", entry(3_600_000), true],
    ["a token expiring in six minutes is fresh", entry(360_000), true],
    ["a token expiring in five minutes is renewed (5-minute margin)", entry(300_000), false],
    ["an expired token is renewed", entry(-1_000), false],
    ["an entry of another shape is renewed", "ghs_x", false],
  ])("isCachedTokenFresh (auth-app's cache entry, on the service's clock): %s", (_rule, cached, fresh) => {
    expect(isCachedTokenFresh(cached, NOW)).toBe(fresh);
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
    ["a body of the documented shape is read", { id: 5, account: { login: "acme" } }, null],
    [
      "a body of another shape is a CodehostError naming where",
      { id: "5", account: null },
      /not what its API documents \(at id\)/,
    ],
  ])("readData: %s", (_rule, body, error) => {
    const read = () => readData(InstallationSchema, body, "read it");
    if (error === null) expect(read()).toEqual(body);
    else expect(read).toThrow(error);
  });
});
