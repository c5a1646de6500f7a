// When a Linear call is tried again and after how long: rate limiting (HTTP 429 or `extensions.code:
// RATELIMITED`) waits until `X-RateLimit-Requests-Reset` (UTC epoch milliseconds), else `Retry-After`; a wait
// over the bound gives up; a dropped connection or a 5xx is tried again; any other refusal is final.
import { describe, expect, it } from "vitest";
import {
  decideRetry,
  rateLimitWaitMs,
} from "../../../../../src/server/adapters/tracker/linear/rate-limit.js";

const NOW = 1_800_000_000_000;
const headers =
  (h: Record<string, string>) =>
  (name: string): string | null =>
    h[name] ?? null;

describe("decideRetry", () => {
  it.each([
    [
      "HTTP 429 with a reset 2 s away",
      429,
      [],
      { "x-ratelimit-requests-reset": String(NOW + 2000) },
      10_000,
      { retry: true, rateLimited: true, waitMs: 2000 },
    ],
    [
      "HTTP 400 with RATELIMITED",
      400,
      ["RATELIMITED"],
      { "x-ratelimit-requests-reset": String(NOW + 500) },
      10_000,
      { retry: true, rateLimited: true, waitMs: 500 },
    ],
    [
      "HTTP 200 with RATELIMITED among errors",
      200,
      ["OTHER", "RATELIMITED"],
      {},
      10_000,
      { retry: true, rateLimited: true, waitMs: 1000 },
    ],
    [
      "a reset beyond the bound gives up",
      429,
      [],
      { "x-ratelimit-requests-reset": String(NOW + 60_000) },
      10_000,
      { retry: false, rateLimited: true, waitMs: 60_000 },
    ],
    [
      "a reset already past waits nothing",
      429,
      [],
      { "x-ratelimit-requests-reset": String(NOW - 5) },
      10_000,
      { retry: true, rateLimited: true, waitMs: 0 },
    ],
    ["a 502 is tried again", 502, [], {}, 10_000, { retry: true, rateLimited: false, waitMs: 0 }],
    [
      "no answer (connection dropped) is tried again",
      undefined,
      [],
      {},
      10_000,
      { retry: true, rateLimited: false, waitMs: 0 },
    ],
    [
      "a 400 with another code is final",
      400,
      ["INVALID_INPUT"],
      {},
      10_000,
      { retry: false, rateLimited: false },
    ],
    ["a 401 is final", 401, ["AUTHENTICATION_ERROR"], {}, 10_000, { retry: false, rateLimited: false }],
  ] as const)("%s", (_name, status, codes, h, max, expected) => {
    expect(decideRetry({ status, errorCodes: codes, header: headers(h), nowMs: NOW }, max)).toEqual(expected);
  });
});

describe("rateLimitWaitMs", () => {
  it.each([
    ["reset in epoch ms", { "x-ratelimit-requests-reset": String(NOW + 1234) }, 1234],
    [
      "reset in epoch seconds is read as seconds",
      { "x-ratelimit-requests-reset": String(NOW / 1000 + 3) },
      3000,
    ],
    ["Retry-After seconds", { "retry-after": "4" }, 4000],
    ["Retry-After as an HTTP date", { "retry-after": new Date(NOW + 7000).toUTCString() }, 7000],
    [
      "the reset header wins over Retry-After",
      { "x-ratelimit-requests-reset": String(NOW + 100), "retry-after": "9" },
      100,
    ],
    ["neither: the default second", {}, 1000],
    [
      "a garbled reset falls back to Retry-After",
      { "x-ratelimit-requests-reset": "soon", "retry-after": "2" },
      2000,
    ],
  ])("%s", (_name, h, expected) => {
    expect(rateLimitWaitMs(headers(h), NOW)).toBe(expected);
  });
});
