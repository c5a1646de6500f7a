// The code-host install callback's rule (GitHub, "Creating a GitHub App: Setup URL": installation_id can be edited
// by anyone, so check it against the installations the user's own token can access): only an installation among
// the signed-in person's is connected; every other answer is a refusal naming why.
import { describe, expect, it } from "vitest";
import {
  judgeInstallationAccess,
  refusalOf,
} from "../../../../../src/server/surfaces/pages/install/codehost-proof.js";

describe("judgeInstallationAccess", () => {
  it.each([
    ["among the user's installations", "504", { ok: true, installationIds: ["503", "504"] }, { ok: true }],
    [
      "not among them (another organisation's id swapped in)",
      "504",
      { ok: true, installationIds: ["505"] },
      { ok: false, reason: "not_yours" },
    ],
    ["the user has none", "504", { ok: true, installationIds: [] }, { ok: false, reason: "not_yours" }],
    [
      "a prefix is not a match",
      "50",
      { ok: true, installationIds: ["504"] },
      { ok: false, reason: "not_yours" },
    ],
    [
      "the code host refused the code",
      "504",
      { ok: false, refusal: "bad_verification_code: gone" },
      { ok: false, reason: "code_refused", detail: "bad_verification_code: gone" },
    ],
  ] as const)("%s", (_case, id, access, expected) => {
    expect(judgeInstallationAccess(id, access as never)).toMatchObject(expected);
  });
});

describe("refusalOf", () => {
  it.each([
    ["no_code", 400, /Request user authorization \(OAuth\) during installation/],
    ["code_refused", 400, /refused the authorization code \(why\)/],
    ["not_yours", 403, /installation 7 is not one your code-host account can access/],
  ] as const)("%s is a %i page saying what to do", (reason, status, message) => {
    const refusal = refusalOf("7", reason, "why");
    expect(refusal.status).toBe(status);
    expect(refusal.message).toMatch(message);
    expect(refusal.message).toMatch(/nothing was connected|start again/);
  });
});
