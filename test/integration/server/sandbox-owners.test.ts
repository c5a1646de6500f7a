// Issue 26: "sandboxes belong to the instance that runs their driver, and the store says which (a dead instance's
// boxes are adopted, or recorded lost, by the next one on that machine)", with sandbox managers of several
// instances on one store (both engines). The driver is an in-memory fake per machine: two machines cannot be made
// on one host with the real drivers (both would share this host's Docker), and the rule under test is the
// store's record of owners, not what a driver does; test/container/sandboxes/adopt.test.ts covers the real one.
import pino from "pino";
import { beforeEach, describe, expect, it } from "vitest";
import type { CreatedBox, SandboxDriver } from "../../../src/server/adapters/sandboxes/driver.js";
import { SandboxManager } from "../../../src/server/adapters/sandboxes/manager.js";
import { BOX_OWNER_LEASE_MS } from "../../../src/server/adapters/sandboxes/ownership.js";
import { getBox } from "../../../src/server/adapters/sandboxes/store.js";
import type { InstanceIdentity } from "../../../src/server/primitives/instance.js";
import { migrateStore } from "../../../src/server/store/migrate.js";
import type { Store } from "../../../src/server/store/store.js";
import { ENGINES, useEngine } from "../../helpers/postgres.js";

const T0 = 1_800_000_000_000;

/** One machine's container engine: the boxes that exist there. */
function fakeMachineDriver(boxes: Set<string>): SandboxDriver {
  let next = 0;
  return {
    name: "docker",
    home: "/home/agent",
    async create(): Promise<CreatedBox> {
      const ref = `box-${++next}-${Math.random().toString(16).slice(2)}`;
      boxes.add(ref);
      return { ref, reach: {} };
    },
    prepare: async () => {
      throw new Error("this fake driver keeps no pool (the manager is given none)");
    },
    handOut: async () => {
      throw new Error("this fake driver keeps no pool (the manager is given none)");
    },
    exec: async () => ({ exitCode: 0, stdout: "", stderr: "", timedOut: false }),
    spawn: async () => {
      throw new Error("no long-lived commands in this fake driver");
    },
    copyOut: async () => {},
    stop: async () => {},
    start: async () => {},
    remove: async (ref) => {
      boxes.delete(ref);
    },
    exists: async (ref) => boxes.has(ref),
    reap: async () => [],
    detach: async () => {},
    close: async () => {},
  };
}

describe.each(ENGINES)("sandbox owners on the $name engine", (engine) => {
  const db = useEngine(engine);
  let clock = T0;
  const machines = { m1: new Set<string>(), m2: new Set<string>() };
  beforeEach(async () => {
    clock = T0;
    machines.m1.clear();
    machines.m2.clear();
    await migrateStore(db.store);
    await db.store.run("INSERT INTO workspaces (id, name, created_at) VALUES ('ws', 'Acme', ?)", [
      new Date(T0).toISOString(),
    ]);
  });

  let count = 0;
  function instance(machine: "m1" | "m2", store: Store = db.another(), exclusiveStore = false) {
    const identity: InstanceIdentity = { id: `${machine}/${String(++count).padStart(12, "0")}`, machine };
    return new SandboxManager({
      db: store,
      driver: fakeMachineDriver(machines[machine]),
      defaultImage: "baton-sandbox:test",
      now: () => new Date(clock),
      logger: pino({ level: "silent" }),
      instance: identity,
      exclusiveStore,
    });
  }
  const provision = async (manager: SandboxManager, engagementId: string) =>
    (await manager.provision({ workspaceId: "ws", engagementId })).box.sandboxId;
  const ownerOf = async (sandboxId: string) => (await getBox(db.store, sandboxId))?.ownerInstance;
  const stateOf = async (sandboxId: string) => (await getBox(db.store, sandboxId))?.state;

  it("a new box is recorded as the instance's that made it, with its machine", async () => {
    const a = instance("m1");
    const id = await provision(a, "eng_1");
    expect(await getBox(db.store, id)).toMatchObject({ ownerInstance: a.owner.id, ownerMachine: "m1" });
  });

  it("another machine's instance never records a live (or dead) instance's box lost, though its driver lacks it", async () => {
    const a = instance("m1");
    const id = await provision(a, "eng_1");
    const b = instance("m2");
    expect(await b.reconcile()).toEqual([]);
    clock += BOX_OWNER_LEASE_MS * 10;
    expect(await b.adopt()).toEqual([]);
    expect(await b.sweep()).toEqual([]);
    expect({ owner: await ownerOf(id), state: await stateOf(id) }).toEqual({
      owner: a.owner.id,
      state: "running",
    });
  });

  it("a live instance's box on the same machine is left to it; once its hold runs out the next instance there adopts it", async () => {
    const a = instance("m1");
    const id = await provision(a, "eng_1");
    const c = instance("m1");
    await c.reconcile();
    expect(await ownerOf(id)).toBe(a.owner.id);
    clock += BOX_OWNER_LEASE_MS - 1;
    await a.renewOwnership();
    clock += BOX_OWNER_LEASE_MS - 1;
    await c.adopt();
    expect(await ownerOf(id), "a renewed hold keeps the box").toBe(a.owner.id);
    clock += BOX_OWNER_LEASE_MS;
    await c.adopt();
    expect({ owner: await ownerOf(id), state: await stateOf(id) }).toEqual({
      owner: c.owner.id,
      state: "running",
    });
  });

  it("a dead instance's box that its machine no longer has is recorded lost by the next instance there", async () => {
    const id = await provision(instance("m1"), "eng_1");
    machines.m1.clear();
    clock += BOX_OWNER_LEASE_MS + 1;
    const c = instance("m1");
    expect(await c.reconcile()).toEqual([
      { sandboxId: id, transition: { from: "running", to: "deleted", reason: "lost" } },
    ]);
  });

  it("two instances on the machine adopting a dead one's 5 boxes at once give each box exactly one new owner", async () => {
    const a = instance("m1");
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await provision(a, `eng_${i}`));
    clock += BOX_OWNER_LEASE_MS + 1;
    const [c, d] = [instance("m1"), instance("m1")];
    await Promise.all([c.adopt(), d.adopt()]);
    const owners = await Promise.all(ids.map(ownerOf));
    expect(owners.every((owner) => owner === c.owner.id || owner === d.owner.id)).toBe(true);
  });

  it("a graceful stop frees the boxes at once for the next instance on the machine", async () => {
    const a = instance("m1");
    const id = await provision(a, "eng_1");
    await a.detach();
    const c = instance("m1");
    await c.reconcile();
    expect(await ownerOf(id)).toBe(c.owner.id);
  });

  it("a follow-up on an instance that cannot reach the engagement's live box gets a new box there, leaving the other alone", async () => {
    const a = instance("m1");
    const first = await provision(a, "eng_1");
    const b = instance("m2");
    const second = await provision(b, "eng_1");
    expect(second).not.toBe(first);
    expect({ owner: await ownerOf(first), state: await stateOf(first) }).toEqual({
      owner: a.owner.id,
      state: "running",
    });
    expect(await ownerOf(second)).toBe(b.owner.id);
  });
});
