import { describe, expect, it } from "vitest";
import { BATONRC_MAX_BYTES, lintBatonrc } from "../../../src/config/batonrc.js";

// A token shape the secret detectors know (GitHub personal access token), not a real one.
const TOKEN_LIKE = `ghp_${"a1B2c3D4e5".repeat(3)}abcdef`;

describe(".batonrc.json lint (reference section 2: sandbox.snapshot_name, sandbox.env, pre_clone)", () => {
  it("accepts every key and returns the parsed document", () => {
    const text = JSON.stringify({
      sandbox: { snapshot_name: "acme/agent-base:2024-06", env: { API_BASE_URL: "http://localhost:3000" } },
      pre_clone: ["echo ready"],
      post_clone: ["npm ci"],
    });
    expect(lintBatonrc(text)).toEqual({ ok: true, config: JSON.parse(text) });
  });

  it.each([
    ["an unknown top-level key", { setup: [] }, "setup", "is not a .batonrc.json key"],
    [
      "an unknown key under sandbox",
      { sandbox: { image: "x" } },
      "sandbox.image",
      "is not a .batonrc.json key",
    ],
    ["pre_clone that is not a list", { pre_clone: "echo hi" }, "pre_clone", "expected array"],
    ["an empty pre_clone command", { pre_clone: ["ok", ""] }, "pre_clone[1]", "must not be empty"],
    [
      "a sandbox.env value that is not a string",
      { sandbox: { env: { PORT: 3000 } } },
      "sandbox.env.PORT",
      "expected string",
    ],
    [
      "a sandbox.env name that is not a shell name",
      { sandbox: { env: { "1PORT": "3000" } } },
      "sandbox.env.1PORT",
      "is not a shell variable name",
    ],
    [
      "a snapshot_name that is not an image name",
      { sandbox: { snapshot_name: "rm -rf /" } },
      "sandbox.snapshot_name",
      "must be an image name",
    ],
    [
      "a sandbox.env name Baton sets itself (the transport's credentials would be replaced in new shells)",
      { sandbox: { env: { BATON_OPS_URL: "http://elsewhere.test" } } },
      "sandbox.env.BATON_OPS_URL",
      "is reserved",
    ],
    [
      "a sandbox.env name of the egress settings",
      { sandbox: { env: { https_proxy: "http://elsewhere.test:3128" } } },
      "sandbox.env.https_proxy",
      "is reserved",
    ],
    [
      "a sandbox.env name the shells' start-up reads",
      { sandbox: { env: { BASH_ENV: "/tmp/x" } } },
      "sandbox.env.BASH_ENV",
      "is reserved",
    ],
    [
      "a secret-looking sandbox.env value",
      { sandbox: { env: { GH: TOKEN_LIKE } } },
      "sandbox.env.GH",
      "looks like a secret",
    ],
  ])("refuses %s, naming the key", (_what, document, path, message) => {
    const result = lintBatonrc(JSON.stringify(document));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]!.path).toBe(path);
    expect(result.problems[0]!.message).toContain(message);
  });

  it("never repeats a value in a problem", () => {
    const result = lintBatonrc(JSON.stringify({ sandbox: { env: { GH: TOKEN_LIKE } } }));
    expect(JSON.stringify(result)).not.toContain(TOKEN_LIKE);
  });

  it("reports every problem at once", () => {
    const result = lintBatonrc(
      JSON.stringify({ extra: 1, sandbox: { env: { "bad-name": "x" } }, pre_clone: 3 }),
    );
    expect(result.ok ? [] : result.problems.map((p) => p.path).sort()).toEqual([
      "extra",
      "pre_clone",
      "sandbox.env.bad-name",
    ]);
  });

  it("refuses text that is not JSON", () => {
    expect(lintBatonrc("{ nope")).toMatchObject({ ok: false, problems: [{ path: "(file)" }] });
  });

  // JSON.parse's own message quotes the text near the fault: a token left unquoted, or a file that is not this
  // one at all, would reach the problem list and every output that shows it.
  it.each([
    ["an unquoted token", `{"sandbox": {"env": {"GH": ${TOKEN_LIKE}}}}`, TOKEN_LIKE.slice(0, 8)],
    ["another file's text", "root:*:20211:0:99999:7:::\n", "root:*"],
  ])("never repeats the text of a file that is not JSON (%s)", (_what, text, canary) => {
    const result = lintBatonrc(text);
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).not.toContain(canary);
  });

  it("says where the JSON breaks, by line and column", () => {
    expect(lintBatonrc('{\n  "pre_clone": ["a"],\n}')).toEqual({
      ok: false,
      problems: [{ path: "(file)", message: "is not JSON at line 3, column 1" }],
    });
    expect(lintBatonrc("")).toEqual({
      ok: false,
      problems: [{ path: "(file)", message: "is not JSON at line 1, column 1" }],
    });
  });

  it("names a reserved name and a secret-looking value even when another key is wrong", () => {
    const result = lintBatonrc(
      JSON.stringify({ extra: 1, sandbox: { env: { BATON_OPS_URL: "http://x", GH: TOKEN_LIKE } } }),
    );
    expect(result.ok ? [] : result.problems.map((p) => p.path).sort()).toEqual([
      "extra",
      "sandbox.env.BATON_OPS_URL",
      "sandbox.env.GH",
    ]);
    expect(JSON.stringify(result)).not.toContain(TOKEN_LIKE);
  });

  it(`refuses a file over ${BATONRC_MAX_BYTES} bytes before parsing it`, () => {
    const result = lintBatonrc(JSON.stringify({ pre_clone: ["x".repeat(BATONRC_MAX_BYTES)] }));
    expect(result).toEqual({
      ok: false,
      problems: [{ path: "(file)", message: `is larger than ${BATONRC_MAX_BYTES} bytes` }],
    });
  });
});
