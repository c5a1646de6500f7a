// Sends one request on to its upstream and the answer back (answer.ts): hop-by-hop headers dropped, placeholders
// swapped where approved, the checked address dialled (over TLS for the placeholder path), secret values in the
// answer replaced by their placeholders, and the audit line written when the exchange ends. An answer from a host
// that one of the sandbox's secrets is approved for is read uncompressed: the request asks for identity, gzip,
// deflate or br sent anyway is decoded, and any other content coding is refused (it could carry a value unseen).
import {
  type ClientRequest,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { request as httpsRequest } from "node:https";
import { hostMatches, type RequestOrigin } from "../capability/destination.js";
import { type AnswerCounts, HOP_BY_HOP, planAnswer, sendAnswer } from "./answer.js";
import type { AuditRecord } from "./audit.js";
import type { ProxyContext } from "./context.js";
import type { LeasePolicy } from "./lease/policy.js";
import { renderRefusal } from "./refusal.js";
import { scrubPairs } from "./secrets/scrub.js";
import { substitutePlaceholders } from "./secrets/substitute.js";
import { PROXY_ERRORS, type ProxyError } from "./wire.js";

function endToEnd(rawHeaders: readonly string[]): [string, string][] {
  const named = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() === "connection") {
      for (const token of rawHeaders[i + 1]!.split(",")) named.add(token.trim().toLowerCase());
    }
  }
  const out: [string, string][] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const lower = rawHeaders[i]!.toLowerCase();
    if (!HOP_BY_HOP.has(lower) && !named.has(lower)) out.push([rawHeaders[i]!, rawHeaders[i + 1]!]);
  }
  return out;
}

export interface ForwardInput {
  req: IncomingMessage;
  res: ServerResponse;
  record: AuditRecord;
  started: number;
  lease: LeasePolicy;
  /** Where the request goes; null origin when authority, SNI and Host disagree (nothing is swapped then). */
  origin: RequestOrigin | null;
  address: string;
  port: number;
  path: string;
  /** The Host header to send (absolute-form: the target's authority; placeholder path: the client's own). */
  hostHeader: string;
  tlsServername: string | null;
  /** The scheme and host the request was routed on (the CONNECT or absolute-form authority). */
  scheme: "http" | "https";
  targetHost: string;
  finish: (record: AuditRecord) => void;
}

