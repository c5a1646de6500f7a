// Plain HTTP/1.x inside an opaque CONNECT tunnel (issue 35 C.17): the first request's head, read from the client's
// first bytes, so that a Host naming another host or port than the tunnel's authority is refused with 421
// `host_mismatch`, as an absolute-form request is (handle-http.ts): a shared address must not serve a host the
// policy never checked. Only the first request of the tunnel is read; the bytes after it pass untouched. Pure.
import { parseAuthority, type Target } from "../policy/index.js";

/** A head larger than this is refused: its Host could hide past what the proxy reads. Node's own limit. */
export const MAX_HEAD_BYTES = 16 * 1024;

export type HttpHeadState =
  | { done: false }
  | { done: true; http: false }
  | { done: true; http: true; hosts: string[]; tooLarge: boolean };

const METHOD_SO_FAR = /^[A-Z]{0,20}$/;
const REQUEST_LINE = /^[A-Z]{1,20} \S+ HTTP\/1\.[01]\r?$/;

/** Whether `data` (the tunnel's first bytes) starts an HTTP/1.x request, and its Host headers once the head is in. */
export function collectHttpHead(data: Buffer): HttpHeadState {
  const text = data.subarray(0, MAX_HEAD_BYTES + 4).toString("latin1");
  const lineEnd = text.indexOf("\n");
  if (lineEnd < 0) {
    const space = text.indexOf(" ");
    const method = space < 0 ? text : text.slice(0, space);
    if (!METHOD_SO_FAR.test(method) || (space >= 0 && method === "")) return { done: true, http: false };
    return text.length >= MAX_HEAD_BYTES ? { done: true, http: false } : { done: false };
  }
  if (!REQUEST_LINE.test(text.slice(0, lineEnd))) return { done: true, http: false };
  const headEnd = /\r?\n\r?\n/.exec(text);
  if (!headEnd) return data.length >= MAX_HEAD_BYTES ? tooLarge() : { done: false };
  if (headEnd.index > MAX_HEAD_BYTES) return tooLarge();
  const hosts = text
    .slice(lineEnd + 1, headEnd.index)
    .split(/\r?\n/)
    .filter((line) => /^host\s*:/i.test(line))
    .map((line) => line.slice(line.indexOf(":") + 1).trim());
  return { done: true, http: true, hosts, tooLarge: false };
}

const tooLarge = (): HttpHeadState => ({ done: true, http: true, hosts: [], tooLarge: true });

/** Whether a Host header names exactly the target's host and port (80 when it names none). */
export function hostHeaderNames(given: string, target: Target): boolean {
  const parsed = parseAuthority(given, 80);
  return parsed.ok && parsed.value.host.host === target.host.host && parsed.value.port === target.port;
}

/** Why the tunnel's first request is refused, or null when its Host (if any) names the tunnel's authority. */
export function misdirectedRequest(head: HttpHeadState, target: Target): string | null {
  if (!head.done || !head.http) return null;
  if (head.tooLarge)
    return `a request head over ${MAX_HEAD_BYTES} bytes in the tunnel, whose Host the proxy cannot read`;
  if (head.hosts.length > 1) return `a request with ${head.hosts.length} Host headers in the tunnel`;
  const given = head.hosts[0];
  if (given === undefined || hostHeaderNames(given, target)) return null;
  return `the Host header ${given.slice(0, 260)} differs from ${target.host.host}:${target.port}, the tunnel's authority`;
}
