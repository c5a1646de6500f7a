// A loopback forwarder that adds `Authorization: Bearer <token>` to every request and passes it on unchanged
// otherwise: what an MCP client configured with a bearer header does. The conformance runner has no option for
// headers, so it talks to the service through this. The service's budget is 120 MCP calls a minute per token
// and a conformance run makes more: the forwarder moves to the next token after `callsPerToken` calls, as
// several clients would. Auth on the service is untouched: every request still carries a real token.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

const HOP_BY_HOP = new Set(["host", "connection", "content-length", "transfer-encoding", "keep-alive"]);

export interface BearerForwarder {
  url: string;
  /** Requests forwarded so far. */
  readonly calls: number;
  close(): Promise<void>;
}

export async function startBearerForwarder(
  target: string,
  tokens: readonly string[],
  callsPerToken = 100,
): Promise<BearerForwarder> {
  let calls = 0;
  const server: Server = createServer(async (req, res) => {
    const token = tokens[Math.floor(calls++ / callsPerToken)];
    if (!token) {
      res.writeHead(599).end("the forwarder ran out of tokens: give it more");
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers))
      if (!HOP_BY_HOP.has(name) && value !== undefined)
        headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    headers.set("authorization", `Bearer ${token}`);
    try {
      const answer = await fetch(`${target}${req.url}`, {
        method: req.method ?? "GET",
        headers,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      });
      const body = Buffer.from(await answer.arrayBuffer());
      const out: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!HOP_BY_HOP.has(name) && name !== "content-encoding") out[name] = value;
      });
      res.writeHead(answer.status, out).end(body);
    } catch (error) {
      res.writeHead(502).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get calls() {
      return calls;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
