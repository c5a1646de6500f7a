// The proxy under benchmark, in its own process so wrk and the driver never share its event loop: the real
// createProxy from dist with an in-process lease (one secret approved for https://api.bench.test) and a rule
// opening the upstream's namespace address. Prints {"port"} when listening. Args: <upstream address> <ca dir>.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pino } from "pino";
import { loadOrCreateCa } from "../dist/src/proxy/ca/authority.js";
import { createLeafIssuer } from "../dist/src/proxy/ca/leaves.js";
import {
  createProxy,
  createStaticLeaseSource,
  ProxyConfigSchema,
  toLeasePolicy,
} from "../dist/src/proxy/index.js";
import { createOwnAddresses } from "../dist/src/proxy/net/own-addresses.js";
import { tlsRootsWith } from "../dist/src/proxy/net/trust.js";

const [upstream, dir, lease, secretId, value] = process.argv.slice(2);
const ca = await loadOrCreateCa(join(dir, "proxy-state"));
const config = ProxyConfigSchema.parse({ allow: [{ name: "bench-upstream", cidr: [`${upstream}/32`] }] });
const policy = toLeasePolicy({
  sandboxId: "sbx_bench",
  workspaceId: "ws_bench",
  engagementId: "eng_bench",
  leaseExpiresAt: new Date(Date.now() + 3_600_000).toISOString(),
  secrets: [
    { id: secretId, placeholder: `baton-secret-${secretId}`, value, destinations: ["api.bench.test"] },
  ],
});
// Audit lines are written synchronously to a file descriptor, as `baton proxy` writes them to stderr, but to
// /dev/null: the bench measures the proxy, not the disk.
const audit = pino({ level: "info" }, pino.destination({ dest: "/dev/null", sync: true }));
const proxy = createProxy({
  config,
  leases: createStaticLeaseSource({ [lease]: policy }),
  resolver: { resolve: async () => [upstream] },
  ownAddresses: createOwnAddresses(),
  ca: { certPem: ca.certPem, leaves: createLeafIssuer(ca) },
  upstreamCa: tlsRootsWith(readFileSync(join(dir, "upstream-ca.pem"), "utf8")),
  audit: (record) => audit.info({ audit: record }, "decision"),
  logger: pino({ level: "silent" }),
});
proxy.server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: proxy.server.address().port })}\n`);
});
process.on("SIGTERM", () => proxy.drain(0).then(() => process.exit(0)));
