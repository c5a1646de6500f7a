// Placeholder substitution (pure) and the response scrubber: a value split across chunks is still replaced.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseApprovedDestination } from "../../../src/capability/destination.js";
import type { LeaseSecret } from "../../../src/proxy/lease/policy.js";
import { createScrubber, scrubPairs, scrubText } from "../../../src/proxy/secrets/scrub.js";
import { substitutePlaceholders } from "../../../src/proxy/secrets/substitute.js";

const secret: LeaseSecret = {
  id: `sec_${"c3".repeat(16)}`,
  placeholder: `baton-secret-sec_${"c3".repeat(16)}`,
  value: "canary-unit-5a5a-never-print",
  destinations: [parseApprovedDestination("https://api.acme.test/v2/")!],
};
const origin = { scheme: "https" as const, host: "api.acme.test", port: 443, path: "/v2/x" };
const context = { secrets: [secret], origin, headers: new Set(["x-token"]) };

describe("substitutePlaceholders", () => {
  it("swaps Bearer, Basic (base64 user:placeholder) and named headers at an approved origin", () => {
    const basic = Buffer.from(`me:${secret.placeholder}`).toString("base64");
    const out = substitutePlaceholders(
      [
        ["Authorization", `Basic ${basic}`],
        ["X-Token", secret.placeholder],
        ["Cookie", `s=${secret.placeholder}`],
      ],
      context,
    );
    expect(Buffer.from(out.headers[0]![1].slice(6), "base64").toString()).toBe(`me:${secret.value}`);
    expect(out.headers[1]![1]).toBe(secret.value);
    expect(out.headers[2]![1]).toBe(`s=${secret.placeholder}`);
    expect(out.swapped).toEqual([secret.id]);
    expect(out.unapproved).toEqual([secret.id]);
  });

  it.each([
    ["another path", { ...origin, path: "/v1/x" }],
    ["another port", { ...origin, port: 8443 }],
    ["another host", { ...origin, host: "api.acme.test.evil.test" }],
    ["plain http", { ...origin, scheme: "http" as const }],
    ["endpoints that disagree", null],
  ])("leaves it unchanged for %s", (_what, at) => {
    const out = substitutePlaceholders([["Authorization", `Bearer ${secret.placeholder}`]], {
      ...context,
      origin: at,
    });
    expect(out.headers[0]![1]).toBe(`Bearer ${secret.placeholder}`);
    expect(out.unapproved).toEqual([secret.id]);
    expect(out.swapped).toEqual([]);
  });
});

describe("a secret bound to headers of its own (a coding agent's model key)", () => {
  const modelKey: LeaseSecret = {
    id: `sec_${"d4".repeat(16)}`,
    placeholder: `baton-secret-sec_${"d4".repeat(16)}`,
    value: "canary-model-key-7e7e-never-print",
    destinations: [parseApprovedDestination("api.anthropic.com")!],
    headers: ["x-api-key"],
  };
  const model = { scheme: "https" as const, host: "api.anthropic.com", port: 443, path: "/v1/messages" };
  const bound = { secrets: [modelKey], origin: model, headers: new Set(["x-token"]) };

  it("is swapped in its header only: not in Authorization nor the operator's headers", () => {
    const out = substitutePlaceholders(
      [
        ["X-Api-Key", modelKey.placeholder],
        ["Authorization", `Bearer ${modelKey.placeholder}`],
        ["X-Token", modelKey.placeholder],
      ],
      bound,
    );
    expect(out.headers.map(([, value]) => value)).toEqual([
      modelKey.value,
      `Bearer ${modelKey.placeholder}`,
      modelKey.placeholder,
    ]);
    expect(out.swapped).toEqual([modelKey.id]);
    expect(out.unapproved).toEqual([modelKey.id]);
  });

  it("is not swapped at another host, even in its header", () => {
    const out = substitutePlaceholders([["x-api-key", modelKey.placeholder]], {
      ...bound,
      origin: { ...model, host: "api.acme.test" },
    });
    expect(out.headers[0]![1]).toBe(modelKey.placeholder);
    expect(out.swapped).toEqual([]);
  });

  it("two lines of its header with placeholders are ambiguous and nothing is swapped", () => {
    const out = substitutePlaceholders(
      [
        ["x-api-key", modelKey.placeholder],
        ["x-api-key", modelKey.placeholder],
      ],
      bound,
    );
    expect(out.ambiguous).toBe("2 x-api-key headers carry placeholders");
    expect(out.swapped).toEqual([]);
  });
});

describe("two placeholders where one credential is expected (issue 21 point 15)", () => {
  const other = `baton-secret-sec_${"d4".repeat(16)}`;
  it.each([
    ["two in one Bearer", [["Authorization", `Bearer ${secret.placeholder} ${secret.placeholder}`]]],
    ["this secret and an unknown one", [["Authorization", `Bearer ${secret.placeholder} ${other}`]]],
    [
      "Basic user and password",
      [
        [
          "Authorization",
          `Basic ${Buffer.from(`${secret.placeholder}:${secret.placeholder}`).toString("base64")}`,
        ],
      ],
    ],
    ["two in a named header", [["X-Token", `${secret.placeholder},${secret.placeholder}`]]],
    [
      "two Authorization headers",
      [
        ["Authorization", `Bearer ${secret.placeholder}`],
        ["authorization", `Bearer ${other}`],
      ],
    ],
  ] as [string, [string, string][]][])("%s: nothing swapped, the reason given", (_what, headers) => {
    const out = substitutePlaceholders(headers, context);
    expect(out.ambiguous).toMatch(/holds 2 placeholders|2 authorization headers carry placeholders/);
    expect(out.swapped).toEqual([]);
    expect(out.headers).toEqual(headers);
    expect(JSON.stringify(out)).not.toContain(secret.value);
  });

  it.each([
    ["where nothing would be swapped (another host)", { ...origin, host: "other.acme.test" }],
    ["where endpoints disagree", null],
  ])("is not an ambiguity %s", (_what, at) => {
    const out = substitutePlaceholders(
      [["Authorization", `Bearer ${secret.placeholder} ${secret.placeholder}`]],
      {
        ...context,
        origin: at,
      },
    );
    expect(out.ambiguous).toBeNull();
  });

  it("one placeholder in each of two different credential headers is no ambiguity", () => {
    const out = substitutePlaceholders(
      [
        ["Authorization", `Bearer ${secret.placeholder}`],
        ["X-Token", secret.placeholder],
        ["Cookie", `a=${secret.placeholder}; b=${secret.placeholder}`],
      ],
      context,
    );
    expect(out.ambiguous).toBeNull();
    expect(out.swapped).toEqual([secret.id]);
  });
});

