// What the API-facing benches share: a seed of many members with a token each (so no per-token limit is what is
// measured), and a load generator of `clients` concurrent callers over one keep-alive http.Agent that rotates
// the tokens, with back-to-back phases of a fixed length.
import { writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { join } from "node:path";

/** Writes `<dir>/seed.json`: workspace ws_bench with `users` members (token(i) each) and one repository. */
export function writeMembersSeed(dir, { users, token, reply = "ok", queueSize = 100_000 }) {
  const path = join(dir, "seed.json");
  writeFileSync(
    path,
    JSON.stringify({
      agent: { rules: [{ reply }] },
      workspaces: [
        {
          id: "ws_bench",
          name: "Bench",
          plan: { name: "bench", concurrency: 64, queueSize },
          members: Array.from({ length: users }, (_, i) => ({
            email: `u${i}@bench.test`,
            role: "member",
            token: token(i),
          })),
          repositories: [{ repository: "bench/app" }],
        },
      ],
    }),
  );
  return path;
}

/** `call(method, path, body?, headers?)` and `phase(ms, work, accept)` against `url` with `clients` callers. */
export function createLoad({ url, clients, nextToken }) {
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const call = (method, path, body, headers = {}) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const started = performance.now();
      const req = request(
        `${url}${path}`,
        {
          method,
          agent,
          headers: {
            authorization: `Bearer ${nextToken()}`,
            ...headers,
            ...(payload
              ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }
              : {}),
          },
        },
        (res) => {
          const chunks = [];
          res.on("data", (c) => chunks.push(c));
          res.on("end", () =>
            resolve({
              status: res.statusCode,
              text: Buffer.concat(chunks).toString(),
              ms: performance.now() - started,
            }),
          );
        },
      );
      req.on("error", reject);
      req.end(payload);
    });

  /** `clients` callers run `work` back to back for `ms`; accepted calls per second and their durations. */
  const phase = async (ms, work, accept) => {
    const until = performance.now() + ms;
    const durations = [];
    let refused = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (performance.now() < until) {
          const answer = await work();
          if (accept(answer)) durations.push(answer.ms);
          else refused += 1;
        }
      }),
    );
    return { perSecond: durations.length / ((performance.now() - started) / 1000), durations, refused };
  };
  return { agent, call, phase };
}

export const sorted = (values) => [...values].sort((a, b) => a - b);
/** The values in order, short: two decimals below 10, whole numbers above. */
export const range = (values) =>
  sorted(values)
    .map((v) => (v < 10 ? v.toFixed(2) : v.toFixed(0)))
    .join(", ");
