// The outbox and its delivery worker against a real SQLite file and a real SMTP server on loopback.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import {
  createSmtpSender,
  type DeliveryWorker,
  startDeliveryWorker,
} from "../../../src/server/domain/capability/mailer.js";
import {
  enqueueNotification,
  notificationsOf,
  requeueFailedDeliveries,
} from "../../../src/server/domain/capability/outbox.js";
import { migrateDatabase } from "../../../src/server/store/migrate.js";
import { loadSqlite } from "../../../src/server/store/sqlite.js";
import type { Store } from "../../../src/server/store/store.js";
import { pollUntil } from "../../helpers/poll.js";
import { startSmtpServer, type TestSmtpServer } from "../../helpers/smtp.js";
import { storeOver } from "../../helpers/sqlite-store.js";

let dir: string;
let db: Store | undefined;
let smtp: TestSmtpServer | undefined;
let worker: DeliveryWorker | undefined;

afterEach(async () => {
  await worker?.stop();
  await smtp?.close();
  await db?.close();
  db = undefined;
  rmSync(dir, { recursive: true, force: true });
  worker = undefined;
  smtp = undefined;
});

async function openDb(): Promise<Store> {
  dir = mkdtempSync(join(tmpdir(), "baton-outbox-"));
  const { DatabaseSync } = await loadSqlite();
  const opened = new DatabaseSync(join(dir, "baton.db"));
  await migrateDatabase(opened);
  const at = new Date().toISOString();
  opened.exec(`INSERT INTO workspaces (id, name, rollout_repository_environments, created_at) VALUES ('ws', 'Acme', 1, '${at}');
    INSERT INTO repositories (id, workspace_id, slug) VALUES ('repo', 'ws', 'acme/api');
    INSERT INTO capability_requests (id, workspace_id, repository_id, repository, kind, target, target_form, reason, status, created_at, updated_at)
      VALUES ('cr_1', 'ws', 'repo', 'acme/api', 'registry_access', 'registry.example.com', 'host', 'npm 401', 'open', '${at}', '${at}');`);
  db = storeOver(opened);
  return db;
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  if (!(await pollUntil(check, (ok) => ok, { timeoutMs: 30_000, intervalMs: 50 }))) {
    throw new Error(`timed out waiting for ${what}`);
  }
}

describe("e-mail outbox", () => {
  it("delivers per recipient: a refused recipient fails after retries, the other's delivery is kept; requeue sends to the failed one only", async () => {
    const store = await openDb();
    smtp = await startSmtpServer(["admin@acme.test"]);
    await enqueueNotification(
      store,
      {
        id: "ntf_1",
        requestId: "cr_1",
        kind: "new_request",
        subject: "Access needed (cr_1)",
        text: "Request id: cr_1\n",
        recipients: ["owner@acme.test", "admin@acme.test"],
      },
      new Date(),
    );
    worker = startDeliveryWorker({
      db: store,
      sender: await createSmtpSender(smtp.url, "baton@localhost"),
      logger: pino({ level: "silent" }),
      pollMs: 50,
      owner: "test/outbox",
    });
    worker.kick();
    const states = async () =>
      (await notificationsOf(store, "cr_1"))[0]!.deliveries.map(
        (d) => `${d.recipient}:${d.state}:${d.attempts}`,
      );
    await until(
      async () => (await states()).includes("admin@acme.test:failed:3"),
      "the refused recipient to fail",
    );
    expect(await states()).toEqual(["admin@acme.test:failed:3", "owner@acme.test:sent:1"]);
    expect(smtp.refused).toEqual(["admin@acme.test", "admin@acme.test", "admin@acme.test"]);
    expect(smtp.received.map((m) => m.to)).toEqual([["owner@acme.test"]]);

    smtp.refuse.clear();
    expect(await requeueFailedDeliveries(store, "cr_1", new Date())).toEqual([
      { notificationId: "ntf_1", recipient: "admin@acme.test" },
    ]);
    worker.kick();
    await until(async () => (await states()).includes("admin@acme.test:sent:1"), "redelivery");
    expect(smtp.received.map((m) => m.to)).toEqual([["owner@acme.test"], ["admin@acme.test"]]);
    expect(smtp.received[1]!.subject).toContain("cr_1");
  });
});
