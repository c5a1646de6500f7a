// safeNextPath in one pass (issue 35 A.9): its answer is a fixed point and always a path on this origin, never a
// protocol-relative or absolute URL nor a backslash form a browser reads as one ("/.//evil.com" gave "//evil.com").
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { safeNextPath } from "../../../../../src/server/surfaces/pages/sign-in-links.js";

const FALLBACK = "/dashboard/tokens";
const ORIGIN = "https://baton.test";

/** What a browser does with a Location header on a page of this origin. */
const browserTarget = (location: string) => new URL(location, `${ORIGIN}/sign-in`);

function expectSafe(result: string) {
  expect(result.startsWith("/")).toBe(true);
  expect(result.startsWith("//")).toBe(false);
  expect(result).not.toMatch(/[\\\u0000-\u001f]/);
  expect(browserTarget(result).origin).toBe(ORIGIN);
  expect(safeNextPath(result)).toBe(result);
}

describe("safeNextPath: one pass gives a same-origin path that a second pass leaves alone", () => {
  it.each([
    ["/.//evil.com", FALLBACK],
    ["/./\\evil.com", FALLBACK],
    ["/a/..//evil.com", FALLBACK],
    ["/%2e//evil.com", FALLBACK],
    ["/%2E%2E//evil.com", FALLBACK],
    ["/x/../../..//evil.com/p", FALLBACK],
    ["/./evil.com", "/evil.com"],
    ["/a/./b/../c?d=1", "/a/c?d=1"],
    ["/oauth/interaction/abc", "/oauth/interaction/abc"],
    ["//evil.com", FALLBACK],
    ["/\\evil.com", FALLBACK],
    ["https://evil.com/", FALLBACK],
  ])("%j goes to %j", (next, expected) => {
    const result = safeNextPath(next);
    expect(result).toBe(expected);
    expectSafe(result);
  });

  const piece = fc.constantFrom(
    "/",
    "//",
    ".",
    "..",
    "%2e",
    "%2E",
    "%2f",
    "\\",
    "%5c",
    "evil.com",
    "a",
    "?",
    "#",
    ":",
    "@",
    "\t",
    "\n",
    " ",
    "https:",
    "javascript:",
  );
  const crafted = fc.array(piece, { maxLength: 10 }).map((parts) => parts.join(""));

  it("for any input, the answer is safe and a fixed point (fast-check)", () => {
    fc.assert(
      fc.property(fc.oneof(crafted, fc.string(), fc.string({ unit: "binary" })), (next) => {
        expectSafe(safeNextPath(next));
      }),
      { numRuns: 5000 },
    );
  });
});
