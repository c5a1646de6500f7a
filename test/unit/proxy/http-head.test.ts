// The first request's head in an opaque tunnel (src/proxy/net/http-head.ts): what counts as plain HTTP, when the
// head is whole, and which Host headers are refused. Bytes in, verdicts out.
import { describe, expect, it } from "vitest";
import { collectHttpHead, MAX_HEAD_BYTES, misdirectedRequest } from "../../../src/proxy/net/http-head.js";
import { parseAuthority, type Target } from "../../../src/proxy/policy/index.js";

const bytes = (text: string) => Buffer.from(text, "latin1");
const target = (authority: string): Target => {
  const parsed = parseAuthority(authority);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.value;
};

describe("the first request's head in an opaque tunnel", () => {
  it.each([
    ["SSH-2.0-OpenSSH_9.2\r\n", "an SSH banner"],
    ["EHLO mail.example\r\n", "SMTP"],
    ["\x16\x03\x01", "TLS"],
    ["get / HTTP/1.1\r\n", "a lower-case method"],
    ["GET / HTTP/2.0\r\n", "another HTTP version"],
  ])("%j is not plain HTTP/1.x (%s): passed on at once", (text) => {
    expect(collectHttpHead(bytes(text))).toEqual({ done: true, http: false });
  });

  it("waits while the bytes could still be a request line or a head", () => {
    expect(collectHttpHead(bytes("GE"))).toEqual({ done: false });
    expect(collectHttpHead(bytes("GET /x HT"))).toEqual({ done: false });
    expect(collectHttpHead(bytes("GET /x HTTP/1.1\r\nHost: a\r\n"))).toEqual({ done: false });
  });

  it("reads every Host header of a whole head", () => {
    expect(
      collectHttpHead(bytes("GET / HTTP/1.1\r\nhost: a.test\r\nX: 1\r\nHOST : b.test\r\n\r\nbody")),
    ).toEqual({
      done: true,
      http: true,
      hosts: ["a.test", "b.test"],
      tooLarge: false,
    });
  });

  it("refuses another host or port, two Host headers, and a head too large to read; accepts the authority", () => {
    const at = target("other.test:80");
    const verdict = (head: string) => misdirectedRequest(collectHttpHead(bytes(head)), at);
    expect(verdict("GET / HTTP/1.1\r\nHost: other.test\r\n\r\n")).toBeNull();
    expect(verdict("GET / HTTP/1.1\r\nHost: OTHER.test:80\r\n\r\n")).toBeNull();
    expect(verdict("GET / HTTP/1.0\r\n\r\n")).toBeNull();
    expect(verdict("GET / HTTP/1.1\r\nHost: api.test\r\n\r\n")).toMatch(/Host header api.test differs/);
    expect(verdict("GET / HTTP/1.1\r\nHost: other.test:8080\r\n\r\n")).toMatch(/differs from other.test:80/);
    expect(verdict("GET / HTTP/1.1\r\nHost: other.test\r\nHost: api.test\r\n\r\n")).toMatch(/2 Host headers/);
    const padded = `GET / HTTP/1.1\r\nX-Pad: ${"a".repeat(MAX_HEAD_BYTES)}\r\nHost: api.test\r\n\r\n`;
    expect(verdict(padded)).toMatch(/over 16384 bytes/);
  });
});
