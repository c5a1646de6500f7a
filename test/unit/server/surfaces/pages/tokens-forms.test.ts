// The tokens page's create form (reference section 2: a name, and "expires after 30, 90 or 365 days (the user
// picks)"; section 8: "Token lifetime at most 365 days (choices 30, 90, 365)"), parsed at the page's boundary.
import { describe, expect, it } from "vitest";
import {
  CreateTokenFormSchema,
  LIFETIME_MESSAGE,
  NAME_MESSAGE,
  readNotice,
} from "../../../../../src/server/surfaces/pages/tokens/forms.js";

const FORM_ID = `pat_${"a".repeat(32)}`;
const parse = (fields: Record<string, string>) =>
  CreateTokenFormSchema.safeParse({ formId: FORM_ID, name: "laptop", lifetimeDays: "90", ...fields });

describe("the create form", () => {
  it.each([
    ["30", 30],
    ["90", 90],
    ["365", 365],
  ])("a lifetime of %s days is accepted", (given, days) => {
    expect(parse({ lifetimeDays: given })).toMatchObject({ success: true, data: { lifetimeDays: days } });
  });

  it.each(["0", "1", "29", "31", "60", "366", "-30", "30.0", " 30", "", "ninety"])(
    "a lifetime of %j is refused: choose 30, 90 or 365",
    (given) => {
      const parsed = parse({ lifetimeDays: given });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toBe(LIFETIME_MESSAGE);
    },
  );

  it("the lifetime message names every choice", () => {
    expect(LIFETIME_MESSAGE).toContain("30, 90 or 365 days");
  });

  it.each([
    ["x", "x"],
    ["  spaced  ", "spaced"],
    ["n".repeat(100), "n".repeat(100)],
    [` ${"n".repeat(100)} `, "n".repeat(100)],
  ])("the name %j is kept trimmed", (given, kept) => {
    expect(parse({ name: given })).toMatchObject({ success: true, data: { name: kept } });
  });

  it.each(["", "   ", "\t\n", "n".repeat(101)])("the name %j is refused: 1 to 100 characters", (given) => {
    const parsed = parse({ name: given });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe(NAME_MESSAGE);
  });

  it.each(["", "pat_", `pat_${"a".repeat(31)}`, `pat_${"A".repeat(32)}`, `tok_${"a".repeat(32)}`])(
    "a form id %j that the page did not make is refused",
    (formId) => {
      expect(parse({ formId }).success).toBe(false);
    },
  );
});

describe("notices", () => {
  it.each([
    ["revoked", "revoked"],
    ["disconnected", "disconnected"],
    ["<script>", undefined],
    [undefined, undefined],
  ])("?notice=%s shows %s", (given, shown) => {
    expect(readNotice(given)).toBe(shown);
  });
});
