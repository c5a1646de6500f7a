// CONNECT host:port. After the lease and the policy, either an opaque tunnel to the checked address (the normal
// case: bytes pass untouched, SNI noted for the audit) or, when this sandbox has a secret approved for exactly
// this https host and port, the placeholder path (TLS terminated with the proxy's CA; see mitm.ts).
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { hostMatches } from "../capability/destination.js";
import { checkLease, leaseOf } from "./authenticate.js";
import type { ProxyContext } from "./context.js";
import type { LeasePolicy } from "./lease/policy.js";
import { watchLease } from "./lease/watch.js";
import type { MitmSession } from "./mitm.js";
import { checkDestination } from "./net/check-destination.js";
import { DialError, dialChecked } from "./net/dial.js";
import { readClientHelloSni } from "./net/sni.js";
import { parseAuthority, type Target } from "./policy/index.js";
import { finishRecord, finishRefusal, startRecord, withLease } from "./record.js";
import { rawRefusal, renderRefusal } from "./refusal.js";
import { PROXY_ERRORS, type ProxyError } from "./wire.js";

const ESTABLISHED = "HTTP/1.1 200 Connection Established\r\n\r\n";

/** The placeholder path applies when one of the sandbox's secrets names this https host and port. */
export function needsPlaceholderPath(lease: LeasePolicy, target: Target): boolean {
  if (target.host.kind !== "name") return false;
  const host = target.host.host;
  return lease.secrets.some((s) =>
    s.destinations.some((d) => d.scheme === "https" && d.port === target.port && hostMatches(d.host, host)),
  );
}

export async function handleConnect(
  context: ProxyContext,
  req: IncomingMessage,
  client: Socket,
  head: Buffer,
  startMitm: (session: MitmSession) => void,
): Promise<void> {
  const started = Date.now();
  const parsed = parseAuthority(req.url ?? "");
  const record = startRecord(
    context,
    "connect",
    "CONNECT",
    parsed.ok ? parsed.value.host.host : "(invalid)",
    parsed.ok ? parsed.value.port : null,
  );
  client.on("error", () => client.destroy());
  const refuse = (error: ProxyError, rule: string, reason: string) => {
    const refusal = renderRefusal(error, { host: record.host, reason, requestId: record.requestId });
    client.end(rawRefusal(refusal));
    finishRefusal(context, record, { error, rule, reason, started });
  };

  const lease = await checkLease(leaseOf(req.headers), context, client.remoteAddress);
  if (!lease.ok) return refuse(lease.error, "lease", lease.reason);
  withLease(record, lease.policy);
  if (!parsed.ok) return refuse(PROXY_ERRORS.invalidTarget, "target", parsed.reason);
  const target = parsed.value;
  const check = await checkDestination({ target, method: null }, context);
  record.resolved = check.resolved;
  if (!check.verdict.allowed) return refuse(check.verdict.error, check.verdict.rule, check.verdict.reason);
  record.rule = check.verdict.rule;
  record.reason = check.verdict.reason;

  if (needsPlaceholderPath(lease.policy, target)) {
    client.write(ESTABLISHED);
    if (head.length > 0) client.unshift(head);
    record.kind = "mitm";
    record.durationMs = Date.now() - started;
    // The CONNECT itself gets its line; each request inside the tunnel gets its own.
    finishRecord(context, { ...record, dialled: null });
    startMitm({
      client,
      lease: lease.lease,
      target,
      addresses: check.dialable,
      connectRecord: record,
    });
    return;
  }

  let upstream: Socket;
  try {
    const dialled = await dialChecked(check.dialable, target.port, context.config.timeouts.connectMs);
    upstream = dialled.socket;
    record.dialled = dialled.address;
  } catch (error) {
    const timedOut = error instanceof DialError && error.timedOut;
    return refuse(
      timedOut ? PROXY_ERRORS.upstreamTimeout : PROXY_ERRORS.upstreamUnreachable,
      record.rule,
      error instanceof Error ? error.message : "cannot connect",
    );
  }
  if (client.destroyed) {
    upstream.destroy();
    return;
  }
  client.write(ESTABLISHED);
  const firstBytes = (chunk: Buffer) => {
    record.sni = readClientHelloSni(chunk);
  };
  if (head.length > 0) {
    firstBytes(head);
    upstream.write(head);
  } else {
    client.once("data", firstBytes);
  }
  upstream.setTimeout(context.config.timeouts.idleMs, () => upstream.destroy());
  client.pipe(upstream);
  upstream.pipe(client);
  let closed = false;
  // The tunnel lives no longer than its lease: looked up again at its expiry and as often as the cache allows.
  const stopWatching = watchLease(
    context.leases,
    lease.lease,
    lease.policy,
    Math.max(1_000, context.config.leaseCacheSeconds * 1_000),
    () => {
      record.reason = `${record.reason}; ended: lease expired or revoked`;
      close();
    },
  );
  const close = () => {
    if (closed) return;
    closed = true;
    stopWatching();
    client.destroy();
    upstream.destroy();
    record.bytesUp = upstream.bytesWritten;
    record.bytesDown = upstream.bytesRead;
    record.durationMs = Date.now() - started;
    finishRecord(context, record);
  };
  upstream.on("error", close);
  upstream.on("close", close);
  client.on("close", close);
}
