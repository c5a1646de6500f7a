// Sends one request on to its upstream and the answer back: hop-by-hop headers dropped, placeholders swapped
// where approved, the checked address dialled (over TLS for the placeholder path), secret values in the answer
// replaced by their placeholders, and the audit line written when the exchange ends.
import { request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { request as httpsRequest } from "node:https";
import { hostMatches, type RequestOrigin } from "../capability/destination.js";
import type { AuditRecord } from "./audit.js";
import type { ProxyContext } from "./context.js";
import type { LeasePolicy } from "./lease/policy.js";
import { renderRefusal } from "./refusal.js";
import { createScrubStream, scrubPairs, scrubText } from "./secrets/scrub.js";
import { substitutePlaceholders } from "./secrets/substitute.js";
import { PROXY_ERRORS, type ProxyError } from "./wire.js";

const HOP_BY_HOP = new Set([
  "connection",
  "proxy-connection",
  "keep-alive",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

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
  const outHeaders = substitution.headers;
  if (substitution.swapped.length > 0) {
    // The answer must be readable to replace a value it echoes: ask for it uncompressed.
    for (let i = outHeaders.length - 1; i >= 0; i--) {
      if (outHeaders[i]![0].toLowerCase() === "accept-encoding") outHeaders.splice(i, 1);
    }
    outHeaders.push(["accept-encoding", "identity"]);
  }
  // Only the values of secrets approved for this host and port can travel here, so only they are looked for
  // in the answer (elsewhere the value never left the proxy, and an opaque tunnel cannot be read anyway).
  const pairs = scrubPairs(
    lease.secrets.filter((secret) =>
      secret.destinations.some(
        (d) => d.scheme === input.scheme && d.port === input.port && hostMatches(d.host, input.targetHost),
      ),
    ),
  );
  record.dialled = input.address;
  record.substitution = {
    swapped: substitution.swapped,
    unapproved: substitution.unapproved,
    unknown: substitution.unknown,
    scrubbed: 0,
  };
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
  const upstream = input.tlsServername
    ? httpsRequest({
        ...options,
        servername: input.tlsServername,
        agent: context.httpsAgent,
      })
    : httpRequest({ ...options, agent: context.httpAgent });

  let answered = false;
  let bytesUp = 0;
  let scrubCount: () => number = () => 0;
  const fail = (error: ProxyError, reason: string) => {
    if (answered || res.headersSent) {
      res.destroy();
      return;
    }
    answered = true;
    const refusal = renderRefusal(error, { host: record.host, reason, requestId: record.requestId });
    res.writeHead(refusal.status, refusal.headers).end(refusal.body);
    Object.assign(record, { decision: "error", error: error.code, status: error.status, reason });
  };

  let connectTimer: NodeJS.Timeout | undefined;
  upstream.on("socket", (socket) => {
    socket.setNoDelay(true);
    if (!socket.connecting) return;
    connectTimer = setTimeout(() => {
      fail(PROXY_ERRORS.upstreamTimeout, `no connection within ${context.config.timeouts.connectMs} ms`);
      upstream.destroy();
    }, context.config.timeouts.connectMs);
    socket.once("connect", () => clearTimeout(connectTimer));
  });
  upstream.setTimeout(context.config.timeouts.idleMs, () => {
    fail(PROXY_ERRORS.upstreamTimeout, `no answer within ${context.config.timeouts.idleMs} ms`);
    upstream.destroy();
  });
  upstream.on("error", (error: NodeJS.ErrnoException) => {
    clearTimeout(connectTimer);
    const tlsTrouble = /certificate|self.signed|unable to verify|CERT_/i.test(
      `${error.code} ${error.message}`,
    );
    fail(
      PROXY_ERRORS.upstreamUnreachable,
      tlsTrouble
        ? `the upstream's TLS certificate is not trusted (${error.code ?? "tls"})`
        : `${error.code ?? error.message}`,
    );
  });
  upstream.on("response", (answer) => {
    clearTimeout(connectTimer);
    answered = true;
    const out: string[] = [];
    let scrubbed = 0;
    const encoding = (answer.headers["content-encoding"] ?? "identity").toLowerCase();
    const scrubBody = pairs.length > 0 && (encoding === "identity" || encoding === "");
    const raw = answer.rawHeaders;
    const named = new Set(
      (answer.headers.connection ?? "")
        .split(",")
        .map((t) => t.trim().toLowerCase())
        .filter(Boolean),
    );
    for (let i = 0; i < raw.length; i += 2) {
      const lower = raw[i]!.toLowerCase();
      if (HOP_BY_HOP.has(lower) || named.has(lower)) continue;
      if (scrubBody && lower === "content-length") continue; // the body may change length: send it chunked
      const cleaned = pairs.length > 0 ? scrubText(raw[i + 1]!, pairs) : { text: raw[i + 1]!, count: 0 };
      scrubbed += cleaned.count;
      out.push(raw[i]!, cleaned.text);
    }
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
    record.status = answer.statusCode ?? 502;
    if (scrubBody) {
      const scrub = createScrubStream(pairs);
      scrubCount = () => scrubbed + scrub.count();
      answer.pipe(scrub).pipe(res);
    } else {
      scrubCount = () => scrubbed;
      answer.pipe(res);
    }
  });
  req.on("data", (chunk: Buffer) => {
    bytesUp += chunk.length;
  });
  req.pipe(upstream);
  let bytesDown = 0;
  const write = res.write.bind(res);
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (chunk) bytesDown += typeof chunk === "string" ? Buffer.byteLength(chunk) : (chunk as Buffer).length;
    return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof res.write;
  let done = false;
  const end = () => {
    if (done) return;
    done = true;
    clearTimeout(connectTimer);
    record.bytesUp = bytesUp;
    record.bytesDown = bytesDown;
    record.substitution!.scrubbed = scrubCount();
    record.durationMs = Date.now() - input.started;
    input.finish(record);
  };
  res.on("finish", end);
  res.on("close", () => {
    if (!res.writableFinished) upstream.destroy();
    end();
  });
}
