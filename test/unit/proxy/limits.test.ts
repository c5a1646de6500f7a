// The connection ledger behind the caps (issue 21 point 13): a total cap checked at accept, a per-lease cap
// checked when a request names its lease, and both freed when a connection closes.
import { describe, expect, it } from "vitest";
import { createConnectionLedger } from "../../../src/proxy/limits.js";

const sockets = (n: number) => Array.from({ length: n }, () => ({}));

describe("createConnectionLedger", () => {
  it("admits up to maxConnections and one more once a connection has closed", () => {
    const ledger = createConnectionLedger<object>({ maxConnections: 2, maxConnectionsPerLease: 10 });
    const [a, b, c] = sockets(3) as [object, object, object];
    expect([ledger.admit(a), ledger.admit(b), ledger.admit(c)]).toEqual([true, true, false]);
    ledger.release(a);
    expect(ledger.admit(c)).toBe(true);
    expect(ledger.open()).toBe(2);
  });

  it("counts each connection once for the lease of its latest request; other leases have their own count", () => {
    const ledger = createConnectionLedger<object>({ maxConnections: 10, maxConnectionsPerLease: 2 });
    const [a, b, c, d] = sockets(4) as [object, object, object, object];
    for (const s of [a, b, c, d]) ledger.admit(s);
    expect(ledger.claim(a, "L")).toBe(true);
    expect(ledger.claim(a, "L")).toBe(true); // keep-alive: the same connection again
    expect(ledger.claim(b, "L")).toBe(true);
    expect(ledger.claim(c, "L")).toBe(false);
    expect(ledger.heldBy("L")).toBe(2);
    expect(ledger.claim(c, "M")).toBe(true);
    // A connection that moves to another lease leaves its place in the first.
    expect(ledger.claim(b, "M")).toBe(true);
    expect([ledger.heldBy("L"), ledger.heldBy("M")]).toEqual([1, 2]);
    ledger.release(a);
    expect(ledger.heldBy("L")).toBe(0);
    expect(ledger.claim(d, "L")).toBe(true);
  });
});
