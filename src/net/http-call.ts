// Small HTTP calls outside the CLI's JSON client: `baton proxy` to `baton serve` (lease lookups, refusal reports) and
// the sandbox fetching the proxy's CA, on node:http with a time limit. Answers are bounded; nothing here retries.
import { Agent, request } from "node:http";

const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

export interface HttpAnswer {
  status: number;
  text: string;
}

export function callHttp(
  url: string,
  init: { method?: "GET" | "POST"; headers?: Record<string, string>; body?: string; timeoutMs: number },
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    if (target.protocol !== "http:") {
      reject(new Error(`${target.protocol} is not supported here; use http://`));
      return;
    }
    const req = request(
      target,
      {
        method: init.method ?? "GET",
        agent,
        headers: {
          ...init.headers,
          ...(init.body === undefined ? {} : { "content-length": String(Buffer.byteLength(init.body)) }),
        },
        timeout: init.timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) req.destroy(new Error("the answer is too large"));
          else chunks.push(chunk);
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${init.timeoutMs} ms`)));
    req.on("error", reject);
    req.end(init.body);
  });
}
