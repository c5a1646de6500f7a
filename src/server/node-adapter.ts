// The thin Node adapter: node:http request -> fetch Request -> handler -> node:http response.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Handler } from "./http/router.js";

export function createNodeServer(handle: Handler): Server {
  return createServer((req, res) => {
    void respond(handle, req, res);
  });
}

async function respond(handle: Handler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // Aborted when the client goes away, so a long-poll stops waiting; the operation itself carries on.
  const controller = new AbortController();
  res.on("close", () => controller.abort());
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const method = req.method ?? "GET";
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (Array.isArray(value)) for (const v of value) headers.append(name, v);
      else if (value !== undefined) headers.set(name, value);
    }
    const request = new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`, {
      method,
      headers,
      signal: controller.signal,
      ...(method === "GET" || method === "HEAD" ? {} : { body: Buffer.concat(chunks) }),
    });
    const response = await handle(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  } catch {
    // The client disconnected mid-request or sent something unreadable; nothing useful can be answered.
    if (!res.headersSent) res.writeHead(400).end();
    else res.end();
  }
}
