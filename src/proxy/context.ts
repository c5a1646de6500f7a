// What every request handler of the proxy receives. Built once by `createProxy`; the CA part is replaced on
// SIGHUP after `baton proxy rotate-ca`.
import type { Agent as HttpAgent } from "node:http";
import type { Agent as HttpsAgent } from "node:https";
import type { Logger } from "pino";
import type { AuditSink } from "./audit.js";
import type { LeafIssuer } from "./ca/leaves.js";
import type { LeasePolicySource } from "./lease/policy.js";
import type { NameResolver } from "./net/resolver.js";
import type { CompiledPolicy, ProxyConfig } from "./policy/index.js";
import type { RefusalSink } from "./refusals-sink.js";

export interface ProxyCa {
  certPem: string;
  leaves: LeafIssuer;
}

export interface ProxyDeps {
  config: ProxyConfig;
  leases: LeasePolicySource;
  resolver: NameResolver;
  ownAddresses: () => ReadonlySet<string>;
  ca: ProxyCa;
  /** PEM certificates the proxy trusts for upstream TLS on the placeholder path. */
  upstreamCa: readonly string[];
  audit: AuditSink;
  refusals?: RefusalSink | undefined;
  logger: Logger;
}

export interface ProxyContext extends ProxyDeps {
  policy: CompiledPolicy;
  substituteHeaders: ReadonlySet<string>;
  httpAgent: HttpAgent;
  httpsAgent: HttpsAgent;
  newRequestId(): string;
}
