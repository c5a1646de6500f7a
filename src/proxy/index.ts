// `baton proxy`'s public face: the server, its ports (lease source, refusal sink), the policy and the CA.
export { type AuditRecord, type AuditSink, createAuditSink } from "./audit.js";
export { caPaths, loadOrCreateCa, readCaCertificate, rotateCa } from "./ca/authority.js";
export { createLeafIssuer } from "./ca/leaves.js";
export type { ProxyCa, ProxyDeps } from "./context.js";
export { createHttpLeaseSource } from "./lease/http-source.js";
export {
  createStaticLeaseSource,
  type LeasePolicy,
  type LeasePolicySource,
  type LeaseSecret,
  toLeasePolicy,
} from "./lease/policy.js";
export * from "./lease/wire.js";
export { createOwnAddresses } from "./net/own-addresses.js";
export { createServerResolver, createSystemResolver, type NameResolver } from "./net/resolver.js";
export * from "./policy/index.js";
export { createHttpRefusalSink, createMemoryRefusalSink, type RefusalSink } from "./refusals-sink.js";
export { createProxy, type EgressProxy } from "./server.js";
export * from "./wire.js";
