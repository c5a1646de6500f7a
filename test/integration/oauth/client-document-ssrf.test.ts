// Issue 35 A.4: documents named by a client (a Client ID Metadata Document at an https client_id, a
// sector_identifier_uri at registration) are never fetched from loopback, private, link-local or metadata
// addresses, and no TCP connection is opened to find out. The witness is a real loopback listener that counts
// the connections it accepts and never answers (a "stalling" port): the library's own guard connected first and
// judged the peer after, so the listener saw a connection and the answer took the fetch's 2.5 s time-out.

import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkDocumentUrl } from "../../../src/server/surfaces/oauth/guarded-fetch.js";
import { fetchAllowingLoopback, loopbackPortsOf } from "../../../src/server/surfaces/oauth/loopback-fetch.js";
import { type OAuthWorld, startOAuthWorld } from "./harness.js";

/** A refusal made before connecting answers at once; a connection attempt to a stalling port would not. */
const PROMPT_MS = 1000;

describe("client documents are never fetched from a non-public address, and no connection is opened to one", () => {
  let world: OAuthWorld;
  let seamed: OAuthWorld;
  let stalling: Server;
  let port = 0;
  let accepted = 0;
  beforeAll(async () => {
    stalling = createServer((socket) => {
      accepted++;
      // Never answers: a TLS client waits for the ServerHello until its time-out.
      socket.on("error", () => {});
    });
    await new Promise<void>((resolve) => stalling.listen(0, "127.0.0.1", resolve));
    port = (stalling.address() as AddressInfo).port;
    // The test seam opens one other loopback port (a test's own document server): never this one.
    [world, seamed] = await Promise.all([
      startOAuthWorld(),
      startOAuthWorld({ oauthFetch: fetchAllowingLoopback([port + 1 > 65535 ? port - 1 : port + 1]) }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([world?.close(), seamed?.close()]);
    await new Promise<void>((resolve) => stalling.close(() => resolve()));
  });

  const targets = () => [
    `https://127.0.0.1:${port}/doc.json`,
    `https://[::ffff:127.0.0.1]:${port}/doc.json`,
    `https://[::ffff:7f00:1]:${port}/doc.json`,
    `https://localhost:${port}/doc.json`,
    `https://2130706433:${port}/doc.json`,
    `https://0x7f000001:${port}/doc.json`,
    `https://10.255.255.1:${port}/doc.json`,
    `https://192.168.255.1:${port}/doc.json`,
    "https://169.254.169.254/latest/meta-data.json",
    "https://[fd00:ec2::254]/doc.json",
    "https://metadata.google.internal/doc.json",
  ];

  it("a Client ID Metadata Document at a loopback, private, IPv4-mapped or metadata address: invalid_client at once, no connection", async () => {
    for (const target of [world, seamed]) {
      for (const clientId of targets()) {
        const started = performance.now();
        const answer = await target.browse(
          `${target.url}/oauth/authorize?${new URLSearchParams({
            response_type: "code",
            client_id: clientId,
            redirect_uri: "http://127.0.0.1:5555/callback",
            scope: "baton",
            code_challenge: "a".repeat(43),
            code_challenge_method: "S256",
            state: "s",
          })}`,
        );
        const elapsed = performance.now() - started;
        expect({ clientId, status: answer.status }).toEqual({ clientId, status: 400 });
        expect(await answer.text()).toContain("invalid_client");
        expect(elapsed, clientId).toBeLessThan(PROMPT_MS);
      }
    }
    expect(accepted).toBe(0);
  });

  it("a sector_identifier_uri at a loopback, private, IPv4-mapped or metadata address: invalid_client_metadata at once, no connection", async () => {
    for (const target of [world, seamed]) {
      for (const uri of targets()) {
        const started = performance.now();
        const answer = await fetch(`${target.url}/oauth/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            application_type: "native",
            token_endpoint_auth_method: "none",
            redirect_uris: ["http://127.0.0.1/callback"],
            sector_identifier_uri: uri,
          }),
        });
        const elapsed = performance.now() - started;
        expect({ uri, status: answer.status }).toEqual({ uri, status: 400 });
        expect(((await answer.json()) as { error: string }).error).toBe("invalid_client_metadata");
        expect(elapsed, uri).toBeLessThan(PROMPT_MS);
      }
    }
    expect(accepted).toBe(0);
  });

  // A name is judged by every address it resolves to (the resolver is faked: no DNS zone here can be made to
  // answer with loopback or a mix); one non-public answer refuses the name, so a rebinding resolver gains nothing.
  it.each([
    [["127.0.0.1"], /loopback/],
    [["93.184.215.14", "10.0.0.7"], /private/],
    [["2606:2800:21f:cb07:6820:80da:af6b:8b2c", "::ffff:169.254.169.254"], /link_local_metadata/],
    [["fe80::1"], /link_local/],
  ])("a name resolving to %j is refused before any connection", async (addresses, why) => {
    const verdict = await checkDocumentUrl(new URL("https://client.example.com/doc.json"), {
      resolver: { resolve: async () => addresses },
    });
    expect(verdict).toEqual({ refused: expect.stringMatching(why) });
  });

  it("a name resolving to public addresses only is dialled at exactly those addresses", async () => {
    const verdict = await checkDocumentUrl(new URL("https://client.example.com:8443/doc.json"), {
      resolver: { resolve: async () => ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"] },
    });
    expect(verdict).toEqual({
      addresses: ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
      port: 8443,
    });
  });

  it("the loopback test seam opens only its own ports on loopback: not another port, not a private address", async () => {
    const seam = { loopbackPorts: [port], resolver: { resolve: async () => ["10.0.0.7"] } };
    expect(await checkDocumentUrl(new URL(`https://127.0.0.1:${port}/d`), seam)).toEqual({
      addresses: ["127.0.0.1"],
      port,
    });
    expect(await checkDocumentUrl(new URL(`https://127.0.0.1:${port + 1}/d`), seam)).toHaveProperty(
      "refused",
    );
    expect(await checkDocumentUrl(new URL(`https://10.0.0.7:${port}/d`), seam)).toHaveProperty("refused");
    expect(await checkDocumentUrl(new URL(`https://docs.example.com:${port}/d`), seam)).toHaveProperty(
      "refused",
    );
  });

  it.each([
    ["8443", [8443]],
    ["8443,9443", [8443, 9443]],
    // The old seam's value: it opened every loopback port; now it names no port a test serves on, so nothing.
    ["1", [1]],
    ["yes", undefined],
    ["0", undefined],
    ["70000", undefined],
    ["", undefined],
    [undefined, undefined],
  ])("BATON_SERVE_TEST_LOOPBACK_CLIENT_DOCUMENTS=%j opens loopback on ports %j only", (value, ports) => {
    expect(loopbackPortsOf(value)).toEqual(ports);
  });
});
