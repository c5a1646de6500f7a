// The dashboard's words agree with what is true (issue 37 A.10): a question waits for an answer, a queued task is
// not "started", a saved secret is replaced rather than supplied, a connected code host is not offered for
// connecting, and every time on every page has one form with its zone. Pure renderers, no store.
import { describe, expect, it } from "vitest";
import type { ApiTask } from "../../../../../../src/server/domain/tasks/views.js";
import { renderRequest } from "../../../../../../src/server/surfaces/pages/dashboard/render-capability.js";
import { renderSettings } from "../../../../../../src/server/surfaces/pages/dashboard/render-settings.js";
import { renderStatus } from "../../../../../../src/server/surfaces/pages/dashboard/render-status.js";
import { noticeWords } from "../../../../../../src/server/surfaces/pages/dashboard/task-wire.js";
import { renderTime } from "../../../../../../src/server/surfaces/pages/dashboard/time.js";
import { renderWhen } from "../../../../../../src/server/surfaces/pages/format.js";
import type { CapabilityRequest } from "../../../../../../src/transport/wire.js";

const TASK: ApiTask = {
  id: "task_1",
  status: "replied",
  source: "api",
  title: "t",
  repo: null,
  pullRequest: null,
  queued: false,
  pausedOn: null,
  createdAt: "2026-11-26T23:00:00.000Z",
  lastActivityAt: "2026-11-26T23:00:00.000Z",
  url: "u",
};

describe("a task's status in words", () => {
  it("a replied task whose agent asked a question says it waits for an answer, not 'Replied'", () => {
    const out = renderStatus(TASK, undefined, true).toString();
    expect(out).toContain("Waiting for an answer");
    expect(out).not.toContain("Replied");
    expect(renderStatus(TASK, undefined, false).toString()).toContain("Replied");
  });

  it("only a replied task can wait for an answer (a follow-up moved it on)", () => {
    expect(renderStatus({ ...TASK, status: "implementing" }, undefined, true).toString()).toContain(
      "Working",
    );
  });
});

describe("the notice after starting a task", () => {
  it("says 'started' when a slot took it, and 'queued' (never 'started') when it waits for one", () => {
    expect(noticeWords("started", { queued: false })).toMatch(/^The task is started\./);
    const queued = noticeWords("started", { queued: true });
    expect(queued).toMatch(/queued: it starts when the workspace has a free slot/);
    expect(queued).not.toContain("started");
  });
});

describe("the capability request's form", () => {
  const request = (status: CapabilityRequest["status"]): CapabilityRequest => ({
    requestId: "cr_1",
    workspaceId: "ws",
    repositoryId: "repo",
    repository: "acme/api",
    kind: "api_key",
    target: "api.pay.test",
    targetForm: "host",
    reason: "r",
    status,
    accessSupplied: status !== "open",
    lastOutcome: null,
    createdAt: TASK.createdAt,
    updatedAt: TASK.createdAt,
  });
  const page = (status: CapabilityRequest["status"]) =>
    renderRequest({ ws: "ws", csrfToken: "c", request: request(status), canAct: true }).toString();

  it.each([
    ["open", "Supply a secret", "Save the secret"],
    ["verification_pending", "Replace the secret", "Save the new secret"],
    ["repair_needed", "Replace the secret", "Save the new secret"],
  ] as const)("%s: headed %s", (status, heading, button) => {
    const out = page(status);
    expect(out).toContain(`<h2 id="supply">${heading}</h2>`);
    expect(out).toContain(`>${button}</button>`);
    if (status !== "open") expect(out).not.toContain("Supply a secret");
  });
});

describe("the settings page's code host", () => {
  const settings = (codehostConnected: boolean, trackerConnected: boolean) =>
    renderSettings({
      ws: "ws",
      csrfToken: "c",
      canAdminister: true,
      connections: {
        codehostConnected,
        installations: [],
        repositories: [],
        trackerConnected,
        trackerOrganization: null,
        mine: { codehostLogin: null, trackerIdentity: null, trackerBound: false },
      },
      agent: {
        chosen: null,
        choices: { serviceDefault: "the scripted agent", sandboxes: false, installed: [] },
      },
    }).toString();

  it("offers to connect what is not connected, and never what is", () => {
    expect(settings(false, false)).toContain(">Connect the code host</a>");
    expect(settings(false, false)).toContain(">Connect the tracker</a>");
    const connected = settings(true, true);
    expect(connected).not.toContain("Connect the code host");
    expect(connected).not.toContain("Connect the tracker");
    expect(connected).toContain(">Add repositories or another code-host account</a>");
  });
});

describe("times", () => {
  it("have one form on every page, in UTC with the zone; the ISO value in datetime and title", () => {
    const iso = "2026-11-26T23:05:59.123Z";
    const expected = `<time datetime="${iso}" title="${iso}">2026-11-26 23:05 UTC</time>`;
    expect(renderTime(iso).toString()).toBe(expected);
    expect(renderWhen(iso).toString()).toBe(expected);
    expect(renderWhen(null, "never").toString()).toBe("never");
    expect(renderTime('"><x').toString()).not.toContain("<x");
  });
});
