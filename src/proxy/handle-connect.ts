// CONNECT host:port. After the lease and the policy, either an opaque tunnel to the checked address (the normal
// case: bytes pass untouched, SNI noted for the audit; a tunnel whose first bytes are plain HTTP is served request
// by request, each Host naming the tunnel's authority: net/http-head.ts, plain-tunnel.ts) or, when this sandbox
// has a secret approved for exactly
// this https host and port, the placeholder path (TLS terminated with the proxy's CA; see mitm.ts).
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { hostMatches } from "../capability/destination.js";
import type { AuditRecord } from "./audit.js";
import { checkLease, leaseOf } from "./authenticate.js";
import type { ProxyContext } from "./context.js";
import type { LeasePolicy } from "./lease/policy.js";
import { watchLease } from "./lease/watch.js";
import type { Mitm } from "./mitm.js";
import { checkDestination } from "./net/check-destination.js";
import { DialError, dialChecked } from "./net/dial.js";
import { collectHttpHead, misdirectedRequest } from "./net/http-head.js";
import { collectClientHello, MAX_HELLO_BYTES, readClientHelloSni } from "./net/sni.js";
import { parseAuthority, type Target } from "./policy/index.js";
import { finishRecord, finishRefusal, startRecord, withLease } from "./record.js";
import { rawRefusal, renderRefusal } from "./refusal.js";
import { PROXY_ERRORS, type ProxyError } from "./wire.js";

const ESTABLISHED = "HTTP/1.1 200 Connection Established\r\n\r\n";

/** Whether one of the sandbox's secrets is approved for this scheme, host and port (any path). */
export function hasSecretAt(lease: LeasePolicy, scheme: "http" | "https", target: Target): boolean {
  if (target.host.kind !== "name") return false;
  const host = target.host.host;
  return lease.secrets.some((s) =>
    s.destinations.some((d) => d.scheme === scheme && d.port === target.port && hostMatches(d.host, host)),
  );
}

/** The placeholder path applies when one of the sandbox's secrets names this https host and port. */
export function needsPlaceholderPath(lease: LeasePolicy, target: Target): boolean {
  return hasSecretAt(lease, "https", target);
}

