// `baton serve` prints one warning line per listener that serves plain HTTP to other machines: any address but
// loopback. Pure: decided from the addresses.
import { describe, expect, it } from "vitest";
import { isLoopbackHost, plainHttpWarnings } from "../../../src/server/listen/exposure.js";

describe("isLoopbackHost", () => {
  it.each(["127.0.0.1", "127.1.2.3", "::1", "localhost", "::ffff:127.0.0.1"])(
    "%s stays on this machine",
    (host) => expect(isLoopbackHost(host)).toBe(true),
  );
  it.each(["0.0.0.0", "::", "10.0.0.5", "192.168.1.2", "fe80::1", "baton.example.test", "::ffff:10.0.0.1"])(
    "%s may be reached from elsewhere",
    (host) => expect(isLoopbackHost(host)).toBe(false),
  );
});

describe("plainHttpWarnings", () => {
  const listener = (host: string, serves = "the public API", flag = "--host") => ({
    serves,
    flag,
    host,
    url: `http://${host}:8080`,
  });

  it("says nothing when every listener is on loopback", () => {
    expect(
      plainHttpWarnings([listener("127.0.0.1"), listener("::1", "the admin API", "--admin-listen")]),
    ).toEqual([]);
  });

  it("gives one line per exposed listener, naming what it serves, the flag and how to put TLS in front", () => {
    const lines = plainHttpWarnings([
      listener("0.0.0.0"),
      listener("127.0.0.1", "the operations transport", "--ops-listen"),
      listener("10.0.0.5", "the admin API", "--admin-listen"),
    ]);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^warning: --host 0\.0\.0\.0 serves the public API over plain HTTP/);
    expect(lines[1]).toMatch(/^warning: --admin-listen 10\.0\.0\.5 serves the admin API over plain HTTP/);
    for (const line of lines) {
      expect(line).toContain("TLS reverse proxy");
      expect(line).not.toContain("\n");
    }
  });
});
