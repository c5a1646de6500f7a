// The webhook receivers in process: the real hono app over a real SQLite file seeded from fixtures/seeds/api.json
// (ws_acme gains a code-host installation and a tracker organisation), the real turn runtime with the scripted
// agent and the local code host and tracker (whose comments land in the store's `ticket_comments`). The platforms
// cannot be reached from here, so each test plays the platform: it signs a fixture of fixtures/webhooks/ with the
// test secret, as GitHub and Linear sign theirs, and posts it. Every response and log line is kept, so a suite
// can assert the secrets (canaries) never leave the service.
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { expect } from "vitest";
import { localComments } from "../../../src/server/adapters/codehost/local-comments.js";
import type { IntegrationSettings } from "../../../src/server/adapters/integrations/settings.js";
import type { TaskServiceOptions } from "../../../src/server/domain/tasks/service.js";
import {
  applySeed,
  createServerApp,
  ephemeralSecretBox,
  SeedDocumentSchema,
  type ServerApp,
} from "../../../src/server/index.js";
import type { Store } from "../../../src/server/store/store.js";
import { signBody } from "../../../src/server/surfaces/webhooks/verify.js";
import {
  CODEHOST_HEADERS,
  TRACKER_HEADERS,
  WEBHOOKS_BASE_PATH,
} from "../../../src/server/surfaces/webhooks/wire.js";
import { PROJECT_ROOT } from "../../helpers/cli.js";
import { openTestStore } from "../../helpers/test-store.js";
import { API_SEED, until } from "../api/harness.js";

export const SECRETS = {
  codehost: "canary-webhook-codehost-3f9d2a71-never-print",
  tracker: "canary-webhook-tracker-8c41e0b6-never-print",
} as const;
export const INSTALLATION_ID = "4242";
export const ORGANIZATION_ID = "8f3a1c52-0b7e-4a39-9d55-1e2f6a7b8c90";
export const AGENT_USER_ID = "agent-user-1";
export const AGENT_LOGIN = "baton-agent";

export const INTEGRATIONS: IntegrationSettings = {
  codehost: { app: undefined, webhookSecret: SECRETS.codehost, agentLabel: "baton", agentLogin: AGENT_LOGIN },
  tracker: { oauth: undefined, webhookSecret: SECRETS.tracker, agentLabel: "baton" },
};

// biome-ignore lint/suspicious/noExplicitAny: fixtures are edited freely by each test
export type Payload = Record<string, any>;

export function fixture(source: "codehost" | "tracker", name: string): Payload {
  return JSON.parse(readFileSync(join(PROJECT_ROOT, "fixtures", "webhooks", source, `${name}.json`), "utf8"));
}

/** The seed with ws_acme's installation and tracker organisation (ids only: no secret is seeded). */
export function webhookSeed(): unknown {
  const seed = JSON.parse(readFileSync(API_SEED, "utf8"));
  const acme = seed.workspaces[0];
  acme.codehost.installation = { id: INSTALLATION_ID, account: "acme" };
  acme.tracker.organization = { id: ORGANIZATION_ID, name: "Acme" };
  return seed;
}

let deliveryCount = 0;
export const newDeliveryId = () => `d-${process.pid}-${++deliveryCount}-${Date.now()}`;

export interface Delivered {
  status: number;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: the answer's shape is what each test checks
  body: any;
}

export interface WebhookHarness {
  app: ServerApp;
  db: Store;
  dir: string;
  logs: string[];
  seen: string[];
  /** Signs (unless `signature` is given: null sends none) and posts a delivery. */
  deliver(
    source: "codehost" | "tracker",
    event: string,
    payload: Payload | string,
    options?: { deliveryId?: string; signature?: string | null; secret?: string },
  ): Promise<Delivered>;
  comments(source: "codehost" | "tracker", issueKey: string): Promise<string[]>;
  /** Stops the app (the database stays open) and starts a new one on the same store. */
  restart(options?: { start?: boolean }): Promise<void>;
  close(): Promise<void>;
}

