// A loopback TCP proxy in front of `baton serve` that can lose the answer to a POST after the service has done
// the work: the case where a client's retry must not start a second operation. It also counts the POSTs and
// the POST answers it passed on, so a test can tell when a request has reached the service.

import type { AddressInfo } from "node:net";
import { createConnection, createServer, type Server, type Socket } from "node:net";

export interface DropProxy {
  url: string;
  /** POST requests seen (attempts, including retries). */
  posts(): number;
  /** POST answers passed back to the client. */
  postAnswers(): number;
  /** GET requests seen. */
  gets(): number;
  /** Lose the answers to the next `count` POSTs. */
  dropNextPostAnswers(count: number): void;
  close(): Promise<void>;
}

export async function startDropProxy(targetPort: number): Promise<DropProxy> {
  let posts = 0;
  let answers = 0;
  let gets = 0;
  let toDrop = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: "127.0.0.1", port: targetPort });
    sockets.add(client).add(upstream);
    let awaitingPostAnswer: "pass" | "drop" | undefined;
    client.on("data", (chunk: Buffer) => {
      if (chunk.subarray(0, 4).toString("latin1") === "GET ") gets++;
      if (chunk.subarray(0, 5).toString("latin1") === "POST ") {
        posts++;
        awaitingPostAnswer = toDrop > 0 ? "drop" : "pass";
        if (toDrop > 0) toDrop--;
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (awaitingPostAnswer === "drop") {
        // The service answered, so the work is done; the client never hears of it.
        client.destroy();
        upstream.destroy();
        return;
      }
      if (awaitingPostAnswer === "pass") {
        answers++;
        awaitingPostAnswer = undefined;
      }
      client.write(chunk);
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", close).on("error", close);
    upstream.on("close", close).on("error", close);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    posts: () => posts,
    postAnswers: () => answers,
    gets: () => gets,
    dropNextPostAnswers: (count) => {
      toDrop = count;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
