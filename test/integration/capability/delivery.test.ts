// E-mail for real: an SMTP server on loopback refuses one of the two owners/admins. The other's delivery is kept;
// `baton op get <request id>` shows the failure and redelivers to that recipient only.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RedeliverResponse } from "../../../src/transport/wire.js";
import { killLeftoverServes } from "../../helpers/serve.js";
import { startWorld, until, type World } from "./harness.js";

let world: World;
beforeAll(async () => {
  world = await startWorld({ refuse: ["admin@acme.test"] });
});
afterAll(async () => {
  await world?.close();
  await killLeftoverServes();
});

describe("notification delivery per recipient", () => {
  it("a refused recipient does not undo the one that succeeded; op get redelivers to the refused one only", async () => {
    const run = await world.request([
      "--capability",
      "service_credential",
      "--target",
      "ci.acme.test",
      "--reason",
      "deploy job cannot log in",
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    const id = /request (cr_[0-9a-f]+)/.exec(run.stdout)![1]!;

    const view = async (): Promise<RedeliverResponse> => {
      const shown = await world.cli(["op", "get", id, "--json"]);
      expect(shown.exitCode, shown.stderr).toBe(0);
      return JSON.parse(shown.stdout) as RedeliverResponse;
    };
    // Retries happen in the service (3 attempts with back-off); wait for them to finish. Reading the rows
    // directly does not redeliver, unlike `op get`.
    await until(async () => {
      const rows = await world.rows(
        "SELECT state FROM notification_deliveries WHERE recipient = 'admin@acme.test'",
      );
      return rows[0]?.state === "failed";
    }, "the refused delivery to fail");
    expect(world.smtp.refused).toEqual(["admin@acme.test", "admin@acme.test", "admin@acme.test"]);
    expect(world.smtp.received.map((m) => m.to)).toEqual([["owner@acme.test"]]);

    // The mailbox is back; op get shows the failure and puts that delivery back in the queue.
    world.smtp.refuse.clear();
    const first = await view();
    expect(first.notifications[0]!.deliveries).toEqual([
      expect.objectContaining({ recipient: "a***@acme.test", state: "pending", attempts: 0 }),
      expect.objectContaining({ recipient: "o***@acme.test", state: "sent", attempts: 1 }),
    ]);
    expect(first.redelivered).toEqual([
      { notificationId: first.notifications[0]!.id, recipient: "a***@acme.test" },
    ]);

    await until(() => world.smtp.received.length === 2, "the redelivered e-mail");
    expect(world.smtp.received.map((m) => m.to)).toEqual([["owner@acme.test"], ["admin@acme.test"]]);
    expect(world.smtp.received[1]!.decoded).toContain(id);

    const human = await world.cli(["op", "get", id]);
    expect(human.stdout).toContain("a***@acme.test sent");
    expect(human.stdout).toContain("o***@acme.test sent");
    expect(human.stdout).not.toContain("Redelivering");
    // Nothing more is sent: the owner got exactly one e-mail.
    await new Promise((r) => setTimeout(r, 300));
    expect(world.smtp.received.filter((m) => m.to[0] === "owner@acme.test")).toHaveLength(1);
  });
});