function scrub(chunks: string[], secrets: LeaseSecret[] = [secret]): { text: string; count: number } {
  const scrubber = createScrubber(scrubPairs(secrets));
  const parts = chunks.map((c) => scrubber.push(Buffer.from(c)));
  parts.push(scrubber.flush());
  return { text: Buffer.concat(parts).toString(), count: scrubber.count() };
}

describe("createScrubber", () => {
  it("replaces every value however the body is cut into chunks, and nothing else", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string(),
        fc.string(),
        fc.array(fc.nat(80), { maxLength: 6 }),
        async (a, b, cuts) => {
          const body = `${a}${secret.value}${b}${secret.value}`;
          const points = [...new Set(cuts.map((c) => c % (body.length + 1)))].sort((x, y) => x - y);
          const chunks: string[] = [];
          let from = 0;
          for (const p of points) {
            chunks.push(body.slice(from, p));
            from = p;
          }
          chunks.push(body.slice(from));
          const out = scrub(chunks.filter((c) => c.length > 0));
          expect(out.text).toBe(body.split(secret.value).join(secret.placeholder));
          expect(out.text).not.toContain(secret.value);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("what the scrubber looks for", () => {
  const special: LeaseSecret = {
    ...secret,
    value: 'tok+en/with="odd"\\chars',
  };

  it.each([
    ["the value itself", special.value],
    ["percent-encoded", encodeURIComponent(special.value)],
    [
      "percent-encoded in lowercase hex",
      encodeURIComponent(special.value).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
    ],
    ["JSON-escaped", JSON.stringify(special.value).slice(1, -1)],
    ["JSON-escaped with escaped slashes", JSON.stringify(special.value).slice(1, -1).replace(/\//g, "\\/")],
  ])("%s becomes the placeholder", (_form, echoed) => {
    expect(scrub([`{"got":"${echoed}"}`], [special]).text).toBe(`{"got":"${special.placeholder}"}`);
    expect(scrubText(`x ${echoed} y`, scrubPairs([special])).text).toBe(`x ${special.placeholder} y`);
  });

  it("Basic credentials the proxy rewrote are scrubbed back to what the sandbox sent", () => {
    const sent = Buffer.from(`me:${secret.placeholder}`).toString("base64");
    const out = substitutePlaceholders([["Authorization", `Basic ${sent}`]], context);
    const swappedIn = out.headers[0]![1].slice("Basic ".length);
    expect(Buffer.from(swappedIn, "base64").toString()).toBe(`me:${secret.value}`);
    expect(out.rewrites).toEqual([{ sent: swappedIn, original: sent }]);
    const echoed = scrubText(`{"authorization":"Basic ${swappedIn}"}`, scrubPairs([secret], out.rewrites));
    expect(echoed.text).toBe(`{"authorization":"Basic ${sent}"}`);
  });

  it("a value that cannot be header text is reported unusable and not swapped; Basic's base64 carries it", () => {
    const broken: LeaseSecret = { ...secret, value: "line\nbreak" };
    const out = substitutePlaceholders(
      [
        ["Authorization", `Bearer ${broken.placeholder}`],
        ["X-Token", broken.placeholder],
      ],
      { ...context, secrets: [broken] },
    );
    expect(out.headers.map(([, v]) => v)).toEqual([`Bearer ${broken.placeholder}`, broken.placeholder]);
    expect(out.unusable).toEqual([broken.id]);
    expect(out.swapped).toEqual([]);
    const basic = substitutePlaceholders(
      [["Authorization", `Basic ${Buffer.from(`u:${broken.placeholder}`).toString("base64")}`]],
      { ...context, secrets: [broken] },
    );
    expect(basic.unusable).toEqual([]);
    expect(Buffer.from(basic.headers[0]![1].slice(6), "base64").toString()).toBe("u:line\nbreak");
  });
});

describe("a streamed answer is not held back", () => {
  it("a chunk whose end cannot begin a value passes at once; only a possible start of a value waits", () => {
    const scrubber = createScrubber(scrubPairs([secret]));
    const push = (text: string) => scrubber.push(Buffer.from(text)).toString();
    expect(push("data: one\n\n")).toBe("data: one\n\n");
    // "canary-un" could be the start of the value: it waits for the next chunk.
    expect(push("data: canary-un")).toBe("data: ");
    expect(push("it-5a5a-never-print\n\n")).toBe(`${secret.placeholder}\n\n`);
    expect(push("tail canary")).toBe("tail ");
    expect(scrubber.flush().toString()).toBe("canary");
    expect(scrubber.count()).toBe(1);
  });
});
