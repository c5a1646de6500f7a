// How the authorization server fetches documents named by clients (a Client ID Metadata Document at an https
// client_id, a `sector_identifier_uri`, a `jwks_uri`): the egress proxy's rule, at its edge. The name is resolved
// once, every address is judged by the proxy's classifier (only globally reachable ones pass; loopback, private,
// link-local, metadata, IPv4-mapped and translated forms do not), and the connection goes to a checked address,
// never to one a second resolution gives. oidc-provider's own guard judges the peer after connecting, so a
// loopback or private port learned of the TCP connection and a TLS ClientHello; this one opens no socket for them.
import { request } from "node:https";
import type { Socket } from "node:net";
import { connect as connectTls } from "node:tls";
import { checkDestination } from "../../../proxy/net/check-destination.js";
import { dialChecked } from "../../../proxy/net/dial.js";
import { createSystemResolver, type NameResolver } from "../../../proxy/net/resolver.js";
import { compilePolicy, parseTargetHost } from "../../../proxy/policy/index.js";

/** The whole fetch, resolution to the last byte; the library's own limit is 2.5 s. */
export const CLIENT_DOCUMENT_DEADLINE_MS = 2000;
/** No client document is larger: a CIMD is limited to 5 KiB by the library, a sector list or JWKS is small. */
export const CLIENT_DOCUMENT_MAX_BYTES = 64 * 1024;

export interface GuardedFetchOptions {
  resolver?: NameResolver;
  deadlineMs?: number;
  maxBytes?: number;
  /**
   * Test seam only (never set from a flag): loopback ports a test's own document server listens on. An address
   * is let through only when it is loopback and the port is one of these; every other port and class stays shut.
   */
  loopbackPorts?: readonly number[];
}

/** Only globally reachable addresses: no operator rules, outbound mail ports refused, as the proxy's defaults. */
const POLICY = compilePolicy({ allow: [], deny: [] });

export class ClientDocumentFetchError extends Error {
  override readonly name = "ClientDocumentFetchError";
}

/** Where a URL may be fetched from: the checked addresses to dial, or why not. Resolves names; opens no socket. */
export async function checkDocumentUrl(
  url: URL,
  options: Pick<GuardedFetchOptions, "resolver" | "loopbackPorts"> = {},
): Promise<{ addresses: string[]; port: number } | { refused: string }> {
  if (url.protocol !== "https:") return { refused: `${url.protocol} is not https` };
  if (url.username || url.password) return { refused: "a URL with credentials" };
  const host = parseTargetHost(url.hostname);
  if (!host.ok) return { refused: host.reason };
  const port = url.port ? Number(url.port) : 443;
  const resolver = options.resolver ?? createSystemResolver(CLIENT_DOCUMENT_DEADLINE_MS);
  const check = await checkDestination(
    { target: { host: host.value, port }, method: "GET" },
    { policy: POLICY, resolver, ownAddresses: () => new Set() },
  );
  if (check.verdict.allowed) return { addresses: check.dialable, port };
  const loopbackOnly = check.checks.length > 0 && check.checks.every((c) => c.class?.range === "loopback");
  if (loopbackOnly && options.loopbackPorts?.includes(port))
    return { addresses: check.checks.map((c) => c.address), port };
  return { refused: check.verdict.reason };
}

function withDeadline<T>(work: (signal: AbortSignal) => Promise<T>, ms: number, outer?: AbortSignal | null) {
  const signal = AbortSignal.any([AbortSignal.timeout(ms), ...(outer ? [outer] : [])]);
  return Promise.race([
    work(signal),
    new Promise<never>((_, reject) => {
      const fail = () => reject(new ClientDocumentFetchError(`no answer within ${ms} ms`));
      if (signal.aborted) fail();
      signal.addEventListener("abort", fail, { once: true });
    }),
  ]);
}

function readCapped(
  socket: Socket,
  url: URL,
  init: RequestInit,
  maxBytes: number,
  signal: AbortSignal,
): Promise<Response> {
  const literal = parseTargetHost(url.hostname);
  const servername = literal.ok && literal.value.kind === "name" ? url.hostname : undefined;
  const tls = connectTls({ socket, ...(servername ? { servername } : { host: url.hostname }) });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        createConnection: () => tls,
        host: url.hostname,
        port: url.port || 443,
        path: `${url.pathname}${url.search}`,
        method: init.method ?? "GET",
        headers: Object.fromEntries(new Headers(init.headers).entries()),
        signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            res.destroy();
            reject(new ClientDocumentFetchError(`the document is larger than ${maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on("error", reject);
        res.on("end", () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers))
            for (const one of [value ?? []].flat()) headers.append(name, one);
          const status = res.statusCode ?? 502;
          // Response refuses a body with 204/304 and statuses outside 200-599; the library wants 200 anyway.
          const ok = status >= 200 && status <= 599 && status !== 204 && status !== 304;
          resolve(new Response(ok ? Buffer.concat(chunks) : null, { status: ok ? status : 502, headers }));
        });
      },
    );
    req.on("error", (error) => {
      tls.destroy();
      reject(error);
    });
    req.end(typeof init.body === "string" ? init.body : undefined);
  });
}

/** A fetch for oidc-provider's `fetch` hook: resolve, judge, dial the checked address; capped and deadlined. */
export function createGuardedFetch(options: GuardedFetchOptions = {}): typeof fetch {
  const deadlineMs = options.deadlineMs ?? CLIENT_DOCUMENT_DEADLINE_MS;
  const maxBytes = options.maxBytes ?? CLIENT_DOCUMENT_MAX_BYTES;
  return (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    return withDeadline(
      async (signal) => {
        const where = await checkDocumentUrl(url, options);
        if ("refused" in where)
          throw new ClientDocumentFetchError(`${url.origin} is not fetched: ${where.refused}`);
        const { socket } = await dialChecked(where.addresses, where.port, deadlineMs);
        if (signal.aborted) {
          socket.destroy();
          throw new ClientDocumentFetchError(`no answer within ${deadlineMs} ms`);
        }
        return readCapped(socket, url, init, maxBytes, signal);
      },
      deadlineMs,
      init.signal,
    );
  };
}
