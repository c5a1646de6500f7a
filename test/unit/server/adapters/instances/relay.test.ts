// The relay between instances on one store (issue 36, point 5): a request reaches the instance it names and its
// answer, or its refusal, comes back; an instance that does not take a request, or takes it and does not answer,
// is reported within the bound and the request leaves no row behind. Two relays in one process stand for two
// instances (on PostgreSQL each on its own connection, woken by NOTIFY; on SQLite by the store's in-process
// notifications).
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BatonError } from "../../../../../src/errors.js";
import {
  InstanceRelay,
  InstanceUnreachable,
  RemoteRefusal,
} from "../../../../../src/server/adapters/instances/relay.js";
import { migrateStore } from "../../../../../src/server/store/migrate.js";
import type { Store } from "../../../../../src/server/store/store.js";
import { ENGINES, useEngine } from "../../../../helpers/postgres.js";

const logger = pino({ level: "silent" });

describe.each(ENGINES)("the instance relay on the $name engine", (engine) => {
  const db = useEngine(engine);
  const started: InstanceRelay[] = [];
  const relay = (store: Store, id: string) =>
    new InstanceRelay({
      db: store,
      me: { id, machine: id.split("/")[0]! },
      logger,
      now: () => new Date(),
      // Long: only notifications may wake the relays within the tests' bounds.
      pollMs: 60_000,
      pickupMs: 1_000,
    });
  beforeEach(async () => {
    await migrateStore(db.store);
  });
  afterEach(async () => {
    for (const r of started.splice(0)) await r.stop(100);
  });
  const rows = async () => (await db.store.all("SELECT id FROM instance_requests")).length;

  it("the named instance answers; the asker gets its value and the row is gone", async () => {
    const [a, b] = [relay(db.store, "m1/aaaaaaaaaaaa"), relay(db.another(), "m2/bbbbbbbbbbbb")];
    b.handle("echo", async (body) => ({ from: "b", body }));
    a.handle("echo", async () => ({ from: "a" }));
    await Promise.all([a.start(), b.start()]);
    started.push(a, b);
    expect(await a.ask("m2/bbbbbbbbbbbb", "echo", { n: 1 }, { timeoutMs: 5_000 })).toEqual({
      from: "b",
      body: { n: 1 },
    });
    expect(await rows()).toBe(0);
  });

  it("the owner's refusal comes back with its code, message, class name and reason", async () => {
    const [a, b] = [relay(db.store, "m1/aaaaaaaaaaaa"), relay(db.another(), "m2/bbbbbbbbbbbb")];
    b.handle("fail", async () => {
      throw Object.assign(new BatonError("not_found", "the box is gone"), { reason: "sandbox_not_found" });
    });
    await Promise.all([a.start(), b.start()]);
    started.push(a, b);
    const error = await a.ask("m2/bbbbbbbbbbbb", "fail", {}, { timeoutMs: 5_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteRefusal);
    expect(error).toMatchObject({
      code: "not_found",
      message: "the box is gone",
      remote: { name: "BatonError", reason: "sandbox_not_found" },
    });
  });

  it("an instance that never takes the request: unreachable after the pickup time, naming it, and withdrawn", async () => {
    const a = relay(db.store, "m1/aaaaaaaaaaaa");
    await a.start();
    started.push(a);
    const began = Date.now();
    const error = await a.ask("m2/gone00000000", "echo", {}, { timeoutMs: 60_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InstanceUnreachable);
    expect((error as Error).message).toContain("m2/gone00000000");
    expect(Date.now() - began).toBeLessThan(10_000);
    expect(await rows()).toBe(0);
  });

  it("an instance that takes the request and does not answer in time: unreachable, saying it may still finish", async () => {
    const [a, b] = [relay(db.store, "m1/aaaaaaaaaaaa"), relay(db.another(), "m2/bbbbbbbbbbbb")];
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    b.handle("slow", async () => held);
    await Promise.all([a.start(), b.start()]);
    started.push(a, b);
    const error = await a.ask("m2/bbbbbbbbbbbb", "slow", {}, { timeoutMs: 500 }).catch((e: unknown) => e);
    release();
    expect(error).toBeInstanceOf(InstanceUnreachable);
    expect((error as Error).message).toMatch(/took the request but did not answer within 0\.5 s/);
    expect(await rows()).toBe(0);
  });
});
