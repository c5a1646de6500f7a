// The dashboard's pure pieces around tickets and capability requests: the Delegate form parsed into the API's own
// DelegateBody, the notice's identifier, the secret form parsed into the secrets PUT's body (never echoing the
// value), route patterns from wire.ts's builders, and the next step offered for each refusal.
import { describe, expect, it } from "vitest";
import type { ApiTicket } from "../../../../../../src/server/domain/tickets/search.js";
import {
  parseSecretForm,
  readDone,
  splitHosts,
} from "../../../../../../src/server/surfaces/pages/dashboard/capability-forms.js";
import { nextStepForTicket } from "../../../../../../src/server/surfaces/pages/dashboard/refusals.js";
import { routeOf } from "../../../../../../src/server/surfaces/pages/dashboard/route-pattern.js";
import {
  delegateFieldsOf,
  identifierOf,
  parseDelegateForm,
  readDelegated,
} from "../../../../../../src/server/surfaces/pages/dashboard/ticket-forms.js";
import {
  capabilityRequestPath,
  capabilitySecretPath,
  ticketsPath,
} from "../../../../../../src/server/surfaces/pages/dashboard/wire.js";

const ticket = (source: ApiTicket["source"], identifier: string): ApiTicket => ({
  id: "x",
  source,
  identifier,
  title: "t",
  state: "open",
  context: "",
  url: "https://example.invalid/",
  workspaceId: "ws",
  workspaceLabel: "W",
  yours: false,
});

describe("the Delegate form", () => {
  it.each([
    [ticket("tracker", "ENG-2"), { source: "tracker", id: "ENG-2" }],
    [ticket("codehost", "acme/api#7"), { source: "codehost", repo: "acme/api", number: "7" }],
    [
      ticket("codehost", "org/repo#with#hash#12"),
      { source: "codehost", repo: "org/repo#with#hash", number: "12" },
    ],
  ])("carries what delegateTicket needs for %o", (t, fields) => {
    expect(delegateFieldsOf(t)).toEqual(fields);
  });

  it.each([
    [
      { source: "tracker", id: "ENG-2" },
      { source: "tracker", id: "ENG-2" },
    ],
    [
      { source: "codehost", repo: "acme/api", number: "7" },
      { source: "codehost", repo: "acme/api", number: 7 },
    ],
  ])("parses %o into the API's DelegateBody", (fields, body) => {
    expect(parseDelegateForm(fields)).toEqual({ ok: true, body });
  });

  it.each([
    ["no source", {}],
    ["an unknown source", { source: "chat", id: "1" }],
    ["a tracker form without an id", { source: "tracker" }],
    ["a code-host number that is not a positive integer", { source: "codehost", repo: "a/b", number: "0" }],
    ["a code-host number with letters", { source: "codehost", repo: "a/b", number: "7x" }],
    ["a code-host form without a repository", { source: "codehost", number: "7" }],
    ["an id over 200 characters", { source: "tracker", id: "x".repeat(201) }],
  ])("refuses %s, saying to pick a ticket again", (_case, fields) => {
    expect(parseDelegateForm(fields as Record<string, string>)).toEqual({
      ok: false,
      reason: expect.stringContaining("press Delegate"),
    });
  });

  it("names the delegated ticket as the picker does, and shows only an identifier-shaped notice", () => {
    expect(identifierOf({ source: "codehost", repo: "acme/api", number: 7 })).toBe("acme/api#7");
    expect(readDelegated("acme/api#7")).toBe("acme/api#7");
    expect(readDelegated("ENG-2")).toBe("ENG-2");
    expect(readDelegated("<script>")).toBeUndefined();
    expect(readDelegated("two words")).toBeUndefined();
    expect(readDelegated(undefined)).toBeUndefined();
  });
});

describe("the secret form", () => {
  const SECRET = "canary-unit-secret-0c9e";
  it("splits approved hosts one a line (commas also), ignoring blanks", () => {
    expect(splitHosts(" a.test\n\nb.test , c.test\r\n")).toEqual(["a.test", "b.test", "c.test"]);
  });

  it("parses into the secrets PUT's body bound to the request", () => {
    expect(parseSecretForm({ name: " KEY ", value: SECRET, allowedHosts: "api.test" }, "cr_1")).toEqual({
      ok: true,
      name: "KEY",
      body: { value: SECRET, allowedHosts: ["api.test"], capabilityRequestId: "cr_1" },
    });
  });

  it.each([
    ["an empty value", { name: "K", value: "", allowedHosts: "api.test" }, "Enter the secret's value"],
    [
      "a NUL in the value",
      { name: "K", value: `${SECRET}\u0000`, allowedHosts: "api.test" },
      "Enter the secret's value",
    ],
    ["no host", { name: "K", value: SECRET, allowedHosts: "\n" }, "Give at least one approved host"],
    ["a malformed host", { name: "K", value: SECRET, allowedHosts: "Upper.Case" }, "Approved hosts: must be"],
  ])("refuses %s naming the field, keeping name and hosts, never the value", (_case, fields, reason) => {
    const parsed = parseSecretForm(fields, "cr_1");
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.reason).toContain(reason);
    expect(JSON.stringify(parsed)).not.toContain(SECRET);
    expect(parsed.allowedHosts).toBe(fields.allowedHosts);
  });

  it("reads only the known done notices", () => {
    expect(readDone("secret")).toBe("secret");
    expect(readDone("dismissed")).toBe("dismissed");
    expect(readDone("other")).toBeUndefined();
  });
});

describe("route patterns from wire.ts's builders", () => {
  it.each([
    [routeOf(ticketsPath, "ws"), "/dashboard/workspaces/:ws/tickets"],
    [
      routeOf(capabilityRequestPath, "ws", "repo", "request"),
      "/dashboard/workspaces/:ws/repos/:repo/capability-requests/:request",
    ],
    [
      routeOf(capabilitySecretPath, "ws", "repo", "request"),
      "/dashboard/workspaces/:ws/repos/:repo/capability-requests/:request/secret",
    ],
  ])("%s", (pattern, expected) => {
    expect(pattern).toBe(expected);
  });
});

describe("the next step after a ticket refusal", () => {
  it.each([
    ["tracker_identity_unlinked", "/install/tracker?workspace=ws%201"],
    ["tracker_not_connected", "/dashboard/workspaces/ws%201/settings"],
    ["codehost_not_connected", "/dashboard/workspaces/ws%201/settings"],
    ["codehost_account_missing", "/dashboard/workspaces/ws%201/settings"],
    ["invalid_repo", "/dashboard/workspaces/ws%201/settings"],
    ["billing_inactive", "/dashboard/workspaces/ws%201/billing"],
    ["queue_full", "/dashboard/workspaces/ws%201/tasks"],
    ["ticket_closed", "/dashboard/workspaces/ws%201/tickets"],
  ] as const)("%s leads to %s", (code, href) => {
    expect(nextStepForTicket(code, "ws 1").href).toBe(href);
  });
});