export async function handleConnect(
  context: ProxyContext,
  req: IncomingMessage,
  client: Socket,
  head: Buffer,
  tunnels: Pick<Mitm, "start" | "startPlain">,
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
    tunnels.start({
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
  upstream.setTimeout(context.config.timeouts.idleMs, () => upstream.destroy());
  // The upstream may speak first (SSH, SMTP banners): its bytes flow at once. The client's first bytes wait
  // until its TLS hello has been read, so a hello naming another host never reaches the upstream.
  upstream.pipe(client);
  let closed = false;
  let refusal: { error: ProxyError; reason: string; rule: string; answer: Buffer | string } | null = null;
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
    upstream.destroy();
    record.bytesUp = upstream.bytesWritten;
    record.bytesDown = upstream.bytesRead;
    if (refusal) {
      client.end(refusal.answer);
      finishRefusal(context, record, {
        error: refusal.error,
        reason: refusal.reason,
        rule: refusal.rule,
        started,
      });
      return;
    }
    client.destroy();
    record.durationMs = Date.now() - started;
    finishRecord(context, record);
  };
  upstream.on("error", close);
  upstream.on("close", close);
  client.on("close", close);

  const first = await readFirstBytes(client, head);
  if (closed) return;
  const hello = collectClientHello(first);
  if (hello.done && hello.tls) {
    record.sni = hello.hello ? readClientHelloSni(hello.hello) : null;
    const misdirected = misdirectedHello(lease.policy, target, record.sni, hello.hello === null);
    if (misdirected) {
      // An alert, so the client's TLS stack says "access denied" rather than a bare reset.
      refusal = { ...misdirected, rule: "sni", answer: TLS_ACCESS_DENIED };
      close();
      return;
    }
  } else if (hello.done) {
    const httpHead = collectHttpHead(first);
    const reason = misdirectedRequest(httpHead, target);
    if (reason) {
      // Answered in the tunnel, in the HTTP the client speaks there; nothing reaches the upstream.
      const answer = renderRefusal(PROXY_ERRORS.hostMismatch, {
        host: record.host,
        reason,
        requestId: record.requestId,
      });
      refusal = { error: PROXY_ERRORS.hostMismatch, reason, rule: "endpoints", answer: rawRefusal(answer) };
      close();
      return;
    }
    if (httpHead.done && httpHead.http && record.dialled) {
      // Plain HTTP: every request of the tunnel is read and judged, not only this first one (a keep-alive client
      // could name another Host in its second): the proxy's own server serves it request by request
      // (plain-tunnel.ts), each forwarded to the address dialled here. The tunnel's line is written when it closes.
      handOverPlainHttp(context, { client, upstream, record, started, lease, target, first, tunnels, close });
      closed = true;
      stopWatching();
      return;
    }
  }
  if (first.length > 0) upstream.write(first);
  // A client that sent its last bytes and its end before the hello was complete: pass the end on too.
  if (client.readableEnded) upstream.end();
  else client.pipe(upstream);
}

/** Hands an opaque tunnel carrying plain HTTP to the proxy's own server; the dialled connection is not used. */
function handOverPlainHttp(
  context: ProxyContext,
  tunnel: {
    client: Socket;
    upstream: Socket;
    record: AuditRecord;
    started: number;
    lease: { lease: string; policy: LeasePolicy };
    target: Target;
    first: Buffer;
    tunnels: Pick<Mitm, "startPlain">;
    close: () => void;
  },
): void {
  const { client, upstream, record } = tunnel;
  upstream.off("error", tunnel.close);
  upstream.off("close", tunnel.close);
  client.off("close", tunnel.close);
  upstream.on("error", () => {});
  upstream.unpipe(client);
  upstream.destroy();
  const stopWatching = watchLease(
    context.leases,
    tunnel.lease.lease,
    tunnel.lease.policy,
    Math.max(1_000, context.config.leaseCacheSeconds * 1_000),
    () => {
      record.reason = `${record.reason}; ended: lease expired or revoked`;
      client.destroy();
    },
  );
  client.once("close", () => {
    stopWatching();
    record.durationMs = Date.now() - tunnel.started;
    finishRecord(context, record);
  });
  tunnel.tunnels.startPlain(
    {
      client,
      lease: tunnel.lease.lease,
      target: tunnel.target,
      addresses: [record.dialled!],
      connectRecord: record,
    },
    tunnel.first,
  );
}

/** A fatal TLS alert record: access_denied (49). */
const TLS_ACCESS_DENIED = Buffer.from([21, 3, 3, 0, 2, 2, 49]);

/**
 * An opaque tunnel (the CONNECT host has no secret here) must not carry a TLS hello that names a host one of the
 * sandbox's secrets is approved for: the bytes would reach the CONNECT host's address under that name.
 */
function misdirectedHello(
  lease: LeasePolicy,
  target: Target,
  sni: string | null,
  unreadable: boolean,
): { error: ProxyError; reason: string } | null {
  if (unreadable && lease.secrets.length > 0) {
    return {
      error: PROXY_ERRORS.sniMismatch,
      reason: `a TLS hello over ${MAX_HELLO_BYTES} bytes, whose server name the proxy cannot read`,
    };
  }
  if (sni === null) return null;
  const named = parseAuthority(`${sni}:${target.port}`);
  if (!named.ok || named.value.host.host === target.host.host) return null;
  if (!needsPlaceholderPath(lease, named.value)) return null;
  return {
    error: PROXY_ERRORS.sniMismatch,
    reason: `the TLS hello names ${named.value.host.host}, a host with secrets, in a tunnel to ${target.host.host}`,
  };
}

/** Whether the first bytes are all the proxy reads: a whole TLS hello, or not TLS and a whole HTTP head (or not HTTP). */
function firstBytesComplete(data: Buffer): boolean {
  const hello = collectClientHello(data);
  if (!hello.done) return false;
  return hello.tls || collectHttpHead(data).done;
}

/**
 * The client's first bytes in the tunnel: enough for a whole TLS hello, or a plain HTTP request's whole head, or
 * whatever came before it closed.
 */
function readFirstBytes(client: Socket, head: Buffer): Promise<Buffer> {
  let data = head;
  if (firstBytesComplete(data)) return Promise.resolve(data);
  return new Promise((resolve) => {
    const finish = () => {
      client.pause();
      client.off("data", onData);
      client.off("end", finish);
      client.off("close", finish);
      resolve(data);
    };
    const onData = (chunk: Buffer) => {
      data = data.length === 0 ? chunk : Buffer.concat([data, chunk]);
      if (firstBytesComplete(data)) finish();
    };
    client.on("data", onData);
    client.once("end", finish);
    client.once("close", finish);
    client.resume();
  });
}
