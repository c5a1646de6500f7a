// A keep-alive HTTP client for a real `baton serve` over loopback (node:http, so simultaneous requests really
// are simultaneous on several sockets), checking every answer against the OpenAPI document.
import { Agent, request } from "node:http";
import { expect } from "vitest";
import { checkResponse } from "./openapi-check.js";

export interface SocketAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: each test knows the shape the OpenAPI check has just validated
  body: any;
}

export function createSocketClient(baseUrl: string, maxSockets = 64) {
  const agent = new Agent({ keepAlive: true, maxSockets });
  const seen: string[] = [];
  const call = (
    method: string,
    path: string,
    init: { token?: string; headers?: Record<string, string>; body?: unknown } = {},
  ): Promise<SocketAnswer> =>
    new Promise((resolve, reject) => {
      const payload =
        init.body === undefined
          ? undefined
          : typeof init.body === "string"
            ? init.body
            : JSON.stringify(init.body);
      const req = request(
        new URL(path, baseUrl),
        {
          method,
          agent,
          headers: {
            ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
            ...(payload === undefined
              ? {}
              : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }),
            ...init.headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            seen.push(text + JSON.stringify(res.headers));
            const problems = checkResponse(
              method,
              path,
              res.statusCode ?? 0,
              (name) => {
                const value = res.headers[name];
                return Array.isArray(value) ? value.join(", ") : value;
              },
              text,
            );
            expect(problems, `${method} ${path}`).toEqual([]);
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text,
              body: text ? JSON.parse(text) : undefined,
            });
          });
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(payload);
    });
  return { call, seen, close: () => agent.destroy() };
}
