// The placeholder path only hands a value to an upstream whose certificate the proxy trusts for that very name,
// and a value that cannot travel in a header is refused with an answer instead of taking the proxy down.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseApprovedDestination } from "../../../src/capability/destination.js";
import { CANARY, header, PLACEHOLDER, type ProxyWorld, SECRET_ID, startProxyWorld } from "./harness.js";

const BROKEN_ID = `sec_${"d4".repeat(16)}`;
const BROKEN_PLACEHOLDER = `baton-secret-${BROKEN_ID}`;
const BROKEN_VALUE = "canary-line\nbreak-0f3e-never-print";

let world: ProxyWorld;
let untrusting: ProxyWorld;
beforeAll(async () => {
  const secrets = [
    {
      id: SECRET_ID,
      placeholder: PLACEHOLDER,
      value: CANARY,
      // The test upstream's certificate names api.acme.test but not plain.acme.test.
      destinations: ["api.acme.test", "plain.acme.test"].map((d) => parseApprovedDestination(d)!),
    },
    {
      id: BROKEN_ID,
      placeholder: BROKEN_PLACEHOLDER,
      value: BROKEN_VALUE,
      destinations: [parseApprovedDestination("api.acme.test")!],
    },
  ];
  world = await startProxyWorld({}, { secrets });
  // No upstreamCaFile: the upstream's CA is one the proxy does not know.
  untrusting = await startProxyWorld({ upstreamCaFile: undefined }, { secrets });
});
afterAll(async () => {
  await world?.close();
  await untrusting?.close();
});

const bearer = (w: ProxyWorld, placeholder: string, url: string) =>
  w.curl(["--cacert", w.proxyCaFile, "-H", `Authorization: Bearer ${placeholder}`, url]);

describe("the upstream's certificate on the placeholder path", () => {
  it("from a CA the proxy does not trust: 502, and the upstream never sees the request", async () => {
    const result = await bearer(untrusting, PLACEHOLDER, "https://api.acme.test/untrusted-ca");
    expect(result.status).toBe(502);
    expect(header(result, "baton-proxy-error")).toBe("upstream_unreachable");
    expect(result.body).toContain("TLS certificate is not trusted");
    expect(untrusting.received().some((l) => l.url === "/untrusted-ca")).toBe(false);
  });

  it("trusted but for other names: 502, and the upstream never sees the request", async () => {
    const result = await bearer(world, PLACEHOLDER, "https://plain.acme.test/wrong-name");
    expect(result.status).toBe(502);
    expect(result.body).toContain("TLS certificate is not trusted");
    expect(world.received().some((l) => l.url === "/wrong-name")).toBe(false);
  });
});

describe("a secret whose value cannot be a header", () => {
  it("is refused with 502 secret_unusable naming the secret, never its value; the proxy keeps serving", async () => {
    const result = await bearer(world, BROKEN_PLACEHOLDER, "https://api.acme.test/broken");
    expect(result.status).toBe(502);
    expect(header(result, "baton-proxy-error")).toBe("secret_unusable");
    expect(result.body).toContain(BROKEN_ID);
    expect(world.received().some((l) => l.url === "/broken")).toBe(false);
    const next = await bearer(world, PLACEHOLDER, "https://api.acme.test/after-broken");
    expect(next.status).toBe(200);
    expect(world.received().find((l) => l.url === "/after-broken")!.headers.authorization).toBe(
      `Bearer ${CANARY}`,
    );
  });

  it("neither value is in any audit line, debug log line or refusal", () => {
    const everything = [world, untrusting]
      .flatMap((w) => [JSON.stringify(w.audit), w.log(), JSON.stringify(w.refusals.all())])
      .join("\n");
    expect(everything).toContain(BROKEN_ID);
    for (const value of [CANARY, BROKEN_VALUE, "canary-line"]) expect(everything).not.toContain(value);
  });
});
