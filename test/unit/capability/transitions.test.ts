// One case per row of reference section 3 "Capability request", plus the edges our choices fill in.
import { describe, expect, it } from "vitest";
import {
  type CapabilityEvent,
  type CapabilityState,
  type CapabilityStatus,
  transitionCapabilityRequest,
} from "../../../src/capability/index.js";

const s = (status: CapabilityStatus, accessSupplied = false): CapabilityState => ({ status, accessSupplied });
const supplied: CapabilityEvent = { type: "access_supplied", authorised: true };

describe("capability request state table", () => {
  it.each<[string, CapabilityState, CapabilityEvent, CapabilityStatus, "repair" | null]>([
    ["open + authorised secret -> verification_pending", s("open"), supplied, "verification_pending", null],
    [
      "repair_needed + authorised secret -> verification_pending",
      s("repair_needed", true),
      supplied,
      "verification_pending",
      null,
    ],
    [
      "verification_pending + bound secret rotated -> satisfies again",
      s("verification_pending", true),
      { type: "secret_rotated" },
      "verification_pending",
      null,
    ],
    [
      "repair_needed + bound secret rotated -> verification_pending",
      s("repair_needed", true),
      { type: "secret_rotated" },
      "verification_pending",
      null,
    ],
    [
      "after access supplied, authentication (401) -> repair_needed + e-mail",
      s("verification_pending", true),
      { type: "evidence", outcome: "authentication" },
      "repair_needed",
      "repair",
    ],
    [
      "after access supplied, permission (403) -> repair_needed + e-mail",
      s("verification_pending", true),
      { type: "evidence", outcome: "permission" },
      "repair_needed",
      "repair",
    ],
    [
      "verified + authentication -> repair_needed + e-mail",
      s("verified", true),
      { type: "evidence", outcome: "authentication" },
      "repair_needed",
      "repair",
    ],
    [
      "repair_needed + another 401 is not a new repair",
      s("repair_needed", true),
      { type: "evidence", outcome: "authentication" },
      "repair_needed",
      null,
    ],
    [
      "open (no access supplied) + 401 changes nothing",
      s("open"),
      { type: "evidence", outcome: "authentication" },
      "open",
      null,
    ],
    [
      "verified evidence on verification_pending -> verified",
      s("verification_pending", true),
      { type: "evidence", outcome: "verified" },
      "verified",
      null,
    ],
    [
      "verified evidence on open is only recorded",
      s("open"),
      { type: "evidence", outcome: "verified" },
      "open",
      null,
    ],
    ["open dismissed", s("open"), { type: "dismiss" }, "dismissed", null],
    [
      "verification_pending dismissed",
      s("verification_pending", true),
      { type: "dismiss" },
      "dismissed",
      null,
    ],
    ["repair_needed dismissed", s("repair_needed", true), { type: "dismiss" }, "dismissed", null],
    ["dismissed dismissed again stays dismissed", s("dismissed"), { type: "dismiss" }, "dismissed", null],
    ["rotation never reopens dismissed", s("dismissed", true), { type: "secret_rotated" }, "dismissed", null],
    ["rotation never reopens verified", s("verified", true), { type: "secret_rotated" }, "verified", null],
  ])("%s", (_name, state, event, next, notify) => {
    const result = transitionCapabilityRequest(state, event);
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.state.status).toBe(next);
      expect(result.notify).toBe(notify);
      expect(result.changed).toBe(next !== state.status);
    }
  });

  it.each(["open", "verification_pending", "repair_needed", "verified", "dismissed"] as const)(
    "%s: network and provider evidence change nothing",
    (status) => {
      for (const outcome of ["network", "provider"] as const) {
        const state = s(status, true);
        const result = transitionCapabilityRequest(state, { type: "evidence", outcome });
        expect(result).toEqual({ ok: true, state, changed: false, notify: null });
      }
    },
  );

  it.each<[CapabilityState, CapabilityEvent, string]>([
    [
      s("open"),
      { type: "access_supplied", authorised: false, why: "hosts do not cover it" },
      "not_authorised",
    ],
    [s("dismissed"), supplied, "dismissed"],
    [s("verified", true), supplied, "verified"],
    [s("verified", true), { type: "dismiss" }, "verified"],
  ])("refused: %j + %j -> %s", (state, event, refusal) => {
    const result = transitionCapabilityRequest(state, event);
    expect(result).toMatchObject({ ok: false, refusal });
  });
});
