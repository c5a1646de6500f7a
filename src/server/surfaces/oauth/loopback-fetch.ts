// A test seam for a spawned `baton serve` (BATON_SERVE_TEST_LOOPBACK_CLIENT_DOCUMENTS=<port>[,<port>…]): the
// authorization server may fetch client documents from loopback, on exactly these ports, where a test serves
// them over https with its own CA. No flag sets it; every other loopback port, and every private, link-local or
// metadata address, stays refused before any connection (guarded-fetch.ts).
import { createGuardedFetch } from "./guarded-fetch.js";

export const LOOPBACK_CLIENT_DOCUMENTS_ENV = "BATON_SERVE_TEST_LOOPBACK_CLIENT_DOCUMENTS";

/** The ports the seam names, or undefined when unset or not a list of ports (then nothing is opened). */
export function loopbackPortsOf(value: string | undefined): number[] | undefined {
  if (!value || !/^\d{1,5}(,\d{1,5})*$/.test(value)) return undefined;
  const ports = value.split(",").map(Number);
  return ports.every((p) => p >= 1 && p <= 65535) ? ports : undefined;
}

/** The guarded fetch, letting through the test's own loopback document servers on `ports`. */
export function fetchAllowingLoopback(ports: readonly number[]): typeof fetch {
  return createGuardedFetch({ loopbackPorts: ports });
}