export async function createWebhookHarness(
  options: {
    start?: boolean;
    seed?: unknown;
    integrations?: IntegrationSettings;
    tasks?: Partial<TaskServiceOptions>;
  } = {},
): Promise<WebhookHarness> {
  const dir = await mkdtemp(join(tmpdir(), "webhooks-"));
  const db = await openTestStore(dir);
  const secretBox = ephemeralSecretBox();
  await applySeed(db, SeedDocumentSchema.parse(options.seed ?? webhookSeed()), new Date(), secretBox);
  await db.run("UPDATE tracker_connections SET agent_user_id = ? WHERE organization_id = ?", [
    AGENT_USER_ID,
    ORGANIZATION_ID,
  ]);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const make = () =>
    createServerApp({
      db,
      logger: pino({ level: "debug" }, sink),
      secretBox,
      integrations: options.integrations ?? INTEGRATIONS,
      retryBaseMs: 20,
      capability: { serviceUrl: "http://127.0.0.1:9" },
      tasks: {
        workRoot: join(dir, "work"),
        pullRequestSweepMs: 0,
        ...options.tasks,
      },
    });
  const harness: WebhookHarness = {
    app: make(),
    db,
    dir,
    logs,
    seen: [],
    async deliver(source, event, payload, opts = {}) {
      const raw = typeof payload === "string" ? payload : JSON.stringify(payload);
      const names = source === "codehost" ? CODEHOST_HEADERS : TRACKER_HEADERS;
      const headers: Record<string, string> = {
        "content-type": "application/json",
        [names.event]: event,
        [names.delivery]: opts.deliveryId ?? newDeliveryId(),
      };
      const signature =
        opts.signature === undefined
          ? `${source === "codehost" ? "sha256=" : ""}${signBody(opts.secret ?? SECRETS[source], raw)}`
          : opts.signature;
      if (signature !== null) headers[names.signature] = signature;
      const response = await harness.app.http.request(`${WEBHOOKS_BASE_PATH}/${source}`, {
        method: "POST",
        headers,
        body: raw,
      });
      const text = await response.text();
      harness.seen.push(text);
      return { status: response.status, text, body: text === "" ? undefined : JSON.parse(text) };
    },
    async comments(source, issueKey) {
      return (await localComments(db, { workspaceId: "ws_acme", source, issueKey })).map((c) => c.body);
    },
    async restart(opts = {}) {
      await harness.app.stop();
      harness.app = make();
      if (opts.start ?? true) await harness.app.start();
    },
    async close() {
      await harness.app.stop();
      await db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  if (options.start ?? true) await harness.app.start();
  return harness;
}

/** A tracker fixture with `webhookTimestamp` set to now (Linear's replay window is 60 s). */
export function freshTracker(name: string, nowMs = Date.now()): Payload {
  return { ...fixture("tracker", name), webhookTimestamp: nowMs };
}

export async function taskOfTicket(db: Store, ticketId: string) {
  return (await db.get("SELECT * FROM tasks WHERE ticket_id = ?", [ticketId])) as
    | {
        id: string;
        status: string;
        title: string;
        repo: string | null;
        created_by: string;
        source: string;
        ticket_number: number | null;
        open_turn_id: string | null;
      }
    | undefined;
}

export async function deliveryRow(db: Store, deliveryId: string) {
  return (await db.get("SELECT state, outcome, attempts FROM webhook_deliveries WHERE delivery_id = ?", [
    deliveryId,
  ])) as { state: string; outcome: string | null; attempts: number } | undefined;
}

/** Posts a signed delivery, expects 202, waits until the worker recorded it, expects `done`; returns its outcome. */
export async function applyDelivery(
  h: WebhookHarness,
  source: "codehost" | "tracker",
  event: string,
  payload: Payload,
): Promise<string> {
  const deliveryId = newDeliveryId();
  const answer = await h.deliver(source, event, payload, { deliveryId });
  expect(answer.status).toBe(202);
  const row = await until(() => appliedRow(h.db, deliveryId), `delivery ${deliveryId} to be applied`);
  expect(row.state).toBe("done");
  return row.outcome!;
}

/** The delivery's row once the worker has taken it out of the queue (done or failed). */
export async function appliedRow(db: Store, deliveryId: string) {
  const row = await deliveryRow(db, deliveryId);
  return row && row.state !== "queued" ? row : undefined;
}