export function forwardRequest(context: ProxyContext, input: ForwardInput): void {
  const { req, res, record, lease } = input;
  const headers = endToEnd(req.rawHeaders).filter(([name]) => name.toLowerCase() !== "host");
  const substitution = substitutePlaceholders(
    headers,
    { secrets: lease.secrets, origin: input.origin, headers: context.substituteHeaders },
    input.path,
  );
  // Only the values of secrets approved for this host and port can travel here, so only they (and the encoded
  // headers the proxy rewrote) are looked for in the answer; an opaque tunnel cannot be read anyway.
  const pairs = scrubPairs(
    lease.secrets.filter((secret) =>
      secret.destinations.some(
        (d) => d.scheme === input.scheme && d.port === input.port && hostMatches(d.host, input.targetHost),
      ),
    ),
    substitution.rewrites,
  );
  const outHeaders = substitution.headers;
  if (pairs.length > 0) {
    // The answer must be readable to replace a value it echoes: ask for it uncompressed.
    for (let i = outHeaders.length - 1; i >= 0; i--) {
      if (outHeaders[i]![0].toLowerCase() === "accept-encoding") outHeaders.splice(i, 1);
    }
    outHeaders.push(["accept-encoding", "identity"]);
  }
  record.substitution = {
    swapped: substitution.swapped,
    unapproved: substitution.unapproved,
    unknown: substitution.unknown,
    scrubbed: 0,
  };

  let bytesUp = 0;
  const counts: AnswerCounts = { bytesDown: 0, scrubbed: 0 };
  let upstream: ClientRequest | undefined;
  let connectTimer: NodeJS.Timeout | undefined;
  let done = false;
  const end = () => {
    if (done) return;
    done = true;
    clearTimeout(connectTimer);
    record.bytesUp = bytesUp;
    record.bytesDown = counts.bytesDown;
    record.substitution!.scrubbed = counts.scrubbed;
    record.durationMs = Date.now() - input.started;
    input.finish(record);
  };
  res.on("finish", end);
  res.on("close", () => {
    if (!res.writableFinished) upstream?.destroy();
    end();
  });
  const fail = (error: ProxyError, reason: string) => {
    if (res.writableEnded) return;
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const refusal = renderRefusal(error, { host: record.host, reason, requestId: record.requestId });
    res.writeHead(refusal.status, refusal.headers).end(refusal.body);
    Object.assign(record, {
      decision: error.status >= 500 ? "error" : "deny",
      error: error.code,
      status: error.status,
      reason,
    });
  };

  if (substitution.ambiguous !== null) {
    req.resume();
    fail(PROXY_ERRORS.ambiguousCredentials, substitution.ambiguous);
    return;
  }
  if (substitution.unusable.length > 0) {
    req.resume();
    fail(
      PROXY_ERRORS.secretUnusable,
      `the value of ${substitution.unusable.join(", ")} cannot be sent in a header`,
    );
    return;
  }

  const flat: string[] = [];
  for (const [name, value] of outHeaders) flat.push(name, value);
  flat.push("Host", input.hostHeader);
  const options = {
    host: input.address,
    port: input.port,
    method: req.method,
    path: input.path,
    headers: flat,
    setHost: false,
  };
  record.dialled = input.address;
  try {
    upstream = input.tlsServername
      ? httpsRequest({ ...options, servername: input.tlsServername, agent: context.httpsAgent })
      : httpRequest({ ...options, agent: context.httpAgent });
  } catch (error) {
    // Node refuses to build the request (a header it will not send): an answer, never a crash.
    req.resume();
    fail(PROXY_ERRORS.upstreamUnreachable, `the request could not be sent (${errorCode(error)})`);
    return;
  }
  const outgoing = upstream;

  outgoing.on("socket", (socket) => {
    socket.setNoDelay(true);
    if (!socket.connecting) return;
    connectTimer = setTimeout(() => {
      fail(PROXY_ERRORS.upstreamTimeout, `no connection within ${context.config.timeouts.connectMs} ms`);
      outgoing.destroy();
    }, context.config.timeouts.connectMs);
    socket.once("connect", () => clearTimeout(connectTimer));
  });
  outgoing.setTimeout(context.config.timeouts.idleMs, () => {
    fail(PROXY_ERRORS.upstreamTimeout, `no answer within ${context.config.timeouts.idleMs} ms`);
    outgoing.destroy();
  });
  outgoing.on("error", (error: NodeJS.ErrnoException) => {
    clearTimeout(connectTimer);
    const tlsTrouble = /certificate|self.signed|unable to verify|CERT_/i.test(
      `${error.code} ${error.message}`,
    );
    if (error.code === "HPE_HEADER_OVERFLOW") {
      fail(
        PROXY_ERRORS.upstreamHeadersTooLarge,
        "the upstream's answer headers are larger than the proxy reads (16 KiB)",
      );
      return;
    }
    fail(
      PROXY_ERRORS.upstreamUnreachable,
      tlsTrouble
        ? `the upstream's TLS certificate is not trusted (${error.code ?? "tls"})`
        : `${error.code ?? error.message}`,
    );
  });
  outgoing.on("response", (answer) => {
    clearTimeout(connectTimer);
    const plan = planAnswer(answer, req.method, pairs);
    if ("refuse" in plan) {
      answer.destroy();
      fail(PROXY_ERRORS.answerEncodingUnsupported, plan.refuse);
      return;
    }
    record.status = answer.statusCode ?? 502;
    sendAnswer(answer, res, plan, pairs, counts);
  });
  req.on("data", (chunk: Buffer) => {
    bytesUp += chunk.length;
  });
  req.pipe(outgoing);
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? "error";
}
