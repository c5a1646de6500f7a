// Raw sockets against the proxy, for what curl will not send: tunnels held open, pipelined or smuggling requests,
// an SNI that differs from the CONNECT authority, a ClientHello that never comes. Every wait has a deadline.
import { connect, type Socket } from "node:net";
import { type TLSSocket, connect as tlsConnect } from "node:tls";
import { eventually } from "./harness.js";

export const basicLease = (lease: string) => `Basic ${Buffer.from(`baton:${lease}`).toString("base64")}`;

/** A connection to the proxy that records everything it receives and whether it has closed. */
export interface Recorded<S extends Socket = Socket> {
  socket: S;
  text(): string;
  closed(): boolean;
}

export function record<S extends Socket>(socket: S): Recorded<S> {
  let text = "";
  let closed = false;
  socket.on("data", (chunk: Buffer) => {
    text += chunk.toString("latin1");
  });
  socket.on("error", () => {});
  socket.on("close", () => {
    closed = true;
  });
  return { socket, text: () => text, closed: () => closed };
}

export function dialProxy(host: string, port: number): Recorded {
  return record(connect({ host, port }));
}

/** CONNECT authority with the lease; resolves with the raw socket once the proxy answered 200. */
export async function openTunnel(
  host: string,
  port: number,
  authority: string,
  lease: string,
): Promise<Socket> {
  const socket = connect({ host, port });
  socket.on("error", () => {});
  socket.write(
    `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\nProxy-Authorization: ${basicLease(lease)}\r\n\r\n`,
  );
  let head = "";
  const onData = (chunk: Buffer) => {
    head += chunk.toString("latin1");
  };
  socket.on("data", onData);
  await eventually(() => (head.includes("\r\n\r\n") ? true : undefined));
  socket.off("data", onData);
  if (!head.startsWith("HTTP/1.1 200")) throw new Error(`CONNECT ${authority}: ${head.split("\r\n")[0]}`);
  return socket;
}

/** TLS over an open tunnel, trusting `ca` (or nothing, with `verify: false`, as a hostile client may). */
export async function startTls(
  socket: Socket,
  servername: string,
  options: { ca?: string; verify?: boolean } = {},
): Promise<TLSSocket> {
  const secure = tlsConnect({
    socket,
    servername,
    ...(options.ca ? { ca: [options.ca] } : {}),
    rejectUnauthorized: options.verify ?? true,
  });
  await new Promise<void>((resolve, reject) => {
    secure.once("secureConnect", () => resolve());
    secure.once("error", reject);
  });
  return secure;
}

/** Sends raw request bytes and waits until `count` whole responses (by Content-Length or chunked) came back. */
export async function exchange(conn: Recorded, request: string, count = 1): Promise<string[]> {
  const before = conn.text().length;
  conn.socket.write(request);
  const parse = () => {
    const responses = splitResponses(conn.text().slice(before));
    return responses.length >= count || conn.closed() ? responses : undefined;
  };
  return eventually(parse);
}

/** Whole HTTP/1.1 responses in `text`, in order (an unfinished last one is left out). */
export function splitResponses(text: string): string[] {
  const out: string[] = [];
  let rest = text;
  for (;;) {
    const end = rest.indexOf("\r\n\r\n");
    if (end === -1) return out;
    const head = rest.slice(0, end);
    let bodyEnd: number;
    if (/^transfer-encoding: chunked/im.test(head)) {
      const last = rest.indexOf("\r\n0\r\n\r\n", end);
      if (last === -1) return out;
      bodyEnd = last + 7;
    } else {
      const length = Number(/^content-length: (\d+)/im.exec(head)?.[1] ?? 0);
      if (rest.length < end + 4 + length) return out;
      bodyEnd = end + 4 + length;
    }
    out.push(rest.slice(0, bodyEnd));
    rest = rest.slice(bodyEnd);
  }
}

/** The decoded body of a chunked or Content-Length response. */
export function bodyOf(response: string): string {
  const end = response.indexOf("\r\n\r\n");
  const head = response.slice(0, end);
  const raw = response.slice(end + 4);
  if (!/^transfer-encoding: chunked/im.test(head)) return raw;
  let out = "";
  let at = 0;
  for (;;) {
    const line = raw.indexOf("\r\n", at);
    const size = Number.parseInt(raw.slice(at, line), 16);
    if (!size) return out;
    out += raw.slice(line + 2, line + 2 + size);
    at = line + 2 + size + 2;
  }
}
