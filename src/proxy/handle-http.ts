// Absolute-form HTTP/1.1 requests (`GET http://host/path`): lease, target, policy, then forward to the checked
// address. The request is routed on the target's authority; a Host header that names another host or port is
// refused with 421 `host_mismatch` (as Smokescreen refuses it), never rewritten nor followed (issue 35 C.17).
import type { IncomingMessage, ServerResponse } from "node:http";
import { checkLease, leaseOf } from "./authenticate.js";
import type { ProxyContext } from "./context.js";
import { forwardRequest } from "./forward.js";
import { checkDestination } from "./net/check-destination.js";
import { hostHeaderNames } from "./net/http-head.js";
import { formatTarget, parseAbsoluteTarget } from "./policy/index.js";
import { finishRecord, finishRefusal, startRecord, withLease } from "./record.js";
import { renderRefusal } from "./refusal.js";
import { PROXY_ERRORS, PROXY_SELF_PATHS, type ProxyError } from "./wire.js";

export async function handleHttpRequest(
  context: ProxyContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const started = Date.now();
  const url = req.url ?? "";
  if (url.startsWith("/")) return answerSelf(context, req, res);
  const parsed = parseAbsoluteTarget(url);
  const record = startRecord(
    context,
    "http",
    req.method ?? "GET",
    parsed.ok ? parsed.value.host.host : "(invalid)",
    parsed.ok ? parsed.value.port : null,
  );
  const refuse = (error: ProxyError, rule: string, reason: string) => {
    const refusal = renderRefusal(error, { host: record.host, reason, requestId: record.requestId });
    res.writeHead(refusal.status, refusal.headers).end(refusal.body);
    finishRefusal(context, record, { error, rule, reason, started });
  };

  const lease = await checkLease(leaseOf(req.headers), context, req.socket.remoteAddress);
  if (!lease.ok) return refuse(lease.error, "lease", lease.reason);
  withLease(record, lease.policy);
  if (!parsed.ok) return refuse(PROXY_ERRORS.invalidTarget, "target", parsed.reason);
  const target = parsed.value;
  const check = await checkDestination({ target, method: record.method }, context);
  record.resolved = check.resolved;
  if (!check.verdict.allowed) return refuse(check.verdict.error, check.verdict.rule, check.verdict.reason);
  record.rule = check.verdict.rule;
  record.reason = check.verdict.reason;
  const authority = target.port === 80 ? formatTarget(target).replace(/:80$/, "") : formatTarget(target);
  const given = req.headers.host;
  if (given !== undefined && given.toLowerCase() !== authority) record.hostHeader = given;
  const agree = given === undefined || hostHeaderNames(given, target);
  // Its bytes go to the target: a Host naming another host is refused, whether or not a placeholder could be
  // swapped here (a shared address would otherwise serve a host the policy never checked).
  if (!agree) {
    return refuse(
      PROXY_ERRORS.hostMismatch,
      "endpoints",
      `the Host header ${given.slice(0, 260)} differs from ${authority}`,
    );
  }
  forwardRequest(context, {
    req,
    res,
    record,
    started,
    lease: lease.policy,
    origin:
      target.host.kind === "name"
        ? { scheme: "http", host: target.host.host, port: target.port, path: target.path }
        : null,
    address: check.dialable[0]!,
    port: target.port,
    path: target.path,
    hostHeader: authority,
    tlsServername: null,
    scheme: "http",
    targetHost: target.host.host,
    finish: (done) => finishRecord(context, done),
  });
}

/** Whether a Host header names the target's host and port (port 80 when it gives none). */
/** Origin-form requests are for the proxy itself: its health and its CA certificate (public). */
function answerSelf(context: ProxyContext, req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? "").split("?")[0];
  if (req.method === "GET" && path === PROXY_SELF_PATHS.health) {
    res.writeHead(200, { "content-type": "text/plain" }).end("ok\n");
    return;
  }
  if (req.method === "GET" && path === PROXY_SELF_PATHS.ca) {
    res.writeHead(200, { "content-type": "application/x-pem-file" }).end(context.ca.certPem);
    return;
  }
  const requestId = context.newRequestId();
  const refusal = renderRefusal(PROXY_ERRORS.invalidTarget, {
    host: "(none)",
    reason: "an origin-form request; the proxy answers only /healthz and /ca.pem itself",
    requestId,
  });
  res.writeHead(refusal.status, refusal.headers).end(refusal.body);
}
