// The plumbing every fake model API shares: an HTTP server on 127.0.0.1 (HTTPS when given a key and certificate),
// every request recorded with its headers and parsed body before the vendor's handler answers it.
import { createServer as createHttp, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttps } from "node:https";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/v1/messages?beta=true`. */
  path: string;
  /** Lower-case names, as Node gives them: the key header among them. */
  headers: Record<string, string | string[] | undefined>;
  /** The JSON body, or the raw text when it is not JSON. */
  body: unknown;
  /** The script step it was answered with; null: the script had ended; undefined: a side call or another route. */
  step?: number | null;
  /** Tool names the request offered, when it offered any (`<namespace>/<name>` for a namespace's). */
  tools?: string[];
  /** Why the fake could not answer it (a script step no offered tool fits): it answered 400. */
  error?: string;
  /** When its first bytes arrived (ms since the epoch): the benchmark's "first model request". */
  receivedAtMs?: number;
}

export interface FakeModelOptions {
  /** HTTPS with this key and certificate (PEM) instead of plain HTTP. */
  tls?: { key: string; cert: string };
  /** The port to listen on (default: any free one). */
  port?: number;
  /** The address to listen on (default 127.0.0.1; a proxy in another network namespace needs one it reaches). */
  host?: string;
}

export interface FakeModel {
  /** `http(s)://<host>:<port>`; each vendor's fake says which path prefix its SDK wants. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export type Handler = (record: RecordedRequest, res: ServerResponse) => void | Promise<void>;

export async function startFakeServer(options: FakeModelOptions, handle: Handler): Promise<FakeModel> {
  const requests: RecordedRequest[] = [];
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const receivedAtMs = Date.now();
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = text;
      try {
        body = text === "" ? undefined : JSON.parse(text);
      } catch {}
      const record: RecordedRequest = {
        method: req.method ?? "GET",
        path: req.url ?? "/",
        headers: req.headers,
        body,
        receivedAtMs,
      };
      requests.push(record);
      try {
        await handle(record, res);
      } catch (error) {
        // A 400, which SDKs do not retry: the script is wrong for this agent, and the test should say so.
        record.error = String(error);
        if (!res.headersSent) res.writeHead(400, { "content-type": "application/json" });
        res.end(
          JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: record.error } }),
        );
      }
    })();
  };
  const server = options.tls
    ? createHttps({ key: options.tls.key, cert: options.tls.cert }, listener)
    : createHttp(listener);
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? "https" : "http"}://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** Server-sent events, each `event: <type>` then its JSON data. */
export function sendEvents(
  res: ServerResponse,
  events: readonly ({ type: string } & Record<string, unknown>)[],
): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const event of events) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  res.end();
}
